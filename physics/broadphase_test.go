package physics_test

import (
	"testing"

	"github.com/netphys/netphys/internal/benchscene"
	"github.com/netphys/netphys/physics"
)

// TestBroadphaseMatchesFullQuery checks, every step of the three benchmark
// scenes with sleeping on and off, that the broadphase, which looks up only
// the bodies that left their enlarged boxes, finds the pairs a test of
// every pair finds.
func TestBroadphaseMatchesFullQuery(t *testing.T) {
	for _, s := range benchscene.All {
		for _, sleep := range []bool{true, false} {
			cfg := physics.DefaultConfig()
			if !sleep {
				cfg.SleepFrames = 0
			}
			w := newScene(t, s, cfg)
			total := 0
			for step := range 120 {
				n, err := physics.CheckBroadphase(w)
				if err != nil {
					t.Fatalf("%v sleep %v step %d: %v", s, sleep, step, err)
				}
				total += n
				w.Step()
			}
			if total == 0 {
				t.Fatalf("%v sleep %v: no pairs in any step", s, sleep)
			}
		}
	}
}
