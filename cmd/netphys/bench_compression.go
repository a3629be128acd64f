package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/netphys/netphys/internal/compression"
)

func init() {
	register(&command{
		name:    "bench compression",
		summary: "the snapshot-compression table: every stage on a scripted minute at 60 pps, 100 ms RTT, 5 % loss, and on a held-out minute",
		setup:   setupBenchCompression,
	})
}

func setupBenchCompression(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	def := compression.DefaultConfig()
	seconds := fs.Float64("seconds", float64(def.Ticks)/60, "seconds of the scripted play to run (at most 60 are scripted; the rest is idle)")
	conditions := conditionFlags(fs, def.Conditions.Latency, fmt.Sprintf("%g%%", 100*def.Conditions.Loss))
	seed := fs.Uint64("seed", def.Seed, "seed of the network simulator (of the scripted minute's run)")
	heldOut := fs.Bool("held-out", true, "also run the held-out script and seed, which no codec decision was tuned on")
	return func(ctx context.Context, args []string) error {
		cfg := def
		var err error
		if cfg.Conditions, err = conditions(); err != nil {
			return err
		}
		if *seconds <= 0 {
			return fmt.Errorf("--seconds %g: want a positive duration", *seconds)
		}
		cfg.Ticks, cfg.Seed = int(*seconds*60), *seed
		runs := []compression.Config{cfg}
		if *heldOut {
			ho := compression.HeldOutConfig()
			ho.Conditions, ho.Ticks = cfg.Conditions, cfg.Ticks
			runs = append(runs, ho)
		}
		for i, c := range runs {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			slog.Info("bench compression", "script", c.ScriptName, "seconds", c.Ticks/60, "seed", c.Seed)
			rows, err := compression.Run(c, func(tick, total int) {
				if tick%(10*60) == 0 {
					slog.Info("bench compression", "script", c.ScriptName, "at", fmt.Sprintf("%d of %d s", tick/60, total/60))
				}
			})
			if err != nil {
				return err
			}
			if i > 0 {
				fmt.Fprintln(os.Stdout)
			}
			compression.Print(os.Stdout, c, rows)
		}
		return nil
	}
}
