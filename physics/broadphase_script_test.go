package physics

import "testing"

// TestBroadphaseScriptMatchesFullQuery checks the pairs of the broadphase
// against a test of every pair in each step of the scripted world (forces,
// SetState teleports and velocity writes, a destroy, a create, sleep and
// wake), then after a Restore to an earlier tick.
func TestBroadphaseScriptMatchesFullQuery(t *testing.T) {
	w := newScriptedWorld(t)
	var snap Snapshot
	check := func(when string) {
		t.Helper()
		if _, err := CheckBroadphase(w); err != nil {
			t.Fatalf("%s tick %d: %v", when, w.Tick(), err)
		}
	}
	for n := range scriptTicks {
		if n == 40 {
			w.Snapshot(&snap)
		}
		script(t, w)
		check("script")
		w.Step()
	}
	if err := w.Restore(&snap); err != nil {
		t.Fatal(err)
	}
	for range 60 {
		script(t, w)
		check("after Restore")
		w.Step()
	}
}
