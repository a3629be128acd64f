package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/netphys/netphys/internal/compression"
)

func init() {
	register(&command{
		name:    "bench compression",
		summary: "the snapshot-compression table: every stage on a scripted minute at 60 pps, 100 ms RTT, 5 % loss",
		setup:   setupBenchCompression,
	})
}

func setupBenchCompression(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	def := compression.DefaultConfig()
	seconds := fs.Float64("seconds", float64(def.Ticks)/60, "seconds of the scripted play to run (at most 60 are scripted; the rest is idle)")
	conditions := conditionFlags(fs, def.Conditions.Latency, fmt.Sprintf("%g%%", 100*def.Conditions.Loss))
	seed := fs.Uint64("seed", def.Seed, "seed of the network simulator")
	return func(ctx context.Context, args []string) error {
		cfg := def
		var err error
		if cfg.Conditions, err = conditions(); err != nil {
			return err
		}
		cfg.Ticks, cfg.Seed = int(*seconds*60), *seed
		rows, err := compression.Run(cfg, func(tick, total int) {
			fmt.Fprintf(os.Stderr, "\rbench compression: %3d of %d s", tick/60, total/60)
		})
		fmt.Fprintln(os.Stderr)
		if err != nil {
			return err
		}
		compression.Print(os.Stdout, cfg, rows)
		return nil
	}
}
