package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/netphys/netphys/internal/interpreport"
)

func init() {
	register(&command{
		name:    "bench interp",
		summary: "the snapshot-interpolation table: {10, 30, 60} pps × {linear, Hermite, Hermite + extrapolation} × three networks, the adaptive, fixed and Mirror buffers on a spiky network and drifting client clocks, in virtual time",
		setup:   setupBenchInterp,
	})
}

func setupBenchInterp(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	def := interpreport.DefaultConfig()
	seconds := fs.Float64("seconds", def.Seconds, "seconds of the scripted minute to play, from its start")
	warmup := fs.Float64("warmup", def.Warmup, "seconds before the figures count")
	seed := fs.Uint64("seed", def.Seed, "seed of the network simulator")
	profilesOnly := fs.Bool("profiles-only", false, "run only the spiky-network and drifting-clock rows")
	return func(ctx context.Context, args []string) error {
		cfg := def
		if *seconds <= 0 || *warmup < 0 || *warmup >= *seconds {
			return fmt.Errorf("--seconds %g, --warmup %g: want 0 <= warmup < seconds", *seconds, *warmup)
		}
		cfg.Seconds, cfg.Warmup, cfg.Seed = *seconds, *warmup, *seed
		if *profilesOnly {
			cfg.Rates, cfg.VelocityRates, cfg.CostClients = nil, nil, 0
		}
		res, err := interpreport.Run(cfg, func(s, total int) {
			if s%5 == 0 {
				slog.Info("bench interp", "at", fmt.Sprintf("%d of %d s", s, total))
			}
		})
		if err != nil {
			return err
		}
		interpreport.Print(os.Stdout, res)
		return nil
	}
}
