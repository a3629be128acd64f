package physics

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The parallel step (Config.Workers >= 1). The first parallel Step starts
// Workers-1 goroutines that wait, parked, between steps; they hold only
// the team, never the World, outside a step, and a cleanup attached to the
// World (runtime.AddCleanup) ends them once the World is unreachable, so
// a World needs no Close and leaks nothing when dropped. Rejected:
// goroutines started and joined by every Step (the first version): each
// step's exits and starts move goroutine descriptors between the
// runtime's per-P free lists, and with GOMAXPROCS >= 2 the runtime
// allocated new ones for hundreds of steps (0.15-0.44 allocations per
// step of scene C, steps 100-500).
// The calling goroutine is worker 0. The step stays a sequence of stages
// (step.go); a stage that can run in parallel is published as a job, an
// index range cut into blocks that the workers claim with an atomic
// counter, and the caller returns once every block is done: it waits for
// the blocks, not for the workers, so one that the machine has
// descheduled does not hold up the step, its share is claimed by the
// others. The sequential parts (broadphase, colouring, merges, rest
// detection) run on the caller while the others wait.
//
// Every job writes only what its items own (a body, a constraint, a
// contact, a chunk's output lists), so the result never depends on which
// worker ran which block: the stages that are order-dependent, the
// constraint passes, go colour by colour (colour.go), one job per colour.
//
// Waiting. Cores are often shared with other work, so a waiting worker spins
// only briefly, then yields with runtime.Gosched, then sleeps on a
// condition variable; whoever changes what it waits for wakes it if
// anyone sleeps. Rejected: channels per job (a send and a receive per
// worker per colour, and a goroutine switch each), and a pool owned by
// the World (it would need a Close, or leak goroutines with every World
// dropped).

// jobKind names the stage a job runs (runJob).
type jobKind uint8

const (
	jobNone jobKind = iota // between steps: nothing to do
	jobQuit                // the World is gone
	jobNarrow
	jobPrepare
	jobIntegrateVelocities
	jobWarmStart
	jobSolve
	jobRelax
	jobIntegratePositions
	jobRestitution
	jobStoreImpulses
	jobFinishBodies
)

// job is one parallel stage: items [lo, hi) in blocks of block items.
type job struct {
	kind      jobKind
	world     *World
	lo, hi    int
	block     int
	h, invH   float64 // substep and its inverse, s and 1/s
	softness  softness
	blocksEnd int64 // number of blocks
	gen       int64 // the job's number (team.gen)
}

// Spin and yield budgets of a waiting worker before it sleeps.
const (
	waitSpins  = 2000
	waitYields = 50
)

type team struct {
	workers int // including the caller
	// gen numbers the jobs; claim holds the current job's gen in its high
	// 32 bits and its next block in the low 32, so that a worker late with
	// an old job's copy cannot claim a block of the new one.
	gen     atomic.Int64
	claim   atomic.Uint64
	done    atomic.Int64 // blocks of the current job finished
	job     job          // written and copied under mu
	started bool
	running atomic.Int32 // workers started and not yet quit

	mu       sync.Mutex
	cond     sync.Cond
	sleepers atomic.Int32
}

// newTeam returns the team of a world stepped on workers goroutines.
func newTeam(workers int) *team {
	t := &team{workers: workers}
	t.cond.L = &t.mu
	return t
}

// start starts the other workers at w's first parallel step, and has them
// quit once w is unreachable.
func (t *team) start(w *World) {
	if t.started {
		return
	}
	t.started = true
	t.running.Store(int32(t.workers - 1))
	for range t.workers - 1 {
		go t.work()
	}
	runtime.AddCleanup(w, func(t *team) { t.publish(&job{kind: jobQuit}) }, t)
}

// release drops the team's reference to the World at the end of a step,
// so that parked workers do not keep it reachable. The job number stays:
// a worker that reads this job sees nothing new to do.
func (t *team) release() {
	t.mu.Lock()
	t.job = job{gen: t.job.gen}
	t.mu.Unlock()
}

// publish hands j to the other workers. The caller does not wait for
// them to take it: a worker the machine has descheduled does not hold up
// a job, the caller and the others claim its blocks.
//
// The job, its number and its claim counter change together under mu;
// gen, which the workers poll, follows after the unlock, so that a worker
// who sees it finds the lock free.
func (t *team) publish(j *job) {
	j.gen = t.gen.Load() + 1
	t.mu.Lock()
	t.job = *j
	t.done.Store(0)
	t.claim.Store(uint64(uint32(j.gen)) << 32)
	t.mu.Unlock()
	t.gen.Store(j.gen)
	t.wake()
}

// wake wakes the sleepers after a change they may wait for. Waiters
// count themselves before checking, under the lock, so either they see
// the change or this sees them.
func (t *team) wake() {
	if t.sleepers.Load() > 0 {
		t.mu.Lock()
		t.cond.Broadcast()
		t.mu.Unlock()
	}
}

// wait returns once done reports true: spinning, then yielding, then
// sleeping until a wake.
func (t *team) wait(done func() bool) {
	for range waitSpins {
		if done() {
			return
		}
	}
	for range waitYields {
		if done() {
			return
		}
		runtime.Gosched()
	}
	t.mu.Lock()
	t.sleepers.Add(1)
	for !done() {
		t.cond.Wait()
	}
	t.sleepers.Add(-1)
	t.mu.Unlock()
}

// work is the loop of workers 1..n-1, for the life of the World.
func (t *team) work() {
	var seen int64
	for {
		t.wait(func() bool { return t.gen.Load() != seen })
		var quit bool
		seen, quit = t.runCurrent()
		if quit {
			t.running.Add(-1)
			return
		}
	}
}

// runCurrent runs the blocks of the current job that are left, and returns
// its number. The copy of the job, and with it the World, lives only in
// this frame: a parked worker holds no reference to the World.
func (t *team) runCurrent() (gen int64, quit bool) {
	t.mu.Lock()
	j := t.job // maybe newer than the gen seen: it comes with its own number
	t.mu.Unlock()
	switch j.kind {
	case jobQuit:
		return j.gen, true
	case jobNone:
	default:
		j.world.claimBlocks(&j)
	}
	return j.gen, false
}

// parallel runs a job over items [lo, hi) in blocks of at least minBlock
// items (exactly j.block if set), on every worker, and returns when all
// are done. A job of one block runs on the caller alone, without waking
// anyone.
func (w *World) parallel(j job, minBlock int) {
	t := w.team
	n := j.hi - j.lo
	if n <= 0 {
		return
	}
	if j.block == 0 {
		j.block = max(minBlock, n/(4*t.workers))
	}
	j.blocksEnd = int64((n + j.block - 1) / j.block)
	if t.workers <= 1 || j.blocksEnd == 1 {
		w.runJob(&j, j.lo, j.hi)
		return
	}
	j.world = w
	t.publish(&j)
	w.claimBlocks(&j)
	t.wait(func() bool { return t.done.Load() == j.blocksEnd })
}

// claimBlocks runs blocks of j until none is left or another job has
// replaced it, and wakes the caller after the last block.
func (w *World) claimBlocks(j *job) {
	t := w.team
	for {
		c := t.claim.Load()
		b := int64(uint32(c))
		if c>>32 != uint64(uint32(j.gen)) || b >= j.blocksEnd {
			return
		}
		if !t.claim.CompareAndSwap(c, c+1) {
			continue
		}
		lo := j.lo + int(b)*j.block
		w.runJob(j, lo, min(lo+j.block, j.hi))
		if t.done.Add(1) == j.blocksEnd {
			t.wake()
		}
	}
}
