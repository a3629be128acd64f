package physics_test

import (
	"math"
	"testing"

	"github.com/netphys/netphys/internal/benchscene"
	"github.com/netphys/netphys/physics"
)

// The benchmark scenes of internal/benchscene, stepped as tests: they
// must behave (drop, rest, stand) for their timings to mean anything.

func newScene(t testing.TB, s benchscene.Scene, cfg physics.Config) *physics.World {
	t.Helper()
	w, err := benchscene.NewWorld(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// dynamicStates returns the states of the live dynamic bodies, in slot
// order.
func dynamicStates(t testing.TB, w *physics.World) []physics.BodyState {
	t.Helper()
	var out []physics.BodyState
	for _, id := range w.Bodies(nil) {
		if w.Type(id) != physics.Dynamic {
			continue
		}
		s, err := w.State(id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestDrop900 drops the benchmark grid (scene A) and checks that every
// cube rests within 10 s, never sinks into the ground, never leaves the
// area and never moves faster than the drop allows.
func TestDrop900(t *testing.T) {
	w := newScene(t, benchscene.Grid, physics.DefaultConfig())
	topY := 0.0
	for _, s := range dynamicStates(t, w) {
		topY = max(topY, s.Position.Y)
	}
	// Free fall from the highest centre to resting height, plus 2 % for
	// the discrete integrator.
	maxSpeed := 1.02 * math.Sqrt(2*9.81*(topY-0.5))
	for step := range 10 * 60 {
		w.Step()
		for k, s := range dynamicStates(t, w) {
			if s.Position.Y < 0.5-0.01 {
				t.Fatalf("step %d: cube %d sank to %.4f m", step, k, s.Position.Y)
			}
			if math.Abs(s.Position.X) > 25 || math.Abs(s.Position.Z) > 25 || s.Position.Y > topY+0.01 {
				t.Fatalf("step %d: cube %d escaped to %v", step, k, s.Position)
			}
			if v := s.LinearVelocity.Length(); v > maxSpeed {
				t.Fatalf("step %d: cube %d moves at %.3f m/s, above the drop's %.3f", step, k, v, maxSpeed)
			}
		}
	}
	for k, s := range dynamicStates(t, w) {
		if !s.AtRest {
			t.Errorf("cube %d not at rest after 10 s", k)
		}
	}
}

// TestBenchStackStands checks scene C: the 9-high stack stands with its
// top layer within 2 cm of nominal and sleeps.
func TestBenchStackStands(t *testing.T) {
	w := newScene(t, benchscene.Stack, physics.DefaultConfig())
	for range 300 {
		w.Step()
	}
	lo, hi := benchscene.StackTopRange(w)
	if nominal := benchscene.StackTopNominal; lo < nominal-0.02 || hi > nominal+0.02 {
		t.Errorf("top layer at %.4f..%.4f m, want %.3f ± 0.02", lo, hi, nominal)
	}
	for k, s := range dynamicStates(t, w) {
		if !s.AtRest {
			t.Fatalf("cube %d not at rest after 5 s", k)
		}
	}
}

// TestQuantizedGrid900 snaps scene A's states every step through
// SetPreStep: the 900 cubes still come to rest on the ground.
func TestQuantizedGrid900(t *testing.T) {
	w := newScene(t, benchscene.Grid, physics.DefaultConfig())
	w.SetPreStep(physics.Quantize)
	for range 600 {
		w.Step()
	}
	for k, s := range dynamicStates(t, w) {
		if !s.AtRest || s.Position.Y < 0.49 {
			t.Fatalf("cube %d: %+v, want at rest on the ground", k, s)
		}
	}
}
