package main

import (
	"flag"
	"sync"
	"testing"
	"time"
)

// The package's long tests are of two kinds. A process test runs the
// program as a server and players whose matches run in real time: its
// processes mostly wait for their frames, so several run at once. A heavy
// test keeps the CPU busy (a headless chromium tab drawing a match, a
// benchmark): it must not be starved, or a tab falls behind its session
// clock and is dropped. Both run in parallel through gate: at most
// maxProcessTests process tests at once, and while a heavy test runs or
// waits, no other heavy test and at most processesBesideHeavy process tests; a waiting heavy
// test goes before waiting process tests, so the heavy tests, the longest
// chain, run back to back with process tests beside them.
//
// A new test that starts processes and mostly waits calls processTest; one
// that keeps a core busy calls heavyTest; neither calls t.Parallel itself
// (the package runs with a high -parallel, see TestMain).
const maxProcessTests = 3

// processesBesideHeavy is how many process tests may run beside a heavy
// test: none, for a chromium tab beside a process test's server and
// players fell behind its session clock on this 2-core machine kind.
const processesBesideHeavy = 0

// defaultParallel is the -parallel the package runs with when none is
// given: more than the tests gate lets run at once, so that the tests
// waiting in the gate do not hold back the ones it would let run.
const defaultParallel = "64"

var gate = newTestGate(maxProcessTests)

// processTest runs t in parallel as a process test (see gate).
func processTest(t *testing.T) {
	t.Helper()
	t.Parallel()
	gate.enter(t, false)
}

// heavyTest runs t in parallel as a heavy test (see gate).
func heavyTest(t *testing.T) {
	t.Helper()
	t.Parallel()
	gate.enter(t, true)
}

// testGate counts the running process and heavy tests; see gate.
type testGate struct {
	mu                          sync.Mutex
	changed                     *sync.Cond
	processes, heavy, heavyWait int
	maxProcesses                int
}

func newTestGate(maxProcesses int) *testGate {
	g := &testGate{maxProcesses: maxProcesses}
	g.changed = sync.NewCond(&g.mu)
	return g
}

// enter waits until a test of the kind may run, counts it, and uncounts
// it when t ends. It logs how long t waited and ran: go test's duration
// of a parallel test counts the wait too.
func (g *testGate) enter(t *testing.T, heavy bool) {
	start := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if heavy {
		g.heavyWait++
		for g.heavy > 0 || g.processes > processesBesideHeavy {
			g.changed.Wait()
		}
		g.heavyWait--
		g.heavy++
	} else {
		for g.processes >= g.maxProcesses || (g.heavy+g.heavyWait > 0 && g.processes >= processesBesideHeavy) {
			g.changed.Wait()
		}
		g.processes++
	}
	entered := time.Now()
	t.Cleanup(func() {
		t.Logf("gate: waited %.1fs, ran %.1fs", entered.Sub(start).Seconds(), time.Since(entered).Seconds())
		g.mu.Lock()
		defer g.mu.Unlock()
		if heavy {
			g.heavy--
		} else {
			g.processes--
		}
		g.changed.Broadcast()
	})
}

// raiseParallel sets -parallel to defaultParallel unless the command line
// gave one: the gate, not -parallel, limits what runs at once.
func raiseParallel() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", defaultParallel)
	}
}
