package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/netphys/netphys/internal/match"
	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/viewer"
)

func init() {
	register(&command{
		name:    "load",
		summary: "connect many bot players of a network model to a server from one process, for the server's cost per client",
		setup:   setupLoad,
	})
}

// setupLoad is `netphys load`: --clients bots in one process, each with
// its own netcode connection (tokens minted here with the server's key),
// stepped by one loop, so that a server's cost per client can be measured
// with 64 clients on a machine that cannot run 64 player processes.
func setupLoad(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	models := match.DeclareFlags(fs, match.Defaults{Model: "interp", Players: 64, Layout: scene.Cubes900, ModelLayout: scene.Cubes900})
	var mint mintFlags
	mint.declare(fs)
	clients := fs.Int("clients", 64, "bot players to connect, 1 to 256")
	duration := fs.Duration("duration", 30*time.Second, "how long to play once every client is connected")
	connectTimeout := fs.Duration("connect-timeout", 20*time.Second, "give up connecting a client after this long")
	ackOnly := fs.Bool("ack-only", false, "interp only: clients that acknowledge every snapshot packet without decoding it; the server's work is the same, this process's far less")
	return func(ctx context.Context, args []string) error {
		if *clients < 1 || *clients > 256 || *duration <= 0 || *connectTimeout <= 0 {
			return errors.New("load: --clients 1 to 256, --duration and --connect-timeout positive")
		}
		m, sides, err := models.Sides()
		if err != nil {
			return err
		}
		if *ackOnly {
			if m.Name != "interp" {
				return fmt.Errorf("load: --ack-only is for --model interp, whose clients send nothing but acks")
			}
			sides.NewPlayer = newAckPlayer
		}
		setup, err := models.Setup(slog.Default())
		if err != nil {
			return err
		}
		key, p, err := mint.params()
		if err != nil {
			return err
		}
		p.Expiry = time.Hour
		cs, players, err := dialLoad(ctx, *clients, p, &key, sides, setup, *connectTimeout)
		for _, c := range cs {
			defer c.Close()
		}
		if err != nil {
			return err
		}
		slog.Info("load: connected", "model", m.Name, "clients", len(cs))
		steppers := make([]udpdrive.Stepper, len(cs))
		for i, c := range cs {
			steppers[i] = c
		}
		start := time.Now()
		last := start
		err = udpdrive.Run(ctx, udpdrive.DefaultFrame, func(now time.Time) (bool, error) {
			if now.Sub(last) >= 5*time.Second {
				slog.Info("load", "elapsed", now.Sub(start).Round(time.Second))
				last = now
			}
			return now.Sub(start) >= *duration, nil
		}, steppers...)
		printLoad(stdoutOf(fs), cs, players, time.Since(start))
		return err
	}
}

// dialLoad connects n players at once, each with its own token.
func dialLoad(ctx context.Context, n int, p netcode.TokenParams, key *netcode.Key, sides match.Sides, setup match.Setup, timeout time.Duration) ([]*udpdrive.Client, []match.Player, error) {
	cs := make([]*udpdrive.Client, n)
	players := make([]match.Player, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		tp := p
		tp.ClientID = netcode.ClientID(i + 1)
		tok, err := netcode.GenerateConnectToken(&tp, time.Now(), key, nil)
		if err != nil {
			return nil, nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ccfg := udpdrive.DefaultClientConfig()
			ccfg.ConnectTimeout = timeout
			cs[i], errs[i] = udpdrive.Dial(ctx, tok, func(slot int) (netmodel.Client, error) {
				ps := match.PlayerSetup{Setup: setup, Slot: slot, Controls: &match.Bot{}}
				ps.Now = time.Now()
				pl, err := sides.NewPlayer(ps)
				players[i] = pl
				return pl, err
			}, ccfg)
		}()
	}
	wg.Wait()
	var ok []*udpdrive.Client
	var okp []match.Player
	for i := range n {
		if errs[i] == nil {
			ok, okp = append(ok, cs[i]), append(okp, players[i])
		}
	}
	return ok, okp, errors.Join(errs...)
}

// printLoad prints one line per client: its traffic and the model's
// figures.
func printLoad(w interface{ Write([]byte) (int, error) }, cs []*udpdrive.Client, players []match.Player, d time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	now := time.Now()
	var figs []viewer.Figure
	for i, c := range cs {
		figs = players[i].Figures(now, figs[:0])
		if i == 0 {
			fmt.Fprint(tw, "slot\tdown kbps\tup kbps\tcpu ms/frame\t")
			for _, f := range figs {
				fmt.Fprintf(tw, "%s\t", f.Name)
			}
			fmt.Fprintln(tw)
		}
		t := c.Traffic()
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.3f\t", c.Slot(), t.DownKbps(d), t.UpKbps(d), ms(c.Cost().Mean()))
		for _, f := range figs {
			fmt.Fprintf(tw, "%.2f %s\t", f.Value, f.Unit)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// ackPlayer acknowledges every packet of an interp server and decodes
// nothing: what the server's baselines depend on, without the cost of 64
// decoders in one process.
type ackPlayer struct {
	end   *reliable.Endpoint
	due   bool
	acked uint64
}

func newAckPlayer(s match.PlayerSetup) (match.Player, error) {
	end, err := reliable.NewEndpoint(interp.DefaultConfig().Reliable, s.Now)
	return &ackPlayer{end: end}, err
}

func (p *ackPlayer) Receive(now time.Time, d []byte) error {
	_, payload, err := p.end.ReceivePacket(now, d)
	if payload != nil {
		p.due = true
	}
	return err
}

func (p *ackPlayer) Update(now time.Time, send func([]byte)) error {
	if !p.due {
		return nil
	}
	p.due = false
	_, ds, err := p.end.SendPacket(now, nil)
	for _, d := range ds {
		send(d)
	}
	p.acked++
	return err
}

func (p *ackPlayer) Views(dst []viewer.View) []viewer.View { return dst }

func (p *ackPlayer) Figures(_ time.Time, dst []viewer.Figure) []viewer.Figure {
	return append(dst, viewer.Figure{Name: "ack packets", Value: float64(p.acked)})
}

func (p *ackPlayer) Summary(_ time.Time, dst []match.Line) []match.Line { return dst }

func (p *ackPlayer) Done() bool { return false }
