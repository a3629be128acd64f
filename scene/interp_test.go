package scene

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire/snapshot"
)

// TestInterpGame: the game counts the player and the cubes, captures them
// in snapshot order, returns each tick's input and plays its script over
// and over.
func TestInterpGame(t *testing.T) {
	script := Script{{Ticks: 2, Input: Input{Up: true}}, {Ticks: 1, Input: Input{Z: true}}}
	g, err := NewInterpGame(Pyramid10, DefaultConfig(), script)
	if err != nil {
		t.Fatal(err)
	}
	if g.Objects() != len(g.Scene.Cubes)+1 {
		t.Fatalf("%d objects for %d cubes and the player", g.Objects(), len(g.Scene.Cubes))
	}
	var got []uint32
	for range 7 {
		got = append(got, g.Step())
	}
	up, z := uint32(Input{Up: true}.Bits()), uint32(Input{Z: true}.Bits())
	want := []uint32{up, up, z, up, up, z, up}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("inputs %v, want %v", got, want)
		}
	}
	dst := make([]snapshot.Cube, g.Objects())
	g.Capture(dst)
	if p := g.Scene.State(g.Scene.Player); dst[0].Position != p.Position || dst[0].Rotation != p.Rotation {
		t.Errorf("object 0 is %+v, the player %+v", dst[0], p)
	}
	if c := g.Scene.State(g.Scene.Cubes[3]); dst[4].Position != c.Position {
		t.Errorf("object 4 is %+v, cube 3 %+v", dst[4], c)
	}
}

// recorded is an InterpGame whose every tick's state is kept, with the
// teleports, so that a client's drawing can be compared with the world
// it shows.
type recorded struct {
	*InterpGame
	hist  [][]snapshot.Cube // hist[t-1]: the state after t steps (server tick t)
	jumps []jump
	marks []bool
}

// jump is object teleported by the step into server tick tick.
type jump struct{ object, tick int }

func (r *recorded) Step() uint32 {
	in := r.InterpGame.Step()
	st := make([]snapshot.Cube, r.Objects())
	r.Capture(st)
	r.hist = append(r.hist, st)
	r.marks = append(r.marks[:0], make([]bool, r.Objects())...)
	r.InterpGame.Resets(r.marks)
	for i, on := range r.marks {
		if on {
			r.jumps = append(r.jumps, jump{i, len(r.hist)})
		}
	}
	return in
}

// hiddenResets is the same game without the Resetter capability.
type hiddenResets struct{ r *recorded }

func (h hiddenResets) Objects() int                { return h.r.Objects() }
func (h hiddenResets) Step() uint32                { return h.r.Step() }
func (h hiddenResets) Capture(dst []snapshot.Cube) { h.r.Capture(dst) }

// teleportErrors are the distances between where a client drew the
// objects the game teleported and where they were at the tick shown, over
// the frames that show a tick within 30 of the object's teleport.
type teleportErrors struct {
	// Worst is over every such frame; Still over those in which the
	// object did not move but by the teleport (at rest before it and
	// after), where a client draws exactly the snapshots it got.
	Worst, Still float64
	// Frames counts the object frames measured, Across those between the
	// two ticks of a teleport.
	Frames, Across int
}

// resetError plays game (g, or g hiding its resets) to a client over
// 100 ms RTT and 10 % loss for d.
func resetError(t *testing.T, g *recorded, game interp.Game, d time.Duration) teleportErrors {
	t.Helper()
	cfg := interp.DefaultConfig()
	srv, err := interp.NewServer(cfg, game, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	cond := netsim.Conditions{Latency: 50 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.1}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 7, Conditions: cond}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	c, err := interp.NewClient(cfg, g.Objects(), simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Join(c); err != nil {
		t.Fatal(err)
	}
	var e teleportErrors
	var dry uint64
	for m.Elapsed() < d {
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
		view, tick, ok := c.View()
		wasDry := c.Counters().Dry != dry
		dry = c.Counters().Dry
		shown := int(tick) // between the states after ⌊tick⌋ and after ⌊tick⌋+1
		if !ok || wasDry || shown < 1 || shown >= len(g.hist) {
			continue
		}
		for _, j := range g.jumps {
			if shown < j.tick-30 || shown > j.tick+30 {
				continue
			}
			a, b := g.hist[shown-1][j.object].Position, g.hist[shown][j.object].Position
			truth, still := a.Lerp(b, tick-float64(shown)), a == b
			if shown+1 == j.tick { // the teleport: where it was until the tick
				truth, still = a, g.hist[shown-2][j.object].Position == a && g.hist[shown+1][j.object].Position == b
				e.Across++
			}
			d := view[j.object].Position.Sub(truth).Length()
			e.Frames++
			e.Worst = max(e.Worst, d)
			if still {
				e.Still = max(e.Still, d)
			}
		}
	}
	if k := c.Counters(); k.Dropped != 0 || k.Frames < 100 {
		t.Fatalf("client counters %+v", k)
	}
	return e
}

// The pyramid's minute, shortened: the player drives up to the pyramid,
// blasts it across the field, and everything comes to rest, or nearly,
// before the world restarts (341 ticks: an odd length, so restarts fall
// between snapshots).
var blastAndRest = Script{
	{Ticks: 80, Input: Input{Up: true}},
	{Ticks: 20, Input: Input{Space: true}},
	{Ticks: 241, Input: Input{}},
}

// TestInterpGameTeleports: when its script starts again the world
// restarts, and a body that leaves Bounds respawns home; both are
// reported as resets, and a client draws a teleported object where it
// was until the teleport's tick and where it landed from it, never in
// between. Objects that rest across a teleport (the restart's: the world
// is still by then) are drawn where they were to the quantization, under
// 2 mm: a zero error. The player, which starts off again at once, is off
// by the ordinary interpolation error of a body speeding up (under 1 cm);
// a cube still flying when it respawns is held at its last snapshot
// before the teleport, so off by at most what it flies in a snapshot
// interval (under 0.5 m here). Without the reset bit the client draws
// them flying across the field, metres off.
func TestInterpGameTeleports(t *testing.T) {
	for _, tc := range []struct {
		name   string
		narrow bool    // a field the blast throws cubes out of
		worst  float64 // m
	}{{"restart", false, 0.01}, {"respawn", true, 0.5}} {
		t.Run(tc.name, func(t *testing.T) {
			newGame := func() *recorded {
				g, err := NewInterpGame(Pyramid10, DefaultConfig(), blastAndRest)
				if err != nil {
					t.Fatal(err)
				}
				if tc.narrow {
					g.Bounds.Min.X, g.Bounds.Max.X, g.Bounds.Min.Z = -10, 10, -10
				}
				return &recorded{InterpGame: g}
			}
			g := newGame()
			e := resetError(t, g, g, 8*time.Second)
			t.Logf("with the reset bit: %+v around %d teleports (%d restarts, %d respawns)", e, len(g.jumps), g.Restarts, g.Respawns)
			if g.Restarts < 1 || len(g.jumps) < 20 || e.Across < 20 || e.Frames < 500 || (tc.narrow && g.Respawns < 10) {
				t.Fatalf("%d restarts, %d respawns, %d teleports, %+v", g.Restarts, g.Respawns, len(g.jumps), e)
			}
			if e.Still > 0.002 || e.Worst > tc.worst {
				t.Errorf("a teleported object drawn up to %.4f m from where it was (%.4f m resting), want at most %v (0.002)", e.Worst, e.Still, tc.worst)
			}
			h := newGame()
			hidden := resetError(t, h, hiddenResets{h}, 8*time.Second)
			t.Logf("without it: %+v", hidden)
			if hidden.Worst < 5 {
				t.Errorf("without the reset bit, teleported objects drawn at most %.4f m off: did they move?", hidden.Worst)
			}
		})
	}
}
