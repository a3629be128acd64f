package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/metrics"
	"github.com/netphys/netphys/transport/netcode"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "run a netcode 1.02 server on UDP: a network model's server side (--model), or one that echoes payloads",
		setup:   setupServe,
	})
}

func setupServe(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	var keys keyFlags
	keys.declare(fs)
	listen := fs.String("listen", "127.0.0.1:40000", "UDP address to bind")
	public := fs.String("public", "", "address clients reach the server at, as listed in tokens (default: --listen)")
	protocol := fs.String("protocol-id", defaultProtocolID, "protocol id of the game, decimal or 0x hex")
	maxClients := fs.Int("max-clients", 0, fmt.Sprintf("client slots, 1 to %d (default %d; %d with --rooms: about 4.5 KiB each, and 16 KiB more once used)", netcode.MaxClients, serveSlots, roomsSlots))
	metricsAddr := fs.String("metrics", "", "serve Prometheus /metrics on this TCP address (e.g. 127.0.0.1:9100)")
	echo := fs.Bool("echo", true, "send every payload back to its client")
	report := fs.Duration("report", 10*time.Second, "log the counters this often (0: never)")
	verbose := fs.Bool("verbose", false, "network models: log every player's figures each report, a line each (default: one line for the match)")
	var models *match.Flags
	browser := declareBrowser(fs, func() {
		models = match.DeclareFlags(fs, match.Defaults{Model: "echo", Players: 4, Builtin: []string{"echo"}})
	})
	httpAddr := fs.String("http", "", "serve the server side's viewer page on this `address` (network models only)")
	record := fs.String("record", "", "write each match's replay to a file in this `directory` (lockstep's inputs, the other models' snapshots: play it back with netphys replay FILE)")
	rooms := declareRooms(fs)
	life := declareLifecycle(fs)
	return func(ctx context.Context, args []string) error {
		key, err := keys.key()
		if err != nil {
			return err
		}
		if err := rooms.check(); err != nil {
			return err
		}
		if err := browser.check(models.Model() != "echo", rooms.on); err != nil {
			return err
		}
		cfg := transport.DefaultServerConfig()
		cfg.Netcode.PrivateKey = key
		switch {
		case *maxClients != 0:
			cfg.Netcode.MaxClients = *maxClients
		case rooms.on:
			cfg.Netcode.MaxClients = roomsSlots
		default:
			cfg.Netcode.MaxClients = serveSlots
		}
		if cfg.Netcode.MaxClients < 1 || cfg.Netcode.MaxClients > netcode.MaxClients {
			return fmt.Errorf("--max-clients %d: want 1 to %d", cfg.Netcode.MaxClients, netcode.MaxClients)
		}
		if cfg.Netcode.ProtocolID, err = parseProtocolID(*protocol); err != nil {
			return err
		}
		if cfg.Netcode.PublicAddress, err = publicAddress(*listen, *public, life.agones); err != nil {
			return err
		}
		// Agones, and the drain on SIGTERM; without --public, Agones names
		// the public address.
		ctx, lc, err := life.start(ctx, &cfg.Netcode.PublicAddress, *public != "")
		if err != nil {
			return err
		}
		defer lc.done()
		if rooms.on {
			return serveRooms(ctx, stdoutOf(fs), models, cfg, serveOptions{listen: *listen, httpAddr: *httpAddr,
				metricsAddr: *metricsAddr, record: *record, report: *report, verbose: *verbose,
				browser: browser, matchArgs: browser.matchArgs(fs)}, rooms, lc)
		}
		if models.Model() != "echo" {
			return serveModel(ctx, stdoutOf(fs), models, cfg, serveOptions{listen: *listen, httpAddr: *httpAddr,
				metricsAddr: *metricsAddr, record: *record, report: *report, verbose: *verbose,
				browser: browser, matchArgs: browser.matchArgs(fs)}, lc.listened)
		}
		var srv *transport.Server
		// The server's goroutine may deliver a payload before ListenServer
		// has returned srv: the echo waits until it is set.
		listening := make(chan struct{})
		if *echo {
			cfg.OnPayload = func(i netcode.ClientIndex, b []byte) {
				<-listening
				if err := srv.SendPayload(i, b); err != nil {
					slog.Debug("echo", "client", i, "err", err)
				}
			}
		}
		srv, err = transport.ListenServer(*listen, cfg)
		if err != nil {
			return err
		}
		close(listening)
		lc.listened(srv)
		slog.Info("serving", "listen", srv.Addr(), "public", cfg.Netcode.PublicAddress,
			"protocol_id", fmt.Sprintf("%#x", uint64(cfg.Netcode.ProtocolID)), "max_clients", cfg.Netcode.MaxClients)
		if *metricsAddr != "" {
			stop, err := startMetrics(*metricsAddr, srv)
			if err != nil {
				srv.Close()
				return err
			}
			defer stop()
		}
		var tick <-chan time.Time
		if *report > 0 {
			t := time.NewTicker(*report)
			defer t.Stop()
			tick = t.C
		}
		for {
			select {
			case <-ctx.Done():
				logServerStats(srv.Stats())
				return srv.Close()
			case <-tick:
				logServerStats(srv.Stats())
			}
		}
	}
}

// The client slots of serve without --max-clients: one match at a time,
// or with --rooms many (about 250 four-player matches; the relay of one
// lockstep match costs some 130-150 µs of a core a tick over real UDP,
// so one core carries fewer than that at 60 Hz: the slots do not bind
// before the CPU).
const (
	serveSlots = 64
	roomsSlots = 1024
)

// publicAddress checks --listen and returns the address the tokens list:
// --public if given, else --listen, which must then be a concrete IP and
// port; under Agones without --public it is left for the GameServer to
// name.
func publicAddress(listen, public string, fromAgones bool) (netip.AddrPort, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("--listen %s: want ip:port, such as 127.0.0.1:40000", listen)
	}
	if n, err := strconv.ParseUint(port, 10, 64); err != nil || n == 0 || n > 65535 {
		return netip.AddrPort{}, fmt.Errorf("--listen %s: port %s is out of range: want 1 to 65535", listen, port)
	}
	if public != "" {
		ap, err := netip.ParseAddrPort(public)
		if err != nil || ap.Port() == 0 || ap.Addr().IsUnspecified() {
			return netip.AddrPort{}, fmt.Errorf("--public %s: want the ip:port clients reach the server at, such as 203.0.113.7:40000", public)
		}
		return ap, nil
	}
	ip, err := netip.ParseAddr(host)
	switch {
	case fromAgones:
		return netip.AddrPort{}, nil // the GameServer's address, once Agones names it
	case err != nil:
		return netip.AddrPort{}, fmt.Errorf("--listen %s: give an IP address and port (the tokens list the server's address, and a host name is not one), or give --public", listen)
	case ip.IsUnspecified():
		return netip.AddrPort{}, fmt.Errorf("--listen %s listens on every address: give --public, the ip:port clients reach the server at, which the tokens list", listen)
	}
	return netip.MustParseAddrPort(net.JoinHostPort(host, port)), nil
}

func logServerStats(st netcode.ServerStats) {
	attrs := []any{"clients", st.ClientsConnected, "packets_in", st.PacketsReceived, "packets_out", st.PacketsSent,
		"bytes_in", st.BytesReceived, "bytes_out", st.BytesSent, "payloads_in", st.PayloadsReceived,
		"payloads_out", st.PayloadsSent, "connects", st.Connects, "timeouts", st.TimedOut, "replaced", st.Replaced, "denied", st.DeniedSent}
	for r, n := range st.Drops {
		if n > 0 {
			attrs = append(attrs, "drop_"+netcode.DropReason(r).String(), n)
		}
	}
	slog.Info("server stats", attrs...)
}

// startMetrics serves Prometheus /metrics of srv on addr until stop,
// with the collectors extra.
func startMetrics(addr string, srv *transport.Server, extra ...prometheus.Collector) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	mux := http.NewServeMux()
	if extra == nil {
		mux.Handle("/metrics", metrics.Handler(srv))
	} else {
		reg := prometheus.NewRegistry()
		reg.MustRegister(append(extra, metrics.NewServerCollector(srv), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))...)
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	}
	web := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go web.Serve(ln)
	slog.Info("metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return func() { web.Close() }, nil
}

// refusals is a Prometheus collector of the clients a model server
// refused or sent away, by reason (udpdrive.Server.Refusals).
// and what the model refused of what its clients sent (match.Refuser:
// predict's late or cooling-down shots, say), by reason.
type refusals struct {
	srv         *udpdrive.Server // nil: the model's only (serve --rooms' collector counts the clients)
	model       *match.RefusalTally
	desc, input *prometheus.Desc
}

func refusalCollector(srv *udpdrive.Server, model *match.RefusalTally) prometheus.Collector {
	return &refusals{srv: srv, model: model,
		desc: prometheus.NewDesc("netphys_match_refused_total",
			"Clients refused at the door (config_mismatch, no_hello, join_refused) or sent away from a match (dropped_<reason>, match_failed).", []string{"reason"}, nil),
		input: prometheus.NewDesc("netphys_model_refused_total",
			"What the model refused of what its clients sent, summed over the matches (predict: shot_too_late, shot_refused, input_too_late, ...).", []string{"reason"}, nil)}
}

func (r *refusals) Describe(ch chan<- *prometheus.Desc) {
	if r.srv != nil {
		ch <- r.desc
	}
	ch <- r.input
}

func (r *refusals) Collect(ch chan<- prometheus.Metric) {
	if r.srv != nil { // nil: serve --rooms, whose collector counts them
		for _, x := range r.srv.Refusals() {
			ch <- prometheus.MustNewConstMetric(r.desc, prometheus.CounterValue, float64(x.Count), x.Reason)
		}
	}
	for _, x := range r.model.Counts() {
		ch <- prometheus.MustNewConstMetric(r.input, prometheus.CounterValue, float64(x.Count), x.Reason)
	}
}
