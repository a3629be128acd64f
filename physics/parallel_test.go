package physics

import (
	"runtime"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/golden"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

const goldenParallelPath = "testdata/golden_checksums_parallel.txt"

// parallelWorkers are the worker counts whose results must be identical.
var parallelWorkers = []int{1, 2, 3, 4, 8}

func workersConfig(n int) *Config {
	cfg := DefaultConfig()
	cfg.Workers = n
	return &cfg
}

// TestParallelScriptAgrees runs the scripted world (every entry point,
// a destroy and a create, a kinematic paddle, sleeping on) with each worker
// count: the checksums must agree step by step.
func TestParallelScriptAgrees(t *testing.T) {
	want := runScriptWith(t, workersConfig(1))
	for _, n := range parallelWorkers[1:] {
		got := runScriptWith(t, workersConfig(n))
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d workers, step %d: checksum %016x, 1 worker %016x", n, i+1, got[i], want[i])
			}
		}
	}
}

// TestParallelDiffersFromSequential documents that the parallel step is
// another simulation: same scene, other visiting order.
func TestParallelDiffersFromSequential(t *testing.T) {
	seq, par := runScript(t), runScriptWith(t, workersConfig(1))
	if seq[len(seq)-1] == par[len(par)-1] {
		t.Fatal("the parallel step ended on the sequential step's checksum: is the colour order in use?")
	}
}

// TestParallelSnapshotStepTogether restores a snapshot of the parallel
// world into a world with another worker count and steps both together.
func TestParallelSnapshotStepTogether(t *testing.T) {
	orig := newScriptedWorldWith(t, workersConfig(3))
	for range 100 {
		script(t, orig)
		orig.Step()
	}
	var snap Snapshot
	orig.Snapshot(&snap)
	other, err := NewWorld(*workersConfig(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Restore(&snap); err != nil {
		t.Fatal(err)
	}
	for step := 100; step < scriptTicks; step++ {
		script(t, orig)
		script(t, other)
		orig.Step()
		other.Step()
		if a, b := orig.Checksum(), other.Checksum(); a != b {
			t.Fatalf("step %d: checksums %016x and %016x differ", step+1, a, b)
		}
	}
}

// TestParallelNoAllocation: after warm-up the parallel step allocates
// nothing either, goroutines included.
func TestParallelNoAllocation(t *testing.T) {
	w := newScriptedWorldWith(t, workersConfig(4))
	stepN(w, 60)
	if n := testing.AllocsPerRun(50, w.Step); n != 0 {
		t.Errorf("%v allocations per step with 4 workers, want 0", n)
	}
}

// TestParallelWorkersEndWithTheWorld drops stepped worlds and waits for
// their parked workers to quit: a World needs no Close.
func TestParallelWorkersEndWithTheWorld(t *testing.T) {
	teams := make([]*team, 3)
	for i := range teams {
		w := newScriptedWorldWith(t, workersConfig(4))
		stepN(w, 5)
		teams[i] = w.team
		if n := w.team.running.Load(); n != 3 {
			t.Fatalf("world %d: %d workers running after its steps, want 3", i, n)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for i, tm := range teams {
		for tm.running.Load() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("world %d: %d workers still running 10 s after it was dropped", i, tm.running.Load())
			}
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestGoldenChecksumsParallel compares the scripted run of the parallel
// step (2 workers; every count agrees, TestParallelScriptAgrees) with the
// checksums in testdata, recorded on linux/amd64. -update rewrites it.
func TestGoldenChecksumsParallel(t *testing.T) {
	golden.Check(t, goldenParallelPath, runScriptWith(t, workersConfig(2)), *update)
}

// TestGoldenCrossArchParallel runs TestGoldenChecksumsParallel for arm64
// and amd64-v3, as TestGoldenCrossArch does for the sequential step.
func TestGoldenCrossArchParallel(t *testing.T) {
	golden.CrossArch(t, "TestGoldenChecksumsParallel")
}

// newSlabWorld builds a dynamic slab carrying 36 cubes: the slab is in
// more constraints than there are colours, so the overflow is in use.
func newSlabWorld(t *testing.T, cfg *Config) *World {
	t.Helper()
	w := newTestWorld(t, cfg, 0.6)
	slab := DefaultBodyDef()
	slab.Mass = 20
	slab.Shape = collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(4, 0.25, 4)}
	slab.Position = vecmath.V3(0, 0.26, 0)
	mustCreate(t, w, slab)
	for i := range 36 {
		// Products rounded explicitly, as in newScriptedWorld.
		x, z := float64(float64(i%6)*1.2)-3, float64(float64(i/6)*1.2)-3
		addCube(t, w, vecmath.V3(x, 1.1+float64(float64(i%3)*0.01), z))
	}
	return w
}

// TestParallelOverflowAgrees steps the slab world with each worker count:
// the constraints that fit no colour are solved on one worker after the
// colours, and the results still agree.
func TestParallelOverflowAgrees(t *testing.T) {
	run := func(n int) []uint64 {
		cfg := DefaultConfig()
		cfg.SleepFrames, cfg.Workers = 0, n
		w := newSlabWorld(t, &cfg)
		var sums []uint64
		overflow := 0
		for range 120 {
			w.Step()
			sums = append(sums, w.Checksum())
			g := &w.scratch.colouring
			overflow = max(overflow, int(g.start[maxColours+1]-g.start[maxColours]))
		}
		if overflow == 0 {
			t.Fatalf("%d workers: the overflow was never used", n)
		}
		return sums
	}
	want := run(1)
	for _, n := range parallelWorkers[1:] {
		got := run(n)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d workers, step %d: checksum %016x, 1 worker %016x", n, i+1, got[i], want[i])
			}
		}
	}
}
