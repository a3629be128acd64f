package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
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
		cfg.SendRate, cfg.Seed, cfg.Duration = *rate, *seed, *duration
		cfg.Status = os.Stdout
		if *headless || *script {
			cfg.Script = scene.PlayMinute
		}
		if !*headless {
			stop, err := serveViewer(ctx, *httpAddr, &cfg)
			if err != nil {
				return err
			}
			defer stop()
		}
		summary, err := demo.Run(ctx, cfg)
		summary.Print(os.Stdout)
		return err
	}
}

// serveViewer starts the viewer's HTTP server and prints where to open it.
func serveViewer(ctx context.Context, addr string, cfg *demo.Config) (stop func(), err error) {
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
	fmt.Printf("netphys demo: open http://%s/ in a browser (arrows move the player, space lifts and blasts, z pulls cubes in)\n", ln.Addr())
	cfg.Viewer = v
	return func() {
		shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
		v.Close()
	}, nil
}
