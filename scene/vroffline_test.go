package scene

import (
	"math"
	"testing"
)

// TestVROfflineMatchRests plays the match on one world with every bot on
// it and stops play at 90 s, two seconds after player 3's throw hit player
// 0's tower: the tower is still falling, and the world must come to rest
// after, the same on every run.
func TestVROfflineMatchRests(t *testing.T) {
	const stop, settle = 90 * 60, 30 * 60
	run, err := PlayVROffline(DefaultVRConfig(), stop, settle)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Rested || run.RestSteps < 60 || run.RestSteps > settle {
		t.Fatalf("rested %v %d steps after play stopped: want a falling tower that rests within %d steps", run.Rested, run.RestSteps, settle)
	}
	v := run.World
	for i := range v.Objects() {
		if s := v.Object(i); !s.AtRest || s.Position.Y < 0 || s.Position.Length() > 30 {
			t.Fatalf("cube %d: %+v, want at rest on the table", i, s)
		}
	}
	// Every bot played on this one world: each stacked cubes in front of
	// it, player 3's throw felled player 0's tower, and the tall tower in
	// the middle, nobody's target, stands.
	for p := range VRPlayers {
		spot := vrForward(p).Scale(-(v.cfg.PlayerRadius - 1.5))
		if q := v.Object(v.Loose(p)[0]).Position; math.Hypot(q.X-spot.X, q.Z-spot.Z) > 0.3 {
			t.Errorf("player %d's first cube at %v, want on its stack at %v", p, q, spot)
		}
	}
	if top := v.Tower(1)[15]; v.Object(top).Position.Y > 2 {
		t.Errorf("player 0's tower stands (its top at %v)", v.Object(top).Position)
	}
	if top := v.Tower(0)[29]; v.Object(top).Position.Y < 29 {
		t.Errorf("the tall tower fell (its top at %v)", v.Object(top).Position)
	}

	again, err := PlayVROffline(DefaultVRConfig(), stop, settle)
	if err != nil {
		t.Fatal(err)
	}
	if again.RestSteps != run.RestSteps {
		t.Fatalf("rested after %d steps, then %d: not deterministic", run.RestSteps, again.RestSteps)
	}
	for i := range v.Objects() {
		if a, b := v.Object(i), again.World.Object(i); a != b {
			t.Fatalf("cube %d: %+v, then %+v: not deterministic", i, a, b)
		}
	}
}

// TestVROfflineQuietStop stops play at 42 s, when nothing is in the air:
// the world rests within a second.
func TestVROfflineQuietStop(t *testing.T) {
	run, err := PlayVROffline(DefaultVRConfig(), 42*60, 60)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Rested || run.RestSteps < 1 {
		t.Fatalf("rested %v after %d steps: want within a second", run.Rested, run.RestSteps)
	}
}
