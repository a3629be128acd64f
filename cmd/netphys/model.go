package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport"
)

// serveOptions are serve's flags for a network model.
type serveOptions struct {
	listen, httpAddr, metricsAddr, record string
	report                                time.Duration
	verbose                               bool
	browser                               *browserFlags // nil: no browser players
	matchArgs                             string        // the match flags given, for the browser's page
}

// serveModel is `netphys serve --model M` for a network model: the
// model's server side on the netcode server cfg describes.
func serveModel(ctx context.Context, out io.Writer, models *match.Flags, cfg transport.ServerConfig, o serveOptions, listened ...func(*transport.Server) (func(), error)) error {
	m, sides, setup, err := resolveModel(models)
	if err != nil {
		return err
	}
	if o.record != "" {
		if !m.Records {
			return fmt.Errorf("--record: model %s does not record matches", m.Name)
		}
		if fi, err := os.Stat(o.record); err != nil || !fi.IsDir() {
			return fmt.Errorf("--record %s: want an existing directory to write the replays in", o.record)
		}
		setup.Record = o.record
	}
	ua, err := net.ResolveUDPAddr("udp", o.listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	conn, err := net.ListenUDP("udp", ua)
	if err != nil {
		return err
	}
	var pc transport.PacketConn = conn
	if o.browser != nil {
		var stop func()
		if pc, stop, err = o.browser.start(ctx, conn, cfg.Netcode, o.matchArgs, func(page string) { fmt.Fprintf(out, "netphys serve: a browser tab plays at %s\n", page) }, out); err != nil {
			conn.Close()
			return err
		}
		defer stop()
	}
	sc := match.ServeConfig{Model: m, Sides: sides, Setup: setup,
		Conn: pc, Server: udpdrive.ServerConfig{Transport: cfg}, Report: o.report, Status: out, Verbose: o.verbose}
	sc.Refusals = &match.RefusalTally{}
	// The lifecycle's hooks take the netcode server; the metrics also
	// read the driver's refusals.
	var onListen []func(*udpdrive.Server) (func(), error)
	for _, fn := range listened {
		onListen = append(onListen, func(srv *udpdrive.Server) (func(), error) { return fn(srv.Transport()) })
	}
	if o.metricsAddr != "" {
		onListen = append(onListen, func(srv *udpdrive.Server) (func(), error) {
			return startMetrics(o.metricsAddr, srv.Transport(), refusalCollector(srv, sc.Refusals))
		})
	}
	if len(onListen) > 0 {
		sc.Listening = chainListening(onListen)
	}
	if o.httpAddr != "" {
		v, url, stop, err := startViewer(o.httpAddr)
		if err != nil {
			pc.Close()
			return err
		}
		defer stop()
		sc.Viewer = v
		slog.Info("viewer", "url", url)
	}
	slog.Info("serving", "model", m.Name, "players", models.Players(), "listen", conn.LocalAddr(),
		"public", cfg.Netcode.PublicAddress, "protocol_id", fmt.Sprintf("%#x", uint64(cfg.Netcode.ProtocolID)))
	s, err := match.Serve(ctx, sc)
	s.Print(out)
	return err
}

// demoModel is `netphys demo --model M` for a network model: its server
// and every player in this process, through the network simulator. cfg
// holds the demo's settings from its flags.
func demoModel(ctx context.Context, out io.Writer, models *match.Flags, cfg match.DemoConfig, headless bool, httpAddr string) error {
	m, sides, setup, err := resolveModel(models)
	if err != nil {
		return err
	}
	cfg.Model, cfg.Sides, cfg.Setup = m, sides, setup
	cfg.Status, cfg.StatusEvery = out, time.Second
	if !headless {
		v, url, stop, err := startViewer(httpAddr)
		if err != nil {
			return err
		}
		defer stop()
		cfg.Viewer = v
		keys := "player 1: " + m.KeyHelp() + "; the others are bots"
		if cfg.Script {
			keys = "every player is a bot"
		}
		fmt.Fprintf(out, "netphys demo: open %s in a browser (%s)\n", url, keys)
	}
	s, err := match.Demo(ctx, cfg)
	s.Print(out)
	return err
}

// resolveModel is the model, its sides and the match setup the flags name.
func resolveModel(models *match.Flags) (*match.Model, match.Sides, match.Setup, error) {
	m, sides, err := models.Sides()
	if err != nil {
		return nil, sides, match.Setup{}, err
	}
	setup, err := models.Setup(slog.Default())
	return m, sides, setup, err
}
