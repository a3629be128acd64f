package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/tokenservice"
)

// roomsFlags are serve's flags for --rooms.
type roomsFlags struct {
	on          bool
	maxDuration time.Duration
	admin       string
}

func declareRooms(fs *flag.FlagSet) *roomsFlags {
	f := &roomsFlags{}
	fs.BoolVar(&f.on, "rooms", false, "host many matches at once, each named by its players' tokens (netphys token --match ...); tokens naming none join the --model match (refused with --model echo)")
	fs.DurationVar(&f.maxDuration, "max-duration", 0, "with --rooms: end a match this long after its first player arrived (0: never)")
	fs.StringVar(&f.admin, "admin", "", "with --rooms: serve the backend's API on this TCP `address` (GET /matches, DELETE /matches/ID), unauthenticated: a private address")
	return f
}

// check refuses the rooms' flags without --rooms.
func (f *roomsFlags) check() error {
	if !f.on && (f.admin != "" || f.maxDuration != 0) {
		return errors.New("--admin and --max-duration are serve --rooms' flags: give --rooms")
	}
	return nil
}

// serveRooms is `netphys serve --rooms`: many matches of any model at
// once on one UDP port, each named by its players' tokens
// (netphys token --match ...). Tokens that name no match join the
// --model match, one at a time, unless --model is echo (the default):
// then they are refused.
func serveRooms(ctx context.Context, out io.Writer, models *match.Flags, cfg transport.ServerConfig, o serveOptions, rf *roomsFlags, lc *lifecycle) error {
	if o.httpAddr != "" {
		return fmt.Errorf("--http: serve --rooms shows no viewer (which of its matches would it show?); its figures are in --metrics")
	}
	if rf.maxDuration < 0 {
		return fmt.Errorf("--max-duration %v: want 0 (none) or more", rf.maxDuration)
	}
	setup := match.Setup{Logger: slog.Default()}
	if o.record != "" {
		if fi, err := os.Stat(o.record); err != nil || !fi.IsDir() {
			return fmt.Errorf("--record %s: want an existing directory to write the replays in", o.record)
		}
		setup.Record = o.record
	}
	defaultMatch := "none: tokens must name their match"
	rc := match.RoomsConfig{Flags: models, Setup: setup, Transport: cfg, MaxDuration: rf.maxDuration, Report: o.report, Status: out,
		Draining: lc.draining.Load, Refusals: &match.RefusalTally{}, Opened: lc.roomOpened}
	if models.Model() != "echo" {
		// The flags' match is the default: check it now, not at its first token.
		m, sides, err := models.Sides()
		if err != nil {
			return err
		}
		// No world: the game's flags (--layout) choose it.
		rc.Default = &tokenservice.Match{Model: models.Model(), Players: models.Players()}
		defaultMatch = match.Agreement(m, sides, match.Setup{Players: models.Players()})
	}
	ua, err := net.ResolveUDPAddr("udp", o.listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	conn, err := net.ListenUDP("udp", ua)
	if err != nil {
		return err
	}
	rc.Conn = conn
	if o.browser != nil {
		// Browser players beside the UDP ones, on the rooms' one socket:
		// the page's tokens name no match, so its tabs join the --model match.
		var stop func()
		if rc.Conn, stop, err = o.browser.start(ctx, conn, cfg.Netcode, o.matchArgs, func(page string) { fmt.Fprintf(out, "netphys serve: a browser tab plays at %s\n", page) }, out); err != nil {
			conn.Close()
			return err
		}
		defer stop()
	}
	if rf.admin != "" {
		ln, err := net.Listen("tcp", rf.admin)
		if err != nil {
			rc.Conn.Close()
			return fmt.Errorf("--admin: %w", err)
		}
		rc.Admin = ln // ServeRooms closes it
	}
	onListen := []func(*udpdrive.Rooms) (func(), error){lc.listenedRooms}
	if o.metricsAddr != "" {
		onListen = append(onListen, func(r *udpdrive.Rooms) (func(), error) {
			return startMetrics(o.metricsAddr, r.Transport(), newRoomsCollector(r), refusalCollector(nil, rc.Refusals))
		})
	}
	rc.Listening = chainListening(onListen)
	slog.Info("serving rooms", "listen", conn.LocalAddr(), "public", cfg.Netcode.PublicAddress,
		"protocol_id", fmt.Sprintf("%#x", uint64(cfg.Netcode.ProtocolID)), "max_clients", cfg.Netcode.MaxClients, "default_match", defaultMatch)
	return match.ServeRooms(ctx, rc)
}
