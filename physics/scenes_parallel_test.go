package physics_test

import (
	"fmt"
	"testing"

	"github.com/netphys/netphys/internal/benchscene"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
)

// sceneRun is what a run of runParallelScene saw: the checksum after every
// step, and the final states of the dynamic bodies.
type sceneRun struct {
	sums   []uint64
	states []physics.BodyState
}

// runParallelScene steps a benchmark scene with cfg for steps steps: a box
// is dropped onto the scene at step 40, the world is carried over into a
// fresh one by Snapshot and Restore at step steps/2, and the box is
// destroyed 30 steps later.
func runParallelScene(t *testing.T, s benchscene.Scene, cfg physics.Config, steps int) sceneRun {
	t.Helper()
	w := newScene(t, s, cfg)
	var run sceneRun
	var box physics.BodyID
	for step := range steps {
		switch step {
		case 40:
			d := physics.DefaultBodyDef()
			d.Mass = 1
			d.Position = vecmath.V3(0.3, 12, 0.2)
			var err error
			if box, err = w.CreateBody(d); err != nil {
				t.Fatal(err)
			}
		case steps / 2:
			var snap physics.Snapshot
			w.Snapshot(&snap)
			fresh, err := physics.NewWorld(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := fresh.Restore(&snap); err != nil {
				t.Fatal(err)
			}
			w = fresh
		case steps/2 + 30:
			if err := w.DestroyBody(box); err != nil {
				t.Fatal(err)
			}
		}
		w.Step()
		run.sums = append(run.sums, w.Checksum())
	}
	run.states = dynamicStates(t, w)
	return run
}

// TestParallelScenesAgree steps scenes A, B and C, sleeping on and off,
// with 1, 2, 3, 4 and 8 workers: every step's checksum and the final
// state of every body must be the same bits.
func TestParallelScenesAgree(t *testing.T) {
	for _, s := range benchscene.All {
		for _, sleep := range []bool{true, false} {
			cfg := physics.DefaultConfig()
			steps := 240 // long enough for the scenes to fall asleep
			if !sleep {
				cfg.SleepFrames, steps = 0, 120
			}
			t.Run(fmt.Sprintf("%s/sleep=%v", s, sleep), func(t *testing.T) {
				cfg.Workers = 1
				want := runParallelScene(t, s, cfg, steps)
				for _, n := range []int{2, 3, 4, 8} {
					cfg.Workers = n
					got := runParallelScene(t, s, cfg, steps)
					for i := range want.sums {
						if got.sums[i] != want.sums[i] {
							t.Fatalf("%d workers, step %d: checksum %016x, 1 worker %016x", n, i+1, got.sums[i], want.sums[i])
						}
					}
					if len(got.states) != len(want.states) {
						t.Fatalf("%d workers: %d bodies, 1 worker %d", n, len(got.states), len(want.states))
					}
					for k := range want.states {
						if got.states[k] != want.states[k] {
							t.Fatalf("%d workers: body %d %+v, 1 worker %+v", n, k, got.states[k], want.states[k])
						}
					}
				}
			})
		}
	}
}
