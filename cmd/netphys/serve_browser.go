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
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/netphys/netphys/tab"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
	"github.com/netphys/netphys/transport/webtransport"
)

// browserFlags are serve's flags for players in browser tabs.
type browserFlags struct {
	webtransport, web *string
	// modelFlags names the match flags, which the tab must be given as
	// the server has them.
	modelFlags map[string]bool
}

// declareBrowser declares the browser flags; declareModels declares the
// match flags, whose names it notes.
func declareBrowser(fs *flag.FlagSet, declareModels func()) *browserFlags {
	b := &browserFlags{modelFlags: map[string]bool{}}
	before := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { before[f.Name] = true })
	declareModels()
	fs.VisitAll(func(f *flag.Flag) {
		if !before[f.Name] {
			b.modelFlags[f.Name] = true
		}
	})
	b.webtransport = fs.String("webtransport", "", "also accept browser players: a WebTransport endpoint on this UDP `address` carrying netcode's packets (network models only)")
	b.web = fs.String("web", "", "serve the browser player's page, its wasm program (built with the go command from the netphys module in the current directory) and a token endpoint that gives every page a token, on this TCP `address`; needs --webtransport")
	return b
}

// matchArgs returns the match flags set on fs, for the tab's page.
func (b *browserFlags) matchArgs(fs *flag.FlagSet) string {
	var args []string
	fs.Visit(func(f *flag.Flag) {
		if b.modelFlags[f.Name] {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	return strings.Join(args, " ")
}

// check refuses flags that cannot work together, before anything starts.
// With rooms, browser players' tokens may name their match, but the
// page's tokens name none: --web needs the --model match they join.
func (b *browserFlags) check(networkModel, rooms bool) error {
	switch {
	case *b.webtransport == "" && *b.web == "":
		return nil
	case !networkModel && rooms && *b.web != "":
		return errors.New("--web gives the page tokens that name no match: with --rooms, give --model, the match its tabs join")
	case !networkModel && !rooms:
		return errors.New("--webtransport and --web serve browser players of a network model: give --model")
	case *b.webtransport == "":
		return errors.New("--web serves a page whose player needs a WebTransport endpoint: give --webtransport too")
	}
	return nil
}

// start returns conn, or conn and a WebTransport endpoint as one socket
// with --webtransport, and serves the tab with --web, giving page the
// tab's URL. stop writes the endpoint's counters to out and ends the web
// server; the socket is the caller's to close.
func (b *browserFlags) start(ctx context.Context, conn *net.UDPConn, nc netcode.ServerConfig, args string, page func(url string), out io.Writer) (transport.PacketConn, func(), error) {
	if *b.webtransport == "" {
		return conn, func() {}, nil
	}
	mux, err := webtransport.NewMux(conn, webtransport.Config{Addr: *b.webtransport})
	if err != nil {
		return nil, nil, fmt.Errorf("--webtransport: %w", err)
	}
	logStats := func() {
		st := mux.Stats()
		f := st.Fragments
		slog.Info("webtransport stats", "sessions", st.SessionsAccepted, "refused", st.SessionsRefused,
			"datagrams_in", st.DatagramsIn, "datagrams_out", st.DatagramsOut, "dropped_size", st.DroppedSize,
			"dropped_queue_full", st.DroppedQueueFull, "dropped_spoofed", st.DroppedSpoofed,
			"dropped_no_session", st.DroppedNoSession, "send_errors", st.SendErrors,
			"packets_split", f.PacketsSplit, "fragments_sent", f.FragmentsSent, "fragments_in", f.FragmentsIn,
			"packets_reassembled", f.PacketsReassembled, "fragments_dropped", f.FragmentsDropped, "packets_lost", f.PacketsLost)
		fmt.Fprintf(out, "webtransport  %d sessions, datagrams %d in %d out, send errors %d; fragments: %d packets sent in %d, %d packets reassembled of %d, %d dropped, %d packets lost\n",
			st.SessionsAccepted, st.DatagramsIn, st.DatagramsOut, st.SendErrors, f.PacketsSplit, f.FragmentsSent,
			f.PacketsReassembled, f.FragmentsIn, f.FragmentsDropped, f.PacketsLost)
	}
	if *b.web == "" {
		return mux, logStats, nil
	}
	if !nc.PublicAddress.IsValid() {
		mux.Close()
		return nil, nil, errors.New("--web: the tokens need the server's public address: give --public")
	}
	slog.Info("web: building the tab's wasm program", "package", tab.WasmPackage)
	prog, err := tab.Build(ctx, ".")
	if err != nil {
		mux.Close()
		return nil, nil, fmt.Errorf("--web: %w", err)
	}
	tokens := &tokenservice.Handler{Params: netcode.DefaultTokenParams(), PrivateKey: nc.PrivateKey, Authenticate: anyPage()}
	tokens.Params.ProtocolID = nc.ProtocolID
	tokens.Params.ServerAddresses = []netip.AddrPort{nc.PublicAddress}
	h, err := tab.Handler(prog, tokens, mux.InfoHandler())
	if err != nil {
		mux.Close()
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", *b.web)
	if err != nil {
		mux.Close()
		return nil, nil, fmt.Errorf("--web: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("web server stopped", "err", err)
		}
	}()
	slog.Warn("web: the token endpoint gives a token to every page that asks: a development server, not one for the internet")
	page(fmt.Sprintf("http://%s/?args=%s", ln.Addr(), url.QueryEscape(args)))
	return mux, func() {
		logStats()
		shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}, nil
}

// anyPage authenticates every request, with client ids counted from 1<<48
// so that they do not meet the small ids given on the command line.
func anyPage() func(*http.Request) (uint64, []byte, error) {
	var next atomic.Uint64
	return func(*http.Request) (uint64, []byte, error) {
		return 1<<48 + next.Add(1), nil, nil
	}
}
