package match

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/netsim/proxy"
	"github.com/netphys/netphys/viewer"
)

// DemoConfig sets up a demo: a model's server and all its players in one
// process, over real UDP on 127.0.0.1 through the network simulator's
// proxy.
type DemoConfig struct {
	Model *Model
	Sides Sides
	Setup Setup // Model.Clients(Setup.Players) players join
	// Conditions apply each way between every player and the server.
	Conditions netsim.Conditions
	Seed       uint64 // the proxy's
	// Viewer, when set, shows every player's world side by side and the
	// figures; player 1 follows its keys unless Script.
	Viewer *viewer.Server
	// Script makes player 1 a bot as well.
	Script bool
	// AutoPlay hands player 1 to the game's bot after this long without a
	// key, until a key is pressed (Keys.AutoPlay); 0: never.
	AutoPlay time.Duration
	Duration time.Duration // 0: until ctx ends
	// Status receives a line of figures every StatusEvery; nil: none.
	Status      io.Writer
	StatusEvery time.Duration
	// Verbose prints every player's figures in the Status line; otherwise
	// (unless the log is at level debug) the line shows the range of each
	// figure over the players.
	Verbose bool
}

// demoProtocol names the demo's traffic ("NPDEMO2", distinct from the
// state demo's): a token for another game is refused.
const demoProtocol netcode.ProtocolID = 0x32_4f4d_4544_504e

// demoPlayer is one player of a demo, in slot order.
type demoPlayer struct {
	client *udpdrive.Client
	side   Player
	meter  meter
	who    string // "p1 "
	label  string // "player 1 (keys)"
}

// Demo runs the demo until cfg.Duration passes, ctx ends or a side stops.
func Demo(ctx context.Context, cfg DemoConfig) (Summary, error) {
	log := cfg.Setup.Logger
	if log == nil {
		log = slog.Default()
		cfg.Setup.Logger = log
	}
	n := cfg.Model.Clients(cfg.Setup.Players)
	if n < 1 || n >= viewer.MaxViews { // every client's view and the server's
		return Summary{}, fmt.Errorf("demo: %d players, %d of them clients, want 1 to %d clients", cfg.Setup.Players, n, viewer.MaxViews-1)
	}
	serverConn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return Summary{}, err
	}
	// Players reach the server through the proxy: the tokens list its
	// address, and the server answers to it.
	prx, err := proxy.Listen(proxy.Config{
		Listen: "127.0.0.1:0", Forward: serverConn.LocalAddr().String(), Seed: cfg.Seed, Conditions: cfg.Conditions,
	})
	if err != nil {
		serverConn.Close()
		return Summary{}, err
	}
	proxyCtx, stopProxy := context.WithCancel(context.Background())
	proxyDone := make(chan error, 1)
	go func() { proxyDone <- prx.Run(proxyCtx) }()
	defer func() { stopProxy(); <-proxyDone }()

	var key netcode.Key
	if _, err := rand.Read(key[:]); err != nil {
		serverConn.Close()
		return Summary{}, err
	}
	cfg.Setup.Now = time.Now()
	host, err := cfg.Sides.NewHost(cfg.Setup)
	if err != nil {
		serverConn.Close()
		return Summary{}, err
	}
	scfg := udpdrive.DefaultServerConfig()
	scfg.Logger = log
	scfg.Transport.Netcode.ProtocolID = demoProtocol
	scfg.Transport.Netcode.PrivateKey = key
	scfg.Transport.Netcode.PublicAddress = prx.Addr()
	scfg.Transport.Netcode.MaxClients = n
	srv, err := udpdrive.NewServer(host, serverConn, scfg)
	if err != nil {
		serverConn.Close()
		return Summary{}, err
	}
	defer srv.Close()
	if cfg.Viewer != nil && cfg.Script {
		cfg.Viewer.SetControls(WatchControls)
	}
	players, err := dialPlayers(ctx, cfg, n, key, prx.Addr())
	if err != nil {
		return Summary{}, err
	}
	defer func() {
		for _, p := range players {
			p.client.Close()
		}
	}()
	log.Info("demo running", "model", cfg.Model.Name, "players", cfg.Setup.Players, "clients", n, "latency", cfg.Conditions.Latency,
		"jitter", cfg.Conditions.Jitter, "loss", cfg.Conditions.Loss, "proxy", prx.Addr())

	// Every player runs on its own goroutine, as it would in its own
	// process, and the server on this one: the worlds' costs then spread
	// over the cores instead of adding up in one frame. The players post
	// their figures, views and checksums to a board, which the server's
	// goroutine reads to publish.
	b := newBoard(n)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	playerErrs := make([]error, n)
	for i, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			playerErrs[i] = udpdrive.Run(runCtx, udpdrive.DefaultFrame, p.frame(cfg.Viewer != nil, b, i), p.client)
			if playerErrs[i] != nil {
				playerErrs[i] = fmt.Errorf("%s: %w", p.label, playerErrs[i])
				stop()
			}
		}()
	}
	start := time.Now()
	lastStatus := start
	var (
		figs      []viewer.Figure
		views     []viewer.View
		hostMeter meter
		warned    bool // that a side needs more than a frame
	)
	err = udpdrive.Run(runCtx, udpdrive.DefaultFrame, func(now time.Time) (bool, error) {
		hostMeter.sample(now, netmodel.Traffic{}, srv.Cost())
		c := cfg.Conditions
		figs = append(figs[:0],
			viewer.Figure{Name: "model", Text: fmt.Sprintf("%s, %d players", cfg.Model.Name, cfg.Setup.Players)},
			viewer.Figure{Name: "network", Text: fmt.Sprintf("%v ±%v each way, %.3g %% loss", c.Latency, c.Jitter, 100*c.Loss)},
		)
		figs = append(host.Figures(now, figs), viewer.Figure{Name: "server cpu", Value: hostMeter.cpu, Unit: "ms"})
		views = hostViews(cfg.Model, host.Views(views[:0]))
		b.mu.Lock()
		busiest := hostMeter.cpu
		for i := range players {
			figs = append(figs, b.figs[i]...)
			views = append(views, b.views[i]...)
			busiest = max(busiest, b.busy[i])
		}
		if b.agree.compared > 0 {
			figs = append(figs,
				viewer.Figure{Name: "checksums compared", Value: float64(b.agree.compared)},
				viewer.Figure{Name: "checksums differing", Value: float64(b.agree.differ)})
		}
		if cfg.Viewer != nil {
			// Under the lock: the views' cubes are the board's.
			cfg.Viewer.Publish(viewer.Frame{Views: views, Figures: figs})
		}
		b.mu.Unlock()
		if !warned && now.Sub(start) > 2*meterWindow {
			// A side that needs more than a frame runs its world slow,
			// and the figures with it.
			if frame := ms(udpdrive.DefaultFrame); busiest > frame {
				log.Warn("demo: a side needs more than a frame, its world runs slow; try fewer --players or a lighter --layout",
					"ms_per_frame", busiest, "frame_ms", frame)
				warned = true
			}
		}
		if cfg.Status != nil && now.Sub(lastStatus) >= cfg.StatusEvery {
			printStatus(cfg.Status, now.Sub(start), figs, cfg.Verbose || log.Enabled(ctx, slog.LevelDebug))
			lastStatus = now
		}
		return cfg.Duration > 0 && now.Sub(start) >= cfg.Duration, nil
	}, srv)
	stop()
	wg.Wait()
	err = errors.Join(append([]error{err}, playerErrs...)...)
	agree := b.agree
	d := time.Since(start)
	s := Summary{Command: "demo", Model: cfg.Model.Name, Duration: d}
	s.Sections = append(s.Sections, Section{Name: "server", Lines: dropLines(append(withAgreement(host, time.Now(), host.Summary(time.Now(), nil)), costLine(srv.Cost())), srv)})
	for _, p := range players {
		lines := append(trafficLines(withAgreement(p.side, time.Now(), p.side.Summary(time.Now(), nil)), p.client.Traffic(), d), costLine(p.client.Cost()))
		lines = dropLines(lines, p.client)
		s.Sections = append(s.Sections, Section{Name: p.label, Lines: lines})
	}
	matchLines := []Line{{"simulated", fmt.Sprintf("latency %v, jitter %v, loss %.1f %% each way", cfg.Conditions.Latency, cfg.Conditions.Jitter, 100*cfg.Conditions.Loss)}}
	if c := prx.Counters(); c.Sent > 0 {
		matchLines = append(matchLines, Line{"dropped", fmt.Sprintf("%.1f %% of %d datagrams by the simulator", 100*float64(c.Lost)/float64(c.Sent), c.Sent)})
	}
	if agree.compared > 0 {
		matchLines = append(matchLines, agreementLine(agree))
	}
	s.Sections = append(s.Sections, Section{Name: "match", Lines: matchLines})
	if err == nil && agree.differ > 0 {
		err = fmt.Errorf("demo: players' checksums differ from tick %d", agree.first)
	}
	return s, err
}

// dialPlayers connects n players at once through the proxy and returns
// them in slot order.
func dialPlayers(ctx context.Context, cfg DemoConfig, n int, key netcode.Key, server netip.AddrPort) ([]*demoPlayer, error) {
	players := make([]*demoPlayer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := netcode.DefaultTokenParams()
			p.ProtocolID = demoProtocol
			p.ClientID = netcode.ClientID(i + 1)
			p.ServerAddresses = []netip.AddrPort{server}
			tok, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
			if err != nil {
				errs[i] = err
				return
			}
			dp := &demoPlayer{}
			ccfg := udpdrive.DefaultClientConfig()
			ccfg.Logger = cfg.Setup.Logger
			dp.client, errs[i] = udpdrive.Dial(ctx, tok, func(slot int) (netmodel.Client, error) {
				ps := PlayerSetup{Setup: cfg.Setup, Slot: slot}
				ps.Now = time.Now()
				dp.who = fmt.Sprintf("p%d ", slot+1)
				if slot == 0 && cfg.Viewer != nil && !cfg.Script {
					ps.Keys, dp.label = &Keys{Viewer: cfg.Viewer, AutoPlay: int(cfg.AutoPlay / udpdrive.DefaultFrame)}, fmt.Sprintf("player %d (keys)", slot+1)
				} else {
					ps.Bot, dp.label = true, fmt.Sprintf("player %d (bot)", slot+1)
				}
				var err error
				dp.side, err = cfg.Sides.NewPlayer(ps)
				return dp.side, err
			}, ccfg)
			players[i] = dp
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for i, p := range players {
			if errs[i] == nil {
				p.client.Close()
			}
		}
		return nil, fmt.Errorf("demo: players could not connect: %w", err)
	}
	slices.SortFunc(players, func(a, b *demoPlayer) int { return a.client.Slot() - b.client.Slot() })
	return players, nil
}

func agreementLine(a *agreement) Line {
	v := fmt.Sprintf("%d ticks compared across players (newest %d), all equal", a.compared, a.newest)
	if a.differ > 0 {
		v = fmt.Sprintf("%d ticks compared, %d DIFFER (first at tick %d)", a.compared, a.differ, a.first)
	}
	return Line{"checksums", v}
}

// printStatus writes the figures as one line. Verbose, each player's
// follow its name once: "  3.0s  session tick 165, ticks verified 3 | p1
// up 28.7 kbps, ...". Otherwise the players' figures are summed up as the
// range over the players: "| 4 players: up 27.9–28.7 kbps, ...".
func printStatus(w io.Writer, t time.Duration, figs []viewer.Figure, verbose bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "%6.1fs ", t.Seconds())
	group, sep := "", " "
	var (
		names   []string // the players' figures, in order
		units   []string
		spreads []spread
		players []string
	)
	for _, f := range figs {
		if f.Text != "" {
			continue // the settings: the same every second
		}
		name := f.Name
		g, rest, ok := strings.Cut(name, " ")
		isPlayer := ok && len(g) > 1 && g[0] == 'p' && strings.Trim(g[1:], "0123456789") == ""
		if isPlayer && !verbose {
			if !slices.Contains(players, g) {
				players = append(players, g)
			}
			i := slices.Index(names, rest)
			if i < 0 {
				i = len(names)
				names, units, spreads = append(names, rest), append(units, f.Unit), append(spreads, spread{})
			}
			spreads[i].add(f.Value)
			continue
		}
		if isPlayer {
			if g != group {
				group, sep = g, " "
				fmt.Fprintf(&b, " | %s", g)
			}
			name = rest
		} else if group != "" {
			group, sep = "", " "
			b.WriteString(" |")
		}
		fmt.Fprintf(&b, "%s%s %s", sep, name, statusValue(Round(f.Value), f.Unit))
		sep = ", "
	}
	if len(players) > 0 {
		fmt.Fprintf(&b, " | %d players:", len(players))
		for i, name := range names {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %s %s", name, statusValue(spreads[i].text(""), units[i]))
		}
	}
	fmt.Fprintln(w, b.String())
}

// statusValue joins a value and its unit: "28.7 kbps", "3%", "0.5/s".
func statusValue(v, unit string) string {
	if unit != "" && unit != "%" && unit[0] != '/' {
		unit = " " + unit
	}
	return v + unit
}

// board is what the players' goroutines hand the server's: each player's
// newest figures and views, copied, how long its frames take, and the
// checksums the players reported.
type board struct {
	mu    sync.Mutex
	figs  [][]viewer.Figure // per player, names prefixed
	views [][]viewer.View   // per player, named; their cubes are in cubes
	cubes [][]viewer.Cube
	busy  []float64 // per player, ms of model time per frame
	agree *agreement
}

func newBoard(players int) *board {
	return &board{
		figs: make([][]viewer.Figure, players), views: make([][]viewer.View, players),
		cubes: make([][]viewer.Cube, players), busy: make([]float64, players),
		agree: newAgreement(players),
	}
}

// post stores player i's frame, copying what the player will reuse.
func (b *board) post(i int, figs []viewer.Figure, views []viewer.View, busy float64, c Checksummer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.figs[i] = append(b.figs[i][:0], figs...)
	cubes, vs := b.cubes[i][:0], b.views[i][:0]
	for _, v := range views {
		k := len(cubes)
		cubes = append(cubes, v.Cubes...)
		// A later append may move cubes; this view keeps the copy it has.
		vs = append(vs, viewer.View{Name: v.Name, Cubes: cubes[k:len(cubes):len(cubes)], Facing: v.Facing})
	}
	b.cubes[i], b.views[i], b.busy[i] = cubes, vs, busy
	if c != nil {
		if tick, sum, ok := c.Checksum(); ok {
			b.agree.note(i, tick, sum)
		}
	}
}

// frame is the function a player's goroutine runs after each Step: its
// figures, its views if there is a viewer, its checksum, to the board.
func (p *demoPlayer) frame(draw bool, b *board, i int) func(now time.Time) (bool, error) {
	var (
		figs, scratch []viewer.Figure
		views         []viewer.View
	)
	check, _ := p.side.(Checksummer)
	return func(now time.Time) (bool, error) {
		p.meter.sample(now, p.client.Traffic(), p.client.Cost())
		figs = p.meter.figures(figs[:0], p.who, true)
		scratch = p.side.Figures(now, scratch[:0])
		figs = prefixed(figs, p.who, scratch)
		views = views[:0]
		if draw {
			views = p.side.Views(views)
			for j := range views {
				views[j].Name = viewLabel(p.label, views[j].Name)
			}
		}
		b.post(i, figs, views, p.meter.cpu, check)
		return false, nil
	}
}
