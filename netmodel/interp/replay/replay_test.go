package replay_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/interp/replay"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire/snapshot"
)

// orbit is a tiny game: objects circling at their own speeds, object 0
// teleported back to the start every 100 ticks (a reset).
type orbit struct {
	n, tick int
}

func (g *orbit) Objects() int { return g.n }
func (g *orbit) Step() uint32 { g.tick++; return 0 }

func (g *orbit) Capture(dst []snapshot.Cube) {
	for i := range dst {
		t := float64(g.tick%100) / 60
		if i > 0 {
			t = float64(g.tick) / 60
		}
		s, c := vecmath.SinCos(t * float64(i+1) / 4)
		dst[i] = snapshot.Cube{
			Position:    vecmath.V3(10*s+float64(i), 2+float64(i%3), 10*c),
			Rotation:    vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), t),
			Interacting: i%2 == 0,
		}
	}
}

func (g *orbit) Resets(dst []bool) { dst[0] = g.tick%100 == 0 }

// record runs an interp server of the orbit game for d with a recorder
// wrapped around the game, and returns the file and the server (whose
// history has the snapshots as clients decode them).
func record(t testing.TB, objects int, d time.Duration) ([]byte, *interp.Server) {
	t.Helper()
	cfg := interp.DefaultConfig()
	var buf bytes.Buffer
	rec, err := replay.NewRecorder(&buf, replay.NewHeader(cfg, objects, "interp", "orbit", "test", "server"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1000, 0)
	srv, err := interp.NewServer(cfg, rec.Wrap(&orbit{n: objects}), start)
	if err != nil {
		t.Fatal(err)
	}
	for now := start; now.Sub(start) < d; now = now.Add(cfg.TickInterval) {
		if err := srv.Update(now.Add(cfg.TickInterval), func(int, []byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if rec.Bytes() != int64(buf.Len()) || rec.Snapshots() == 0 {
		t.Fatalf("recorder says %d bytes, %d snapshots; wrote %d", rec.Bytes(), rec.Snapshots(), buf.Len())
	}
	return buf.Bytes(), srv
}

// TestRecordAndPlay: a 25-second recording reads back whole, verifies,
// plays every snapshot as the server's clients decode it, draws between
// snapshots, and seeks to the same views as a straight play.
func TestRecordAndPlay(t *testing.T) {
	file, srv := record(t, 20, 25*time.Second)
	rep, err := replay.Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	// 30 snapshots a second, the first after tick 2; a keyframe every 10 s.
	if len(rep.Snapshots) != 25*30 || rep.Keyframes() != 3 || rep.Ticks() != 1500 || rep.Size != int64(len(file)) {
		t.Fatalf("%d snapshots, %d keyframes, %d ticks, %d bytes of %d", len(rep.Snapshots), rep.Keyframes(), rep.Ticks(), rep.Size, len(file))
	}
	if n, err := replay.Verify(rep); err != nil || n != len(rep.Snapshots) {
		t.Fatalf("verify: %d checked, %v", n, err)
	}
	p, err := replay.NewPlayback(rep)
	if err != nil {
		t.Fatal(err)
	}
	straight := map[int64][]snapshot.Cube{p.Tick(): append([]snapshot.Cube(nil), p.View()...)}
	matched := 0
	for !p.Done() {
		if err := p.Step(); err != nil {
			t.Fatal(err)
		}
		straight[p.Tick()] = append([]snapshot.Cube(nil), p.View()...)
		// The last snapshots are still in the server's history: a
		// snapshot tick shows exactly what the clients decoded.
		if n := interp.Number(p.Tick() / 2); p.Tick()%2 == 0 {
			if sent := srv.Sent(n); sent != nil {
				matched++
				for i, c := range p.View() {
					if c != sent.Cubes[i] {
						t.Fatalf("tick %d object %d: %+v, clients decoded %+v", p.Tick(), i, c, sent.Cubes[i])
					}
				}
			}
		}
	}
	if matched < 60 {
		t.Fatalf("%d snapshots compared with the server's, want its history's", matched)
	}
	// Between snapshots 100 and 101 (ticks 200, 202), object 1 is
	// halfway.
	v := straight[201][1]
	a, b := straight[200][1], straight[202][1]
	if want := a.Position.Lerp(b.Position, 0.5); v.Position.Sub(want).Length() > 1e-9 {
		t.Fatalf("tick 201: %v, want %v", v.Position, want)
	}
	// Object 0 reset at tick 300: tick 299 (between 298 and 300) shows it
	// where it was at 298, not on the way back.
	if straight[299][0] != straight[298][0] {
		t.Fatalf("object 0 interpolated across its reset: %v, %v", straight[298][0].Position, straight[299][0].Position)
	}
	for _, tick := range []int64{1200, 333, 1499, 2, 901, 0, 5000} {
		if err := p.SeekTick(tick); err != nil {
			t.Fatal(err)
		}
		want := straight[min(max(tick, 2), 1500)]
		for i, c := range p.View() {
			if c != want[i] {
				t.Fatalf("seek to %d: object %d %+v, straight play %+v", tick, i, c, want[i])
			}
		}
	}
	if checked, agreed, first := p.Checked(); first != nil || checked != agreed {
		t.Fatalf("checksums %d of %d: %v", agreed, checked, first)
	}
}

// TestVerifyNamesTheAlteredSnapshot: a checksum changed in the file fails
// Verify naming its snapshot.
func TestVerifyNamesTheAlteredSnapshot(t *testing.T) {
	file, _ := record(t, 4, 3*time.Second)
	rep, err := replay.Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	rep.Snapshots[40].Sum ^= 1
	_, err = replay.Verify(rep)
	if !errors.Is(err, replay.ErrChecksum) || !bytes.Contains([]byte(err.Error()), []byte("snapshot 41 ")) {
		t.Fatalf("verify: %v, want snapshot 41's checksum", err)
	}
}

// TestTruncatedAtEveryByte: every prefix reads without panic; one cut
// between blocks reads cleanly, any other wraps ErrFormat with the
// snapshots before the cut.
func TestTruncatedAtEveryByte(t *testing.T) {
	file, _ := record(t, 3, time.Second)
	full, err := replay.Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	clean := 0
	for n := range len(file) {
		rep, err := replay.Read(bytes.NewReader(file[:n]))
		if err == nil {
			clean++
		} else if !errors.Is(err, replay.ErrFormat) {
			t.Fatalf("prefix %d: %v", n, err)
		}
		if rep != nil && len(rep.Snapshots) > len(full.Snapshots) {
			t.Fatalf("prefix %d reads %d snapshots", n, len(rep.Snapshots))
		}
	}
	// After the header and after each snapshot but the last.
	if clean != 1+len(full.Snapshots)-1 {
		t.Fatalf("%d clean prefixes, want %d", clean, len(full.Snapshots))
	}
}

// TestRefusesWhatItCannotRead: another magic, another version, an
// impossible header, snapshots out of order or before their keyframe.
func TestRefusesWhatItCannotRead(t *testing.T) {
	file, _ := record(t, 3, time.Second)
	for name, b := range map[string][]byte{
		"lockstep":  []byte("NPRP\x01rest"),
		"version":   append([]byte("NPSR\x02"), file[5:]...),
		"empty":     nil,
		"no header": []byte("NPSR\x01"),
	} {
		if _, err := replay.Read(bytes.NewReader(b)); !errors.Is(err, replay.ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
	cfg := interp.DefaultConfig()
	h := replay.NewHeader(cfg, 3, "interp", "orbit", "", "")
	h.Codec.TickRate = 30
	if _, err := replay.NewRecorder(&bytes.Buffer{}, h); !errors.Is(err, replay.ErrHeader) {
		t.Errorf("a codec at another rate: %v", err)
	}
	h = replay.NewHeader(cfg, 3, "interp", "orbit", "", "")
	rec, err := replay.NewRecorder(&bytes.Buffer{}, h)
	if err != nil {
		t.Fatal(err)
	}
	s := &snapshot.Snapshot{Cubes: make([]snapshot.Cube, 3)}
	for i := range s.Cubes {
		s.Cubes[i].Rotation = vecmath.QuatIdentity
	}
	if err := rec.Record(5, s); err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(5, s); !errors.Is(err, replay.ErrRecord) {
		t.Errorf("snapshot 5 twice: %v", err)
	}
}
