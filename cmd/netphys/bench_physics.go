package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/netphys/netphys/internal/benchscene"
	"github.com/netphys/netphys/internal/cpuclock"
	"github.com/netphys/netphys/physics"
)

// bench physics: the engine's report. Each scene of 900 boxes
// (internal/benchscene, shared with the Go benchmarks) steps 600 times at
// 60 Hz, three times over, and each step counts with its least time of the
// three runs (a shared machine adds milliseconds at random to single
// steps, rarely to the same step of every run, and the runs of a scene are
// spread over the whole bench); the table gives the mean, 99th percentile and worst wall-clock
// time per step, the worst thread CPU time per step (which a busy machine
// does not inflate by preempting the stepping thread), the first step,
// the allocations per step once warmed up, the time of a Snapshot and of a
// Restore of the world at the end, and for scene C whether the stack
// stands. When the Bullet harness (bench/bullet) is built, Bullet steps
// the same scene in the same run, interleaved with netphys block by block
// so that both see the same machine load, and the table adds its figures
// and the ratio.

func init() {
	register(&command{
		name:    "bench physics",
		summary: "time the physics engine on the three 900-box scenes, beside Bullet when its harness is built",
		setup: func(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
			o := benchOptions{}
			fs.IntVar(&o.steps, "steps", 600, "steps per scene (60 Hz)")
			fs.IntVar(&o.warmup, "warmup", 120, "steps before allocations are counted (the pose history fills during the first Config.HistoryTicks steps)")
			fs.IntVar(&o.block, "block", 60, "steps per block: netphys and Bullet alternate blocks of this many steps")
			fs.IntVar(&o.repeat, "repeat", 3, "runs of each scene; every step's time is its least over the runs, which filters out the moments a busy machine took the CPU away")
			workers := fs.Int("workers", 0, "physics.Config.Workers: 0 the sequential step, n >= 1 the parallel step on n goroutines (colour order: other results than 0)")
			noSleep := fs.Bool("nosleep", false, "disable sleeping (Config.SleepFrames = 0, Bullet's DISABLE_DEACTIVATION): every step awake")
			fs.StringVar(&o.peer, "peer", "auto", "comparison engine: bullet (build the harness if needed, fail without it), auto (Bullet if its harness is built) or none")
			fs.StringVar(&o.bulletBin, "bullet-bin", "bench/bullet/bin/bullet-bench", "the Bullet harness binary, built by bench/bullet/build.sh")
			return func(ctx context.Context, args []string) error {
				if o.steps < 1 || o.warmup < 0 || o.warmup >= o.steps || o.block < 1 || o.repeat < 1 {
					return fmt.Errorf("need steps >= 1, 0 <= warmup < steps, block >= 1 and repeat >= 1")
				}
				o.cfg = physics.DefaultConfig()
				if *noSleep {
					o.cfg.SleepFrames = 0
				}
				o.cfg.Workers = *workers
				return benchPhysics(ctx, os.Stdout, newProgress(os.Stderr), o)
			}
		},
	})
}

type benchOptions struct {
	cfg                  physics.Config
	steps, warmup, block int
	repeat               int
	peer, bulletBin      string
}

// stepTimes are the wall-clock and thread CPU durations of every step of
// one run.
type stepTimes struct{ wall, cpu []time.Duration }

func (t *stepTimes) add(wall, cpu time.Duration) {
	t.wall = append(t.wall, wall)
	t.cpu = append(t.cpu, cpu)
}

// leastOf returns, step by step, the least time of the runs. The runs are
// the same computation (the engines are deterministic), so what one run
// took more than another is the machine's doing, not the step's.
func leastOf(runs []stepTimes) stepTimes {
	var t stepTimes
	for i := range runs[0].wall {
		wall, cpu := runs[0].wall[i], runs[0].cpu[i]
		for _, r := range runs[1:] {
			wall, cpu = min(wall, r.wall[i]), min(cpu, r.cpu[i])
		}
		t.add(wall, cpu)
	}
	return t
}

// stepStats summarises a run: mean, 99th percentile and worst wall-clock
// step, mean and worst thread CPU step (and its number, from 1), and the
// first step's thread CPU.
type stepStats struct {
	mean, p99, worst, meanCPU, worstCPU, first time.Duration
	worstAt                                    int
}

func (t stepTimes) stats() stepStats {
	if len(t.wall) == 0 {
		return stepStats{}
	}
	var total, totalCPU time.Duration
	for i, d := range t.wall {
		total += d
		totalCPU += t.cpu[i]
	}
	sorted := slices.Sorted(slices.Values(t.wall))
	worstAt := 0
	for i, d := range t.cpu {
		if d > t.cpu[worstAt] {
			worstAt = i
		}
	}
	return stepStats{
		mean:     total / time.Duration(len(t.wall)),
		p99:      sorted[(len(sorted)*99+99)/100-1],
		worst:    sorted[len(sorted)-1],
		meanCPU:  totalCPU / time.Duration(len(t.cpu)),
		worstCPU: t.cpu[worstAt],
		worstAt:  worstAt + 1,
		first:    t.cpu[0],
	}
}

type sceneResult struct {
	scene             benchscene.Scene
	netphys, bullet   stepStats
	hasBullet         bool
	allocsPerStep     float64
	snapshot, restore time.Duration
	awakeAtEnd        int
	bulletAwake       int
	topLo, topHi      float64
}

func benchPhysics(ctx context.Context, stdout io.Writer, prog *progress, o benchOptions) error {
	peer, err := startPeer(ctx, o, prog)
	if err != nil {
		return err
	}
	if peer != nil {
		defer peer.close()
	}
	results, err := benchScenes(ctx, prog, benchscene.All, o, peer)
	if err != nil {
		return err
	}
	prog.done()
	printPhysics(stdout, o, results, peer != nil)
	return nil
}

func printPhysics(stdout io.Writer, o benchOptions, results []sceneResult, withBullet bool) {
	sleeping := "with sleeping"
	if o.cfg.SleepFrames == 0 {
		sleeping = "without sleeping"
	}
	mode := "single-threaded step"
	if o.cfg.Workers > 0 {
		mode = fmt.Sprintf("parallel step on %d workers, GOMAXPROCS %d (cpu columns: the calling worker's thread only; read the wall columns)", o.cfg.Workers, runtime.GOMAXPROCS(0))
	}
	fmt.Fprintf(stdout, "netphys physics, 900 boxes, %d steps at 60 Hz %s, %d substeps of %d+%d passes, %s/%s, %s\n",
		o.steps, sleeping, o.cfg.Substeps, o.cfg.VelocityIterations, o.cfg.RelaxIterations, runtime.GOOS, runtime.GOARCH, mode)
	if withBullet {
		fmt.Fprintf(stdout, "Bullet 3.24 (bench/bullet) in the same run, alternating blocks of %d steps\n", o.block)
	}
	fmt.Fprintf(stdout, "\nms per step, each step's least over %d runs: wall clock, and cpu, the stepping thread's CPU time\n", o.repeat)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "scene\tmean\tp99\tworst\tmean cpu\tworst cpu\tat step\tfirst cpu\tworst/mean cpu\tallocs/step\tsnapshot µs\trestore µs\tawake at end\t"
	if withBullet {
		head += "Bullet mean\tp99\tworst\tmean cpu\tworst cpu\tawake at end\tBullet/netphys mean\tcpu\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range results {
		n := r.netphys
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%.3f\t%.1f\t%.2f\t%.1f\t%.1f\t%d\t", r.scene, ms(n.mean), ms(n.p99), ms(n.worst),
			ms(n.meanCPU), ms(n.worstCPU), n.worstAt, ms(n.first), ratio(n.worstCPU, n.meanCPU), r.allocsPerStep, us(r.snapshot), us(r.restore), r.awakeAtEnd)
		if withBullet {
			b := r.bullet
			fmt.Fprintf(tw, "%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%.2f\t%.2f\t", ms(b.mean), ms(b.p99), ms(b.worst), ms(b.meanCPU), ms(b.worstCPU),
				r.bulletAwake, ratio(b.mean, n.mean), ratio(b.meanCPU, n.meanCPU))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, r := range results {
		if r.scene != benchscene.Stack {
			continue
		}
		verdict, nominal := "stands", benchscene.StackTopNominal
		if r.topLo < nominal-0.02 || r.topHi > nominal+0.02 {
			verdict = "FAILS (top layer more than 2 cm from nominal)"
		}
		fmt.Fprintf(stdout, "\nscene C top layer: %.4f .. %.4f m, nominal %.4f m: %s\n", r.topLo, r.topHi, nominal, verdict)
	}
}

// benchScenes runs each scene o.repeat times, round after round (A, B, C,
// then A, B, C again), so that the runs of one scene lie seconds apart and
// a moment when the machine is busy rarely slows the same step of every
// run: the short sleeping runs, back to back, took it three times.
func benchScenes(ctx context.Context, prog *progress, scenes []benchscene.Scene, o benchOptions, peer *bulletPeer) ([]sceneResult, error) {
	results := make([]sceneResult, len(scenes))
	worlds := make([]*physics.World, len(scenes))
	mine, theirs := make([][]stepTimes, len(scenes)), make([][]stepTimes, len(scenes))
	for i := range scenes {
		mine[i], theirs[i] = make([]stepTimes, o.repeat), make([]stepTimes, o.repeat)
	}
	for rep := range o.repeat {
		for i, s := range scenes {
			w, err := benchscene.NewWorld(s, o.cfg)
			if err != nil {
				return nil, err
			}
			if peer != nil {
				if err := peer.load(w, o.cfg.SleepFrames != 0); err != nil {
					return nil, err
				}
			}
			if err := runInterleaved(ctx, prog, w, peer, o, &mine[i][rep], &theirs[i][rep]); err != nil {
				return nil, err
			}
			if peer != nil {
				if results[i].bulletAwake, err = peer.awake(); err != nil {
					return nil, err
				}
			}
			worlds[i] = w
			prog.report("bench physics: %s run %d/%d done", s, rep+1, o.repeat)
		}
	}
	for i, s := range scenes {
		r := &results[i]
		r.scene, r.hasBullet = s, peer != nil
		r.netphys = leastOf(mine[i]).stats()
		if peer != nil {
			r.bullet = leastOf(theirs[i]).stats()
		}
		w := worlds[i]
		for _, id := range w.Bodies(nil) {
			if st, err := w.State(id); err == nil && w.Type(id) == physics.Dynamic && !st.AtRest {
				r.awakeAtEnd++
			}
		}
		r.topLo, r.topHi = benchscene.StackTopRange(w)
		var err error
		if r.snapshot, r.restore, err = snapshotTimes(w); err != nil {
			return nil, err
		}
		if r.allocsPerStep, err = allocsPerStep(s, o); err != nil {
			return nil, err
		}
	}
	return results, nil
}

// runInterleaved steps w and the peer's copy of the scene, o.block steps
// each in turn, timing every step.
func runInterleaved(ctx context.Context, prog *progress, w *physics.World, peer *bulletPeer, o benchOptions, mine, theirs *stepTimes) error {
	runtime.GC()
	runtime.LockOSThread() // the cpu columns read this thread's clock
	defer runtime.UnlockOSThread()
	for done := 0; done < o.steps; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(o.block, o.steps-done)
		for range k {
			t0, c0 := time.Now(), cpuclock.Now()
			w.Step()
			c1, d := cpuclock.Now(), time.Since(t0)
			mine.add(d, c1-c0)
		}
		if peer != nil {
			if err := peer.run(k, theirs); err != nil {
				return err
			}
		}
		done += k
	}
	return nil
}

// snapshotTimes returns the time of a Snapshot and of a Restore of w, once
// the snapshot's buffers have grown: the least mean of five batches of 20,
// like the steps' least over runs, since a busy machine can double one
// batch.
func snapshotTimes(w *physics.World) (snap, restore time.Duration, err error) {
	const batches, n = 5, 20
	var s physics.Snapshot
	w.Snapshot(&s)
	snap, restore = time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for range batches {
		t0 := time.Now()
		for range n {
			w.Snapshot(&s)
		}
		snap = min(snap, time.Since(t0)/n)
		t0 = time.Now()
		for range n {
			if err := w.Restore(&s); err != nil {
				return 0, 0, err
			}
		}
		restore = min(restore, time.Since(t0)/n)
	}
	return snap, restore, nil
}

// allocsPerStep replays the scene without timing or progress output (which
// allocate) and counts the heap allocations of the steps after warmup.
func allocsPerStep(s benchscene.Scene, o benchOptions) (float64, error) {
	w, err := benchscene.NewWorld(s, o.cfg)
	if err != nil {
		return 0, err
	}
	for range o.warmup {
		w.Step()
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range o.steps - o.warmup {
		w.Step()
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.Mallocs-m0.Mallocs) / float64(o.steps-o.warmup), nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// progress writes one-line progress reports to a terminal, rewriting the
// line with carriage returns; to anything else (a file, a pipe, a CI log)
// it writes plain lines, at most one per report call.
type progress struct {
	w    io.Writer
	tty  bool
	open bool
}

func newProgress(f *os.File) *progress {
	st, err := f.Stat()
	return &progress{w: f, tty: err == nil && st.Mode()&os.ModeCharDevice != 0}
}

func (p *progress) report(format string, args ...any) {
	if p.tty {
		fmt.Fprintf(p.w, "\r"+format+"\033[K", args...)
		p.open = true
		return
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

// done clears the progress line on a terminal.
func (p *progress) done() {
	if p.open {
		fmt.Fprint(p.w, "\r\033[K")
		p.open = false
	}
}
