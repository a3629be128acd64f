// Command avalanche is an outside game on snapshot interpolation, plugged
// into netphys through its public packages only: the server steps boxes
// tumbling down a ramp on netphys's physics engine (game.go implements
// interp.Game), and each client simulates nothing, drawing the boxes
// between the two snapshots around its render clock. It runs the server
// and its clients either in virtual time over the network simulator (the
// default: the same figures every time) or over real UDP on loopback
// (-udp), and prints what each client saw: how far behind it drew, how
// often it ran dry, its bandwidth and how far its picture was from the
// server's truth at the tick it drew.
//
//	go run ./examples/avalanche -duration 30s -rtt 100ms -loss 0.05
//	go run ./examples/avalanche -udp -duration 5s
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
	"os"
	"slices"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/netsim"
)

// Options say what match to run.
type Options struct {
	Boxes    int
	Clients  int
	Duration time.Duration
	RTT      time.Duration // simulated round trip (virtual time only)
	Loss     float64       // simulated loss each way, 0–1 (virtual time only)
	Seed     uint64
	UDP      bool // real UDP on loopback instead of the simulator
}

// ClientResult is what one client saw.
type ClientResult struct {
	Frames      uint64        // frames drawn
	Dry         uint64        // frames with no snapshot after the render time
	RenderDelay time.Duration // the delay the model added to the network's
	DownKbps    float64       // netcode and UDP headers included
	// ErrorP95 and ErrorMax are the distances between the boxes drawn and
	// the server's boxes at the tick drawn, over every box of every frame
	// after the first second, m.
	ErrorP95, ErrorMax float64
}

// viewer is one client and what it measured.
type viewer struct {
	client *interp.Client
	errs   []float64
}

// README: interp-view

// look is the client's frame: draw the boxes (here: compare them with the
// server's truth at the tick they show).
func (v *viewer) look(game *Avalanche, since time.Duration) {
	if since < time.Second {
		return // the render clock is still settling
	}
	boxes, tick, ok := v.client.View()
	if !ok {
		return
	}
	for i, b := range boxes {
		if truth, ok := game.Truth(i, tick); ok {
			v.errs = append(v.errs, b.Position.Sub(truth).Length())
		}
	}
}

// README: end

// Run plays a match as opts say.
func Run(ctx context.Context, opts Options) ([]ClientResult, error) {
	cfg := interp.DefaultConfig()
	game, err := NewAvalanche(opts.Boxes)
	if err != nil {
		return nil, err
	}
	var viewers []*viewer
	var traffic []netmodel.Traffic
	if opts.UDP {
		viewers, traffic, err = runUDP(ctx, cfg, game, opts)
	} else {
		viewers, traffic, err = runVirtual(cfg, game, opts)
	}
	if err != nil {
		return nil, err
	}
	var out []ClientResult
	for i, v := range viewers {
		c := v.client.Counters()
		r := ClientResult{Frames: c.Frames, Dry: c.Dry, RenderDelay: v.client.RenderDelay(), DownKbps: traffic[i].DownKbps(opts.Duration)}
		if len(v.errs) > 0 {
			slices.Sort(v.errs)
			r.ErrorP95, r.ErrorMax = v.errs[len(v.errs)*95/100], v.errs[len(v.errs)-1]
		}
		out = append(out, r)
	}
	return out, nil
}

// runVirtual plays in virtual time over the network simulator.
func runVirtual(cfg interp.Config, game *Avalanche, opts Options) ([]*viewer, []netmodel.Traffic, error) {
	// README: interp-virtual
	srv, err := interp.NewServer(cfg, game, simmatch.Epoch)
	if err != nil {
		return nil, nil, err
	}
	cond := netsim.Conditions{Latency: opts.RTT / 2, Loss: opts.Loss}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: opts.Seed, Conditions: cond}, Frame: cfg.TickInterval}, srv)
	if err != nil {
		return nil, nil, err
	}
	var viewers []*viewer
	for range opts.Clients {
		c, err := interp.NewClient(cfg, game.Objects(), m.Now())
		if err != nil {
			return nil, nil, err
		}
		if _, err := m.Join(c); err != nil {
			return nil, nil, err
		}
		viewers = append(viewers, &viewer{client: c})
	}
	for m.Elapsed() < opts.Duration {
		if err := m.Run(cfg.TickInterval); err != nil {
			return nil, nil, err
		}
		for _, v := range viewers {
			v.look(game, m.Elapsed())
		}
	}
	// README: end
	var traffic []netmodel.Traffic
	for i := range viewers {
		traffic = append(traffic, m.Traffic(i))
	}
	return viewers, traffic, nil
}

// runUDP plays over real UDP on loopback: a netcode server around the
// interp server, a netcode client per viewer, all stepped by one
// udpdrive.Run, as separate processes would be by one each.
func runUDP(ctx context.Context, cfg interp.Config, game *Avalanche, opts Options) ([]*viewer, []netmodel.Traffic, error) {
	quiet := slog.New(slog.DiscardHandler)
	var key netcode.Key
	if _, err := rand.Read(key[:]); err != nil {
		return nil, nil, err
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, nil, err
	}
	start := time.Now()
	model, err := interp.NewServer(cfg, game, start)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	scfg := udpdrive.DefaultServerConfig()
	scfg.Logger = quiet
	scfg.Transport.Netcode.PrivateKey = key
	scfg.Transport.Netcode.MaxClients = max(opts.Clients, 1)
	srv, err := udpdrive.NewServer(model, conn, scfg)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	defer srv.Close()

	viewers := make([]*viewer, opts.Clients)
	drivers := make([]*udpdrive.Client, opts.Clients)
	sides := []udpdrive.Stepper{srv}
	for i := range viewers {
		p := netcode.DefaultTokenParams()
		p.ClientID = netcode.ClientID(1 + i)
		p.ServerAddresses = []netip.AddrPort{srv.Transport().Addr()}
		tok, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
		if err != nil {
			return nil, nil, err
		}
		ccfg := udpdrive.DefaultClientConfig()
		ccfg.Logger = quiet
		drivers[i], err = udpdrive.Dial(ctx, tok, func(int) (netmodel.Client, error) {
			c, err := interp.NewClient(cfg, game.Objects(), time.Now())
			viewers[i] = &viewer{client: c}
			return c, err
		}, ccfg)
		if err != nil {
			return nil, nil, err
		}
		defer drivers[i].Close()
		sides = append(sides, drivers[i])
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Duration)
	defer cancel()
	// The server, its game and the viewers all belong to Run's goroutine:
	// after reads them between frames, without locks.
	err = udpdrive.Run(ctx, cfg.TickInterval, func(now time.Time) (bool, error) {
		for _, v := range viewers {
			v.look(game, now.Sub(start))
		}
		return false, nil
	}, sides...)
	if err != nil {
		return nil, nil, err
	}
	var traffic []netmodel.Traffic
	for _, d := range drivers {
		traffic = append(traffic, d.Traffic())
	}
	return viewers, traffic, nil
}

func main() {
	if err := command(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// command is the program: flags in, each client's figures out.
func command(args []string, out io.Writer) error {
	opts := Options{}
	fs := flag.NewFlagSet("avalanche", flag.ContinueOnError)
	fs.IntVar(&opts.Boxes, "boxes", 40, "boxes on the ramp")
	fs.IntVar(&opts.Clients, "clients", 2, "clients drawing them")
	fs.DurationVar(&opts.Duration, "duration", 30*time.Second, "how long to run")
	fs.DurationVar(&opts.RTT, "rtt", 100*time.Millisecond, "simulated round trip")
	fs.Float64Var(&opts.Loss, "loss", 0.05, "simulated loss each way, 0-1")
	fs.Uint64Var(&opts.Seed, "seed", 1, "seed of the simulated network")
	fs.BoolVar(&opts.UDP, "udp", false, "run over real UDP on loopback, in real time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if opts.Boxes < 1 || opts.Clients < 1 || opts.Duration <= 0 {
		return fmt.Errorf("avalanche: -boxes %d, -clients %d and -duration %v must be positive", opts.Boxes, opts.Clients, opts.Duration)
	}
	rs, err := Run(context.Background(), opts)
	if err != nil {
		return err
	}
	for i, r := range rs {
		fmt.Fprintf(out, "client %d: %d frames, %.2f %% dry, render delay %v, %.0f kbps down, error p95 %.1f mm, max %.1f mm\n",
			i, r.Frames, 100*float64(r.Dry)/float64(max(r.Frames, 1)), r.RenderDelay.Round(time.Millisecond), r.DownKbps, 1000*r.ErrorP95, 1000*r.ErrorMax)
	}
	return nil
}
