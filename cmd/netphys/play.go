package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/viewer"
)

func init() {
	register(&command{
		name:    "play",
		summary: "join a network model's match as one player, with its own viewer page (or --bot)",
		setup:   setupPlay,
	})
}

func setupPlay(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	models := match.DeclareFlags(fs, match.Defaults{Model: "lockstep", Players: 4})
	readToken := tokenFlags(fs)
	bot := fs.Bool("bot", false, "drive the player with a bot (the model's own, or the cube world's scripted minute) instead of the page's keys")
	httpAddr := fs.String("http", "127.0.0.1:8081", "`address` the player's viewer is served on, one per play process on a machine (\"\": none, needs --bot)")
	ticks := fs.Int("ticks", 0, "end the match after this many simulation ticks, print the summary and exit (0: until Ctrl-C)")
	linger := fs.Duration("linger", 2*time.Second, "keep sending this long after the match ends, so the others get the last inputs")
	connectTimeout := fs.Duration("connect-timeout", 10*time.Second, "give up connecting after this long")
	report := fs.Duration("report", 5*time.Second, "log the figures this often (0: never)")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("play: unexpected arguments %q", args)
		}
		m, sides, err := models.Sides()
		if err != nil {
			return err
		}
		if *ticks < 0 || *linger < 0 || *connectTimeout <= 0 || *report < 0 {
			return errors.New("play: --ticks, --linger and --report must not be negative, --connect-timeout positive")
		}
		if !*bot && *httpAddr == "" {
			return errors.New("play: without --http the page's keys cannot drive the player: give --bot")
		}
		tok, err := readToken()
		if err != nil {
			return err
		}
		setup, err := models.Setup(slog.Default())
		if err != nil {
			return err
		}
		cfg := match.PlayConfig{Model: m, Sides: sides, Setup: setup, Token: tok, Bot: *bot, Ticks: *ticks, Linger: *linger, Report: *report, Client: udpdrive.DefaultClientConfig(), Spectate: models.Spectate()}
		cfg.Client.ConnectTimeout = *connectTimeout
		if *httpAddr != "" {
			v, url, stop, err := startViewer(*httpAddr)
			if err != nil {
				return err
			}
			defer stop()
			cfg.Viewer = v
			keys := m.KeyHelp()
			switch {
			case models.Spectate():
				keys = "spectating: the page shows the match"
			case *bot:
				keys = "a bot plays; the page shows its world"
			}
			fmt.Fprintf(stdoutOf(fs), "netphys play: open %s in a browser (%s)\n", url, keys)
		}
		started := time.Now()
		s, err := match.Play(ctx, cfg)
		s.Print(stdoutOf(fs))
		return explainPlayError(ctx, err, tok, time.Since(started))
	}
}

// startViewer serves the viewer page on addr until stop, and returns the
// page's URL.
func startViewer(addr string) (v *viewer.Server, url string, stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", nil, fmt.Errorf("viewer: %w (choose another address with --http)", err)
	}
	v = viewer.New(viewer.DefaultConfig())
	srv := &http.Server{Handler: v.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("viewer server stopped", "err", err)
		}
	}()
	return v, "http://" + ln.Addr().String() + "/", func() {
		shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
		v.Close()
	}, nil
}

// explainPlayError turns a failed handshake into what likely went wrong,
// as connect says it ("nothing listens at ..."), instead of "context
// deadline exceeded"; other errors pass unchanged.
func explainPlayError(ctx context.Context, err error, tok *netcode.ConnectToken, waited time.Duration) error {
	var ce *match.ConnectError
	if err == nil || !errors.As(err, &ce) || ctx.Err() != nil {
		return err
	}
	if e, ok := explainDial(ce.Err, tok, waited); ok {
		return fmt.Errorf("play: %w", e)
	}
	return err
}

// explainDial says what likely went wrong when udpdrive.Dial failed with
// err: the handshake ran out of time, or ended in a state
// (transport.Client.WaitConnected names it). ok is false for any other
// error, such as a server that refused the player's match: it says why.
func explainDial(err error, tok *netcode.ConnectToken, waited time.Duration) (_ error, ok bool) {
	if errors.Is(err, context.DeadlineExceeded) {
		return explainConnectFailure(netcode.StateRequestTimedOut, tok, waited), true
	}
	for _, st := range []netcode.ClientState{netcode.StateTokenExpired, netcode.StateInvalidToken, netcode.StateResponseTimedOut, netcode.StateRequestTimedOut, netcode.StateDenied} {
		if strings.HasSuffix(err.Error(), "connection failed: "+st.String()) {
			return explainConnectFailure(st, tok, waited), true
		}
	}
	return err, false
}
