package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/netphys/netphys/physics"
)

// bench physics: the engine's report. Each scene of 900 boxes (the
// physics.BenchScene builders, shared with the Go benchmarks) steps 600
// times at 60 Hz; the table gives the mean and worst wall-clock time per
// step, the allocations per step once warmed up, and for scene C whether
// the stack stands.

func init() {
	register(&command{
		name:    "bench physics",
		summary: "time the physics engine on the three 900-box benchmark scenes",
		setup: func(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
			steps := fs.Int("steps", 600, "steps per scene (60 Hz)")
			warmup := fs.Int("warmup", 120, "steps before allocations are counted (the pose history fills during the first Config.HistoryTicks steps)")
			noSleep := fs.Bool("nosleep", false, "disable sleeping (Config.SleepFrames = 0), to compare with Bullet without sleeping")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return fmt.Errorf("unexpected arguments %q", args)
				}
				if *steps < 1 || *warmup < 0 || *warmup >= *steps {
					return fmt.Errorf("need steps >= 1 and 0 <= warmup < steps")
				}
				cfg := physics.DefaultConfig()
				if *noSleep {
					cfg.SleepFrames = 0
				}
				return benchPhysics(ctx, os.Stdout, os.Stderr, cfg, *steps, *warmup)
			}
		},
	})
}

type sceneResult struct {
	scene         physics.BenchScene
	mean, worst   time.Duration
	allocsPerStep float64
	awakeAtEnd    int
	topLo, topHi  float64
}

func benchPhysics(ctx context.Context, stdout, progress io.Writer, cfg physics.Config, steps, warmup int) error {
	var results []sceneResult
	for _, s := range physics.BenchScenes {
		r, err := benchScene(ctx, progress, s, cfg, steps, warmup)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	sleeping, bullet := "with sleeping", map[physics.BenchScene]string{physics.BenchGrid: "0.56", physics.BenchCarpet: "0.92", physics.BenchStack: "1.30"}
	if cfg.SleepFrames == 0 {
		sleeping, bullet = "without sleeping", map[physics.BenchScene]string{physics.BenchGrid: "1.6", physics.BenchCarpet: "3.0", physics.BenchStack: "4.8"}
	}
	fmt.Fprintf(stdout, "netphys physics, 900 boxes, %d steps at 60 Hz %s, %d substeps of %d+%d passes, %s/%s, single-threaded step\n\n",
		steps, sleeping, cfg.Substeps, cfg.VelocityIterations, cfg.RelaxIterations, runtime.GOOS, runtime.GOARCH)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scene\tmean ms/step\tworst ms/step\tallocs/step\tawake at end\tBullet 3.24 mean\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.2f\t%d\t%s\t\n", r.scene, ms(r.mean), ms(r.worst), r.allocsPerStep, r.awakeAtEnd, bullet[r.scene])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		if r.scene != physics.BenchStack {
			continue
		}
		verdict := "stands"
		if r.topLo < physics.StackTopNominal-0.02 || r.topHi > physics.StackTopNominal+0.02 {
			verdict = "FAILS (top layer more than 2 cm from nominal)"
		}
		fmt.Fprintf(stdout, "\nscene C top layer: %.4f .. %.4f m, nominal %.4f m: %s\n", r.topLo, r.topHi, physics.StackTopNominal, verdict)
	}
	return nil
}

func benchScene(ctx context.Context, progress io.Writer, s physics.BenchScene, cfg physics.Config, steps, warmup int) (sceneResult, error) {
	w, err := physics.NewBenchWorld(s, cfg)
	if err != nil {
		return sceneResult{}, err
	}
	r := sceneResult{scene: s}
	runtime.GC()
	var total time.Duration
	for i := range steps {
		t0 := time.Now()
		w.Step()
		d := time.Since(t0)
		total += d
		r.worst = max(r.worst, d)
		if i%60 == 59 {
			if err := ctx.Err(); err != nil {
				return r, err
			}
			fmt.Fprintf(progress, "\rbench physics: %s %d/%d steps", s, i+1, steps)
		}
	}
	fmt.Fprintf(progress, "\r%60s\r", "")
	r.mean = total / time.Duration(steps)
	for _, id := range w.Bodies(nil) {
		if w.Type(id) == physics.Dynamic && !w.State(id).AtRest {
			r.awakeAtEnd++
		}
	}
	r.topLo, r.topHi = physics.StackTopRange(w)
	r.allocsPerStep, err = allocsPerStep(s, cfg, steps, warmup)
	return r, err
}

// allocsPerStep replays the scene without timing or progress output (which
// allocate) and counts the heap allocations of the steps after warmup.
func allocsPerStep(s physics.BenchScene, cfg physics.Config, steps, warmup int) (float64, error) {
	w, err := physics.NewBenchWorld(s, cfg)
	if err != nil {
		return 0, err
	}
	for range warmup {
		w.Step()
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range steps - warmup {
		w.Step()
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.Mallocs-m0.Mallocs) / float64(steps-warmup), nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
