package interp_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// teleports is the orbit game with object 0 a puck that sits still and is
// re-served across the field every jumpEvery ticks (an odd number, so
// that resets fall between snapshots).
type teleports struct{ orbits }

const jumpEvery = 49

// puck returns object 0's position after tick.
func puck(tick int64) vecmath.Vec3 {
	if (tick/jumpEvery)%2 == 0 {
		return vecmath.V3(-10, 0.5, 0)
	}
	return vecmath.V3(10, 0.5, 0)
}

func (g *teleports) Capture(dst []snapshot.Cube) {
	g.orbits.Capture(dst)
	dst[0] = snapshot.Cube{Position: puck(g.tick), Rotation: vecmath.QuatIdentity}
}

func (g *teleports) Resets(dst []bool) { dst[0] = g.tick%jumpEvery == 0 }

// hidden is the same game without the Resetter capability.
type hidden struct{ g *teleports }

func (h hidden) Objects() int                { return h.g.Objects() }
func (h hidden) Step() uint32                { return h.g.Step() }
func (h hidden) Capture(dst []snapshot.Cube) { h.g.Capture(dst) }

// puckError plays the game for 20 s at 25 % loss and returns the largest
// distance, over the frames that were not dry, between where the client
// drew the puck and where it was at the tick shown.
func puckError(t *testing.T, game interp.Game, cfg interp.Config) (worst float64, srv *interp.Server) {
	t.Helper()
	srv, err := interp.NewServer(cfg, game, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	cond := netsim.Conditions{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.25}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 5, Conditions: cond}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	c, err := interp.NewClient(cfg, orbitObjects, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m.Join(c)
	var dry uint64
	frames := 0
	for m.Elapsed() < 20*time.Second {
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
		view, tick, ok := c.View()
		wasDry := c.Counters().Dry != dry
		dry = c.Counters().Dry
		if !ok || wasDry {
			continue
		}
		frames++
		tr := int64(tick) // the state after tick ⌊tick⌋
		worst = max(worst, view[0].Position.Sub(puck(tr)).Length())
	}
	if k := c.Counters(); frames < 1000 || k.Dropped != 0 {
		t.Fatalf("%d frames drawn, counters %+v, last error %v", frames, k, m.LastReceiveError)
	}
	return worst, srv
}

// TestResetIsNotInterpolated: a puck re-served across the field every
// 49 ticks is drawn where it was until the reset's tick and where it
// landed from it, with zero error, also when the packet that first
// carried the reset is lost (25 % loss), for Linear, Hermite and
// extrapolating clients; without the reset bit it is drawn sweeping
// through the field.
func TestResetIsNotInterpolated(t *testing.T) {
	for _, mode := range []struct {
		name string
		in   interp.Interpolation
		ex   bool
	}{{"linear", interp.Linear, false}, {"hermite", interp.Hermite, false}, {"hermite+extrap", interp.Hermite, true}} {
		t.Run(mode.name, func(t *testing.T) {
			cfg := interp.DefaultConfig()
			cfg.Interpolation, cfg.Extrapolate = mode.in, mode.ex
			worst, srv := puckError(t, &teleports{orbits{n: orbitObjects}}, cfg)
			t.Logf("worst puck error %.4f m, %d resets", worst, srv.Counters().Resets)
			if worst != 0 || srv.Counters().Resets < 20 {
				t.Errorf("puck drawn up to %.4f m from where it was (want 0), %d resets", worst, srv.Counters().Resets)
			}
			worst, _ = puckError(t, hidden{&teleports{orbits{n: orbitObjects}}}, cfg)
			t.Logf("without the reset bit: worst puck error %.2f m", worst)
			if worst < 5 {
				t.Errorf("without the reset bit the puck is drawn at most %.2f m off: is it interpolated at all?", worst)
			}
		})
	}
}

// TestResetSection: the section round-trips, and entries out of order,
// out of range or past the objects are errors.
func TestResetSection(t *testing.T) {
	in := interp.ResetSection{Resets: []interp.Reset{{Object: 0, Age: 3}, {Object: 4, Age: 0}, {Object: 5, Age: 127}}}
	buf := make([]byte, 64)
	w := wire.NewWriter(buf)
	if err := in.Serialize(w, 6, 127); err != nil {
		t.Fatal(err)
	}
	var out interp.ResetSection
	if err := out.Serialize(wire.NewReader(w.Bytes()), 6, 127); err != nil {
		t.Fatal(err)
	}
	if len(out.Resets) != 3 || out.Resets[0] != in.Resets[0] || out.Resets[1] != in.Resets[1] || out.Resets[2] != in.Resets[2] {
		t.Fatalf("read %+v, wrote %+v", out.Resets, in.Resets)
	}
	for _, bad := range [][]interp.Reset{
		nil,                        // a section has at least one entry
		{{Object: 3}, {Object: 3}}, // not ascending
		{{Object: 6}},              // past the objects
		{{Object: 1, Age: 128}},    // older than maxAge
		{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {5, 1}}, // more entries than objects
	} {
		s := interp.ResetSection{Resets: bad}
		if err := s.Serialize(wire.NewWriter(make([]byte, 64)), 6, 127); err == nil {
			t.Errorf("wrote %+v", bad)
		}
	}
	// Cut short at every byte: an error each time.
	for n := range len(w.Bytes()) {
		var s interp.ResetSection
		if err := s.Serialize(wire.NewReader(w.Bytes()[:n]), 6, 127); err == nil {
			t.Errorf("read a section cut to %d bytes", n)
		}
	}
}

// TestResetAcrossLostPackets: the encoder carries a reset in every packet
// after the receiver's baseline, so a receiver that lost the first packet
// with it still knows it.
func TestResetAcrossLostPackets(t *testing.T) {
	cfg := interp.DefaultConfig()
	enc, err := interp.NewEncoder(cfg.Codec, 2, cfg.Reliable.MaxPacketSize)
	if err != nil {
		t.Fatal(err)
	}
	r, err := interp.NewReceiver(cfg.Codec, 2, orbitObjects, cfg.Reliable.MaxPacketSize)
	if err != nil {
		t.Fatal(err)
	}
	var b interp.Baselines
	snap := snapshot.Snapshot{Cubes: make([]snapshot.Cube, orbitObjects)}
	buf := make([]byte, 4096)
	for n := interp.Number(1); n <= 6; n++ {
		orbitState(orbitObjects, float64(2*n), snap.Cubes)
		if n == 3 {
			enc.Reset(2, 5) // between snapshots 2 (tick 4) and 3 (tick 6)
		}
		if err := enc.Begin(n, &snap); err != nil {
			t.Fatal(err)
		}
		pkt, err := enc.Encode(&b, buf)
		if err != nil {
			t.Fatal(err)
		}
		b.Sent(reliableSeq(n), n)
		if n == 3 || n == 4 {
			continue // lost: 5 is coded against 2, the newest acked
		}
		if _, _, err := r.Decode(bytes.Clone(pkt)); err != nil {
			t.Fatal(err)
		}
		b.Acked(reliableSeq(n))
	}
	for n, want := range map[interp.Number]int64{2: 0, 5: 5, 6: 5} {
		got := r.Resets(n)
		if want == 0 {
			if len(got) != 0 {
				t.Errorf("snapshot %d: resets %v, want none", n, got)
			}
			continue
		}
		if len(got) != orbitObjects || got[2] != want || got[1] >= 0 {
			t.Errorf("snapshot %d: resets %v, want object 2 at tick %d", n, got, want)
		}
	}
}

func reliableSeq(n interp.Number) reliable.Sequence { return reliable.Sequence(n) }
