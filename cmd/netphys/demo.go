package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/netphys/netphys/internal/demo"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "run the cube world and a remote copy over UDP, side by side in the browser",
		setup:   setupDemo,
	})
}

func setupDemo(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	def := demo.DefaultConfig()
	layout := fs.String("layout", def.Layout.String(), "scene: cubes900, tower20 or pyramid10")
	conditions := conditionFlags(fs, def.Conditions.Latency, fmt.Sprintf("%g%%", 100*def.Conditions.Loss))
	rate := fs.Int("rate", def.SendRate, "full-state snapshots per second, 1 to 60")
	seed := fs.Uint64("seed", def.Seed, "seed of the network simulator")
	duration := fs.Duration("duration", 0, "stop after this long and print the summary (0: until Ctrl-C)")
	headless := fs.Bool("headless", false, "run without the viewer; the player follows the scripted minute of play")
	script := fs.Bool("script", false, "drive the player with the scripted minute of play even with the viewer")
	httpAddr := fs.String("http", "127.0.0.1:8080", "`address` the viewer is served on")
	autoplay := fs.Duration("autoplay", 5*time.Second, "with the viewer: after this long without a key, the scripted play drives the player until a key is pressed (0: never)")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("demo: unexpected arguments %q", args)
		}
		cfg := def
		var err error
		if cfg.Layout, err = scene.ParseLayout(*layout); err != nil {
			return err
		}
		if cfg.Conditions, err = conditions(); err != nil {
			return err
		}
		cfg.SendRate, cfg.Seed, cfg.Duration, cfg.AutoPlay = *rate, *seed, *duration, *autoplay
		// Every flag is checked before anything starts or prints.
		if err := cfg.Validate(); err != nil {
			switch {
			case errors.Is(err, demo.ErrSendRate):
				return fmt.Errorf("--rate %d: want 1 to 60 snapshots per second", *rate)
			case errors.Is(err, demo.ErrDuration):
				return fmt.Errorf("--duration %v, --autoplay %v: want 0 or more", *duration, *autoplay)
			}
			return err
		}
		out := stdoutOf(fs)
		cfg.Status = out
		if *headless || *script {
			cfg.Script = scene.PlayMinute
		}
		if !*headless {
			stop, err := serveViewer(ctx, out, *httpAddr, &cfg)
			if err != nil {
				return err
			}
			defer stop()
		}
		summary, err := demo.Run(ctx, cfg)
		if summary.Ticks > 0 {
			summary.Print(out)
		}
		return err
	}
}

// serveViewer starts the viewer's HTTP server and prints where to open it.
func serveViewer(ctx context.Context, out io.Writer, addr string, cfg *demo.Config) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("demo: viewer: %w (choose another address with --http)", err)
	}
	v := viewer.New(viewer.DefaultConfig())
	srv := &http.Server{Handler: v.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("viewer server stopped", "err", err)
		}
	}()
	fmt.Fprintf(out, "netphys demo: open http://%s/ in a browser (arrows move the player, space lifts and blasts, z pulls cubes in)\n", ln.Addr())
	cfg.Viewer = v
	return func() {
		shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
		v.Close()
	}, nil
}
