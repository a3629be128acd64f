package interp_test

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// field is a StateGame of its own: three objects gliding in straight
// lines in a world larger than the cube world's (x to 300 m, y below 0),
// quantized by spec, one at rest.
type field struct {
	spec wire.StateSpec
	tick int64
}

func (f *field) Objects() int         { return 3 }
func (f *field) Step() uint32         { f.tick++; return 0 }
func (f *field) Spec() wire.StateSpec { return f.spec }

// fieldAt returns object i's position after tick t (fractional).
func fieldAt(i int, t float64) vecmath.Vec3 {
	s := t / 60
	switch i {
	case 0:
		return vecmath.V3(float64(20*s)+100, -10, -200)
	case 1:
		return vecmath.V3(-150, float64(-0.5*s)-2, float64(3*s))
	}
	return vecmath.V3(250, 1, 250)
}

func (f *field) CaptureStates(dst []wire.BodyState) {
	for i := range dst {
		dst[i] = wire.BodyState{Position: fieldAt(i, float64(f.tick)), Rotation: vecmath.QuatIdentity, AtRest: i == 2}
		if i == 0 {
			dst[i].LinearVelocity = vecmath.V3(20, 0, 0)
		}
	}
}

// TestStateSpecGame: a game of wire.BodyState in its own spec (the
// state-sync default, and an arena's coarser one) runs through ForStates:
// nothing is clamped to the cube world's bounds, every decoded snapshot
// is the server's, and the gliding objects are drawn within the spec's
// position resolution of where they were at the tick shown.
func TestStateSpecGame(t *testing.T) {
	arena := wire.StateSpec{
		Position:        wire.Bounds{Min: vecmath.V3(-256, -16, -256), Max: vecmath.V3(256-1.0/512, 48-1.0/512, 256-1.0/512), Res: 1.0 / 512},
		OrientationBits: 11,
	}
	for name, spec := range map[string]wire.StateSpec{"default": wire.DefaultStateSpec(), "arena": arena} {
		t.Run(name, func(t *testing.T) {
			cfg, game := interp.ForStates(interp.DefaultConfig(), &field{spec: spec})
			srv, err := interp.NewServer(cfg, game, simmatch.Epoch)
			if err != nil {
				t.Fatal(err)
			}
			cond := netsim.Conditions{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05}
			m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 8, Conditions: cond}}, srv)
			if err != nil {
				t.Fatal(err)
			}
			c, err := interp.NewClient(cfg, game.Objects(), simmatch.Epoch)
			if err != nil {
				t.Fatal(err)
			}
			m.Join(c)
			worst, frames := 0.0, 0
			var dry uint64
			for m.Elapsed() < 6*time.Second {
				if err := m.Run(time.Second / 60); err != nil {
					t.Fatal(err)
				}
				view, tick, ok := c.View()
				wasDry := c.Counters().Dry != dry
				dry = c.Counters().Dry
				if !ok || wasDry || m.Elapsed() < time.Second {
					continue // drawn before the first snapshot's time while it starts
				}
				frames++
				for i := range view {
					worst = max(worst, view[i].Position.Sub(fieldAt(i, tick)).Length())
				}
				n := interp.Number(int64(tick) / 2)
				if s, d := srv.Sent(n), c.Decoded(n); s != nil && d != nil {
					for i := range s.Cubes {
						if s.Cubes[i] != d.Cubes[i] {
							t.Fatalf("object %d decoded %+v, sent %+v", i, d.Cubes[i], s.Cubes[i])
						}
					}
				}
			}
			t.Logf("%d frames, worst error %.5f m, %+v", frames, worst, srv.Counters())
			// Within the spec's resolution: the default spec's 1/4096 m is
			// finer than the codec's default 1/512.
			if srv.Counters().Clamped != 0 || frames < 300 || worst > spec.Position.Res {
				t.Errorf("clamped %d, %d frames, worst error %.5f m", srv.Counters().Clamped, frames, worst)
			}
		})
	}
	// The same game through the cube world's bounds is clamped.
	srv, err := interp.NewServer(interp.DefaultConfig(), stateAsCubes{&field{spec: arena}}, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := simmatch.New(simmatch.Config{}, srv)
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	if srv.Counters().Clamped == 0 {
		t.Error("the field fits the cube world's bounds: the test shows nothing")
	}
}

// stateAsCubes is the field as a plain Game, without its spec.
type stateAsCubes struct{ *field }

func (s stateAsCubes) Capture(dst []snapshot.Cube) {
	_, g := interp.ForStates(interp.DefaultConfig(), s.field)
	g.Capture(dst)
}

// resettingField is a field whose objects can jump.
type resettingField struct{ *field }

func (resettingField) Resets(dst []bool) {}

// TestStateGameKeepsResetter: ForStates keeps the Resetter capability,
// and adds none.
func TestStateGameKeepsResetter(t *testing.T) {
	_, g := interp.ForStates(interp.DefaultConfig(), resettingField{&field{spec: wire.DefaultStateSpec()}})
	if _, ok := g.(interp.Resetter); !ok {
		t.Error("a resetting StateGame lost its Resetter")
	}
	_, g = interp.ForStates(interp.DefaultConfig(), &field{spec: wire.DefaultStateSpec()})
	if _, ok := g.(interp.Resetter); ok {
		t.Error("a StateGame without resets became a Resetter")
	}
}
