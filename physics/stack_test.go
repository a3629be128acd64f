package physics

import (
	"math"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// checkStandsStill settles the world for settle steps, then steps 20 s
// and requires that no dynamic body moves more than 5 mm and that all are
// at rest at the end.
func checkStandsStill(t *testing.T, w *World, settle int) {
	t.Helper()
	stepN(w, settle)
	ids := dynamicBodies(w)
	start := make([]vecmath.Vec3, len(ids))
	for k, id := range ids {
		start[k] = w.State(id).Position
	}
	worst := 0.0
	for range 20 * 60 {
		w.Step()
		for k, id := range ids {
			worst = max(worst, w.State(id).Position.Sub(start[k]).Length())
		}
	}
	if worst > 0.005 {
		t.Errorf("a cube moved %.4f m in 20 s, want <= 0.005", worst)
	}
	for _, id := range ids {
		if !w.State(id).AtRest {
			t.Errorf("%v is not at rest after 20 s: %+v", id, w.State(id))
		}
	}
}

func TestTowerOf20Stands(t *testing.T) {
	w := newTestWorld(t, nil, 0.6)
	var top BodyID
	for i := range 20 {
		top = addCube(t, w, vecmath.V3(0, 0.5+float64(i), 0))
	}
	checkStandsStill(t, w, 180)
	if y := w.State(top).Position.Y; math.Abs(y-19.5) > 0.05 {
		t.Errorf("top cube at %.4f m, want 19.5 ± 0.05", y)
	}
}

func TestPyramidOf10Stands(t *testing.T) {
	w := newTestWorld(t, nil, 0.6)
	for row := range 10 {
		for i := range 10 - row {
			x := float64(i) - float64(9-row)/2
			addCube(t, w, vecmath.V3(float64(x*1.0), 0.5+float64(row), 0))
		}
	}
	checkStandsStill(t, w, 180)
}

// TestDrop900 drops the benchmark grid (scene A) and checks that every
// cube rests within 10 s, never sinks into the ground, never leaves the
// area and never moves faster than the drop allows.
func TestDrop900(t *testing.T) {
	w, err := NewBenchWorld(BenchGrid, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ids := dynamicBodies(w)
	topY := 0.0
	for _, id := range ids {
		topY = max(topY, w.State(id).Position.Y)
	}
	// Free fall from the highest centre to resting height, plus 2 % for
	// the discrete integrator.
	maxSpeed := 1.02 * math.Sqrt(2*9.81*(topY-0.5))
	for step := range 10 * 60 {
		w.Step()
		for _, id := range ids {
			s := w.State(id)
			if s.Position.Y < 0.5-0.01 {
				t.Fatalf("step %d: %v sank to %.4f m", step, id, s.Position.Y)
			}
			if math.Abs(s.Position.X) > 25 || math.Abs(s.Position.Z) > 25 || s.Position.Y > topY+0.01 {
				t.Fatalf("step %d: %v escaped to %v", step, id, s.Position)
			}
			if v := s.LinearVelocity.Length(); v > maxSpeed {
				t.Fatalf("step %d: %v moves at %.3f m/s, above the drop's %.3f", step, id, v, maxSpeed)
			}
		}
	}
	for _, id := range ids {
		if !w.State(id).AtRest {
			t.Errorf("%v not at rest after 10 s", id)
		}
	}
}

// TestBenchStackStands checks scene C: the 9-high stack stands with its
// top layer within 2 cm of nominal and sleeps.
func TestBenchStackStands(t *testing.T) {
	w, err := NewBenchWorld(BenchStack, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	stepN(w, 300)
	lo, hi := StackTopRange(w)
	if lo < StackTopNominal-0.02 || hi > StackTopNominal+0.02 {
		t.Errorf("top layer at %.4f..%.4f m, want %.3f ± 0.02", lo, hi, StackTopNominal)
	}
	for _, id := range dynamicBodies(w) {
		if !w.State(id).AtRest {
			t.Fatalf("%v not at rest after 5 s", id)
		}
	}
}
