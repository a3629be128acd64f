package scene

import (
	"flag"
	"testing"

	"github.com/netphys/netphys/internal/golden"
)

func TestInputBitsRoundTrip(t *testing.T) {
	for b := 0; b < 1<<InputBits; b++ {
		in := InputFromBits(uint8(b))
		if got := in.Bits(); got != uint8(b) {
			t.Fatalf("InputFromBits(%#x).Bits() = %#x", b, got)
		}
	}
	if (Input{Z: true}).Bits() != 32 || (Input{Left: true}).Bits() != 1 {
		t.Fatal("bit order changed: it is part of the wire format")
	}
}

func TestScriptAt(t *testing.T) {
	sc := Script{{Ticks: 2, Input: Input{Up: true}}, {Ticks: 1, Input: Input{Z: true}}}
	want := []Input{{Up: true}, {Up: true}, {Z: true}, {}, {}}
	for tick, in := range want {
		if got := sc.At(tick); got != in {
			t.Errorf("At(%d) = %+v, want %+v", tick, got, in)
		}
	}
	if sc.Len() != 3 || PlayMinute.Len() != 3600 {
		t.Fatalf("Len = %d, PlayMinute.Len = %d; want 3, 3600", sc.Len(), PlayMinute.Len())
	}
}

func TestParseLayout(t *testing.T) {
	for _, l := range Layouts {
		got, err := ParseLayout(l.String())
		if err != nil || got != l {
			t.Fatalf("ParseLayout(%q) = %v, %v", l, got, err)
		}
	}
	if _, err := ParseLayout("nope"); err == nil {
		t.Fatal("ParseLayout accepted an unknown name")
	}
}

// TestPlayDeterministic plays the scripted minute's first 20 seconds twice
// and requires identical checksums at every step, then checks that saving at
// step k and loading into a fresh scene steps on bit for bit.
func TestPlayDeterministic(t *testing.T) {
	const steps, saveAt = 1200, 500
	a, err := New(Cubes900, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(Cubes900, DefaultConfig())
	var saved Snapshot
	var afterSave []uint64
	for tick := 0; tick < steps; tick++ {
		in := PlayMinute.At(tick)
		a.Step(in)
		b.Step(in)
		if ca, cb := a.Checksum(), b.Checksum(); ca != cb {
			t.Fatalf("tick %d: checksums differ: %x vs %x", tick, ca, cb)
		}
		if tick == saveAt {
			a.Save(&saved)
		}
		if tick > saveAt {
			afterSave = append(afterSave, a.Checksum())
		}
	}
	c, _ := New(Cubes900, DefaultConfig())
	if err := c.Load(&saved); err != nil {
		t.Fatal(err)
	}
	for i, want := range afterSave {
		c.Step(PlayMinute.At(saveAt + 1 + i))
		if got := c.Checksum(); got != want {
			t.Fatalf("tick %d after Load: checksum %x, want %x", saveAt+1+i, got, want)
		}
	}
}

// TestInteractionSpreadsAndClears drives the player into the grid and
// requires cubes to turn interacting, then everything to come to rest and
// turn grey again once input stops.
func TestInteractionSpreadsAndClears(t *testing.T) {
	s, err := New(Cubes900, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	maxInteracting := 0
	for tick := 0; tick < 600; tick++ {
		s.Step(PlayMinute.At(tick))
		n := 0
		for i := range s.Cubes {
			if s.Interacting(i) {
				n++
			}
		}
		maxInteracting = max(maxInteracting, n)
	}
	if maxInteracting < 5 {
		t.Fatalf("at most %d cubes interacting while the player ploughs through the grid", maxInteracting)
	}
	for tick := 0; tick < 1200; tick++ {
		s.Step(Input{})
	}
	for i, id := range s.Cubes {
		st := s.State(id)
		if s.Interacting(i) || !st.AtRest {
			t.Fatalf("cube %d still interacting=%v atRest=%v at %v after 20 s idle", i, s.Interacting(i), st.AtRest, st.Position)
		}
		if st.Position.Y < 0 {
			t.Fatalf("cube %d below the ground at %v", i, st.Position)
		}
	}
}

func TestPlayerMovesWithArrows(t *testing.T) {
	s, err := New(Tower20, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	start := s.State(s.Player).Position
	for tick := 0; tick < 60; tick++ {
		s.Step(Input{Right: true})
	}
	moved := s.State(s.Player).Position.Sub(start)
	if moved.X < 1 {
		t.Fatalf("player moved %v after 1 s of Right, want at least 1 m along +X", moved)
	}
	start = s.State(s.Player).Position
	for tick := 0; tick < 60; tick++ {
		s.Step(Input{Space: true})
	}
	if lift := s.State(s.Player).Position.Y - start.Y; lift < 1 {
		t.Fatalf("player rose %.2f m after 1 s of Space, want at least 1 m", lift)
	}
}

var update = flag.Bool("update", false, "rewrite testdata/golden_checksums.txt")

// goldenScript exercises every button within six seconds.
var goldenScript = Script{
	{Ticks: 90, Input: Input{Up: true}},
	{Ticks: 90, Input: Input{Up: true, Z: true}},
	{Ticks: 60, Input: Input{Space: true, Z: true}},
	{Ticks: 60, Input: Input{Left: true, Down: true}},
	{Ticks: 60},
}

// TestGoldenChecksums plays goldenScript on the 900-cube world and compares
// its checksum after every step with the sequence recorded on linux/amd64.
func TestGoldenChecksums(t *testing.T) {
	s, err := New(Cubes900, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	sums := make([]uint64, goldenScript.Len())
	for tick := range sums {
		s.Step(goldenScript.At(tick))
		sums[tick] = s.Checksum()
	}
	golden.Check(t, "testdata/golden_checksums.txt", sums, *update)
}

// TestGoldenCrossArch replays TestGoldenChecksums built for arm64 (under
// qemu) and for amd64 with GOAMD64=v3: the scene, inputs included, is
// bit-identical on every architecture.
func TestGoldenCrossArch(t *testing.T) {
	golden.CrossArch(t, "TestGoldenChecksums")
}
