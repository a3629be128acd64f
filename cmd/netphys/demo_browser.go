package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/netphys/netphys/internal/cubegames"
	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/udpdrive"
)

// demo --browser-player: a match whose player 1 is a browser tab and
// whose other players are the game's bots, all served by this process
// (state sync: the tab is the first guest, the server's host plays
// besides).
// The server is serve's (a UDP socket and a WebTransport endpoint as one
// socket, the tab's page, wasm and token endpoint: browserFlags.start);
// the bots are match.Play in this process, over UDP on loopback. They
// join once the tab has connected, so that the tab holds the first slot.

// browserPlayerFlags are demo's flags for a match with a browser tab.
type browserPlayerFlags struct {
	on           *bool
	webtransport *string
	ticks        *int
}

func declareBrowserPlayer(fs *flag.FlagSet) *browserPlayerFlags {
	return &browserPlayerFlags{
		on:           fs.Bool("browser-player", false, "a match whose player 1 is a browser tab (the page is served on --http; open the URL printed) and whose other players are bots in this process: --model lockstep (default), predict, interp or statesync"),
		webtransport: fs.String("webtransport", "127.0.0.1:0", "with --browser-player: the UDP `address` of the WebTransport endpoint the tab's datagrams travel over"),
		ticks:        fs.Int("ticks", 0, "with --browser-player: the tab and the bots end the match after this many simulation ticks, and the demo then ends (0: never)"),
	}
}

// notWithBrowserPlayer are demo's flags that a match with a browser tab
// does not take: it runs over the real loopback network, not the network
// simulator, and the tab's player is the person's.
var notWithBrowserPlayer = []string{"headless", "script", "rate", "autoplay", "seed", "verbose",
	"latency", "jitter", "loss", "burst", "dup", "reorder", "reorder-delay", "bandwidth", "queue"}

// run is `netphys demo --browser-player`.
func (bp *browserPlayerFlags) run(ctx context.Context, fs *flag.FlagSet, out io.Writer, models *match.Flags, layout *cubegames.LayoutFlag, httpAddr string, duration time.Duration) error {
	if !*bp.on {
		return fmt.Errorf("--webtransport and --ticks set up a match with a browser player: give --browser-player too")
	}
	for _, name := range notWithBrowserPlayer {
		if isSet(fs, name) {
			return fmt.Errorf("--%s: demo --browser-player plays over the real loopback network with the tab's player in the person's hands; drop --%s", name, name)
		}
	}
	if *bp.ticks < 0 {
		return fmt.Errorf("--ticks %d: want 0 (never) or more", *bp.ticks)
	}
	if httpAddr == "" {
		return fmt.Errorf("--http is empty: demo --browser-player serves the tab's page there; give an address such as 127.0.0.1:8080")
	}
	if !loopback(httpAddr) && loopback(*bp.webtransport) {
		return fmt.Errorf("--http %s serves the page beyond this machine, but --webtransport %s is a loopback address a browser elsewhere cannot reach: give --webtransport on the same interface", httpAddr, *bp.webtransport)
	}
	if !isSet(fs, "model") {
		if err := fs.Set("model", "lockstep"); err != nil {
			return err
		}
	}
	if models.Model() == "state" {
		return fmt.Errorf("--model state: the plain state demo has no browser player; give --model lockstep, predict, interp or statesync")
	}
	m, sides, setup, err := resolveModel(models)
	if err != nil {
		return err
	}
	world, err := layout.Models()
	if err != nil {
		return err
	}
	clients := m.Clients(setup.Players)
	if clients < 1 {
		return fmt.Errorf("--players %d: model %s then has no player for the tab", setup.Players, m.Name)
	}

	scfg := udpdrive.DefaultServerConfig()
	nc := &scfg.Transport.Netcode
	if _, err := rand.Read(nc.PrivateKey[:]); err != nil {
		return err
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return err
	}
	nc.PublicAddress = conn.LocalAddr().(*net.UDPAddr).AddrPort()
	web := &browserFlags{webtransport: bp.webtransport, web: &httpAddr}
	var page string
	pc, stopWeb, err := web.start(ctx, conn, *nc, bp.tabArgs(fs, m.Name, setup.Players, world.String()), func(u string) { page = u }, out)
	if err != nil {
		conn.Close()
		return err
	}
	defer stopWeb()

	listening := make(chan *udpdrive.Server, 1)
	ended := make(chan struct{})
	var endOnce sync.Once
	running, err := match.Start(ctx, match.ServeConfig{Model: m, Sides: sides, Setup: setup, Conn: pc, Server: scfg, Status: out,
		Listening: func(s *udpdrive.Server) (func(), error) {
			listening <- s
			return func() {}, nil
		},
		Ended: func(match.Summary) { endOnce.Do(func() { close(ended) }) }})
	if err != nil {
		pc.Close()
		return err
	}
	who := "player 1"
	if m.HostSeats > 0 {
		who = "player 1 of the clients, beside the server's host"
	}
	fmt.Fprintf(out, "netphys demo: open %s in Chrome or Chromium: the tab is %s (%s), %s%s\n",
		page, who, m.KeyHelp(), botsPlay(clients-1), chromiumFlag(httpAddr, page))

	var stop <-chan time.Time
	if duration > 0 {
		stop = time.After(duration)
	}
	var srv *udpdrive.Server
	select {
	case srv = <-listening:
	case <-running.Done():
	}
	var bots sync.WaitGroup
	var sums []match.Summary
	var sumsMu sync.Mutex
	if srv != nil && waitFirstClient(ctx, srv, stop) {
		fmt.Fprintf(out, "netphys demo: the tab joined as player 1; %s\n", botsPlay(clients-1))
		for id := 1; id < clients; id++ {
			tok, err := running.Token(uint64(id))
			if err != nil {
				running.Stop()
				return err
			}
			bots.Add(1)
			go func() {
				defer bots.Done()
				s, err := match.Play(ctx, match.PlayConfig{Model: m, Sides: sides, Setup: setup, Token: tok, Bot: true,
					Ticks: *bp.ticks, Linger: time.Second})
				if err != nil {
					slog.Error("demo: a bot stopped", "bot", id, "err", err)
				}
				sumsMu.Lock()
				sums = append(sums, s)
				sumsMu.Unlock()
			}()
		}
	}
	botsDone := make(chan struct{})
	go func() { bots.Wait(); close(botsDone) }()
	matchOver := ended
	if *bp.ticks == 0 {
		matchOver = nil // the demo goes on until Ctrl-C or --duration
	}
	select {
	case <-ctx.Done():
	case <-stop:
	case <-running.Done():
	case <-matchOver:
	}
	<-botsDone // they end with ctx or their ticks
	last, err := running.Stop()
	for _, s := range sums {
		s.Print(out)
	}
	select {
	case <-ended: // Serve printed it
	default:
		last.Print(out)
	}
	return err
}

// botsPlay says how many bots play beside the tab.
func botsPlay(n int) string {
	switch n {
	case 0:
		return "no bot plays"
	case 1:
		return "a bot is the other client"
	}
	return fmt.Sprintf("%d bots are the other clients", n)
}

// waitFirstClient waits until a client (the tab) has connected to srv
// and its first payload (its hello, which joins it to the model's match)
// has arrived, and reports whether it did before ctx or stop ended the
// wait. The bots join after it: their hellos reach the driver behind the
// tab's, so the tab also holds the model's first seat (lockstep's, say).
func waitFirstClient(ctx context.Context, srv *udpdrive.Server, stop <-chan time.Time) bool {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for st := srv.Transport().Stats(); st.ClientsConnected == 0 || st.PayloadsReceived == 0; st = srv.Transport().Stats() {
		select {
		case <-ctx.Done():
			return false
		case <-stop:
			return false
		case <-t.C:
		}
	}
	return true
}

// tabArgs are the tab's match flags: the model, players and layout the
// server plays (the tab's own defaults differ from demo's), the others
// given on the command line, the page's keys, and the ticks.
func (bp *browserPlayerFlags) tabArgs(fs *flag.FlagSet, model string, players int, layout string) string {
	args := []string{"--model=" + model, fmt.Sprintf("--players=%d", players), "--layout=" + layout, "--bot=false"}
	skip := map[string]bool{"model": true, "players": true, "layout": true, "browser-player": true, "webtransport": true,
		"ticks": true, "http": true, "duration": true}
	probe := flag.NewFlagSet("tab", flag.ContinueOnError)
	match.DeclareFlags(probe, match.Defaults{Model: "lockstep", Players: 4})
	fs.Visit(func(f *flag.Flag) {
		if !skip[f.Name] && probe.Lookup(f.Name) != nil {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	if *bp.ticks > 0 {
		args = append(args, fmt.Sprintf("--ticks=%d", *bp.ticks))
	}
	return strings.Join(args, " ")
}

// loopback reports whether the host of the address addr is on loopback
// only (localhost, 127.0.0.0/8, ::1).
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// chromiumFlag says what the browser needs when the page is not served
// on a loopback address: WebTransport exists only in secure contexts, and
// http:// is one only on localhost. The endpoint's self-signed
// certificate needs nothing: the page pins it (serverCertificateHashes).
func chromiumFlag(httpAddr, page string) string {
	u, err := url.Parse(page)
	if err != nil {
		return ""
	}
	if ap, err := netip.ParseAddrPort(u.Host); err == nil && ap.Addr().IsLoopback() {
		return ""
	}
	return fmt.Sprintf("; the page is plain HTTP on %s, not a secure context: start the browser with --unsafely-treat-insecure-origin-as-secure=http://%s", httpAddr, u.Host)
}
