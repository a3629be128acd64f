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
		start[k] = mustState(w, id).Position
	}
	worst := 0.0
	for range 20 * 60 {
		w.Step()
		for k, id := range ids {
			worst = max(worst, mustState(w, id).Position.Sub(start[k]).Length())
		}
	}
	if worst > 0.005 {
		t.Errorf("a cube moved %.4f m in 20 s, want <= 0.005", worst)
	}
	for _, id := range ids {
		if !mustState(w, id).AtRest {
			t.Errorf("%v is not at rest after 20 s: %+v", id, mustState(w, id))
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
	if y := mustState(w, top).Position.Y; math.Abs(y-19.5) > 0.05 {
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
