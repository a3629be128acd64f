package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/netphys/netphys/internal/cubegames"
	"github.com/netphys/netphys/internal/demo"
	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/scene"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "run a network model's server and players (--model) over UDP in one process, side by side in the browser",
		setup:   setupDemo,
	})
}

func setupDemo(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	def := demo.DefaultConfig()
	conditions := conditionFlags(fs, def.Conditions.Latency, fmt.Sprintf("%g%%", 100*def.Conditions.Loss))
	rate := fs.Int("rate", def.SendRate, "full-state snapshots per second, 1 to 60")
	seed := fs.Uint64("seed", def.Seed, "seed of the network simulator")
	duration := fs.Duration("duration", 0, "stop after this long and print the summary (0: until Ctrl-C)")
	headless := fs.Bool("headless", false, "run without the viewer; the player follows the scripted minute of play")
	script := fs.Bool("script", false, "drive the player with the scripted minute of play even with the viewer")
	httpAddr := fs.String("http", "127.0.0.1:8080", "`address` the viewer is served on")
	verbose := fs.Bool("verbose", false, "network models: the status line shows every player's figures (default: their range)")
	autoplay := fs.Duration("autoplay", 5*time.Second, "with the viewer: after this long without a key, the scripted play drives the player until a key is pressed (0: never)")
	layout := cubegames.DeclareLayout(fs, scene.Tower20, def.Layout, "state")
	models := match.DeclareFlags(fs, match.Defaults{Model: "state", Players: 4, Builtin: []string{"state"}})
	browser := declareBrowserPlayer(fs)
	return func(ctx context.Context, args []string) error {
		// Every flag is checked before anything starts or prints.
		if *duration < 0 {
			return fmt.Errorf("--duration %v: want 0 (until Ctrl-C) or more", *duration)
		}
		if *autoplay < 0 {
			return fmt.Errorf("--autoplay %v: want 0 (never) or more", *autoplay)
		}
		if *browser.on || isSet(fs, "webtransport") || isSet(fs, "ticks") {
			return browser.run(ctx, fs, stdoutOf(fs), models, layout, *httpAddr, *duration)
		}
		if models.Model() != "state" {
			cond, err := conditions()
			if err != nil {
				return err
			}
			return demoModel(ctx, stdoutOf(fs), models, match.DemoConfig{Conditions: cond, Seed: *seed, Verbose: *verbose,
				Script: *script, AutoPlay: *autoplay, Duration: *duration}, *headless, *httpAddr)
		}
		if isSet(fs, "players") {
			return fmt.Errorf("--players %d: the plain state demo (--model state) runs one player against the server; give --model lockstep, interp, predict or statesync for more", models.Players())
		}
		cfg := def
		var err error
		if cfg.Layout, err = layout.Builtin(); err != nil {
			return err
		}
		if cfg.Conditions, err = conditions(); err != nil {
			return err
		}
		cfg.SendRate, cfg.Seed, cfg.Duration, cfg.AutoPlay = *rate, *seed, *duration, *autoplay
		if err := cfg.Validate(); err != nil {
			if errors.Is(err, demo.ErrSendRate) {
				return fmt.Errorf("--rate %d: want 1 to 60 snapshots per second", *rate)
			}
			return err
		}
		out := stdoutOf(fs)
		cfg.Status = out
		if *headless || *script {
			cfg.Script = scene.PlayMinute
		}
		if !*headless {
			v, url, stop, err := startViewer(*httpAddr)
			if err != nil {
				return err
			}
			defer stop()
			cfg.Viewer = v
			fmt.Fprintf(out, "netphys demo: open %s in a browser (arrows move the player, space lifts and blasts, z pulls cubes in)\n", url)
		}
		summary, err := demo.Run(ctx, cfg)
		if summary.Ticks > 0 {
			summary.Print(out)
		}
		return err
	}
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
