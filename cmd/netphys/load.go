package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/udpdrive"
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
	models := match.DeclareFlags(fs, match.Defaults{Model: "interp", Players: 64})
	var mint mintFlags
	mint.declare(fs)
	clients := fs.Int("clients", 64, "bot players to connect, 1 to 256")
	duration := fs.Duration("duration", 30*time.Second, "how long to play once every client is connected")
	connectTimeout := fs.Duration("connect-timeout", 20*time.Second, "give up connecting a client after this long")
	serverPID := fs.Int("server-pid", 0, "`pid` of the serve process on this machine (Linux): its CPU time over the run gives the server's cost per client (0: not measured)")
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
		agree := match.Agreement(m, sides, setup)
		started := time.Now()
		cs, players, err := dialLoad(ctx, *clients, p, &key, sides, setup, agree, *connectTimeout)
		for _, c := range cs {
			defer c.Close()
		}
		if err != nil {
			return loadDialError(ctx, err, len(cs), *clients, p, &key, time.Since(started))
		}
		slog.Info("load: connected", "model", m.Name, "clients", len(cs))
		steppers := make([]udpdrive.Stepper, len(cs))
		for i, c := range cs {
			steppers[i] = c
		}
		var cpu0 time.Duration
		if *serverPID != 0 {
			if cpu0, err = processCPU(*serverPID); err != nil {
				return err
			}
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
		d := time.Since(start)
		printLoad(stdoutOf(fs), cs, players, d)
		if *serverPID != 0 {
			cpu1, perr := processCPU(*serverPID)
			if perr != nil {
				return errors.Join(err, perr)
			}
			printServerCost(stdoutOf(fs), cpu1-cpu0, d, len(cs))
		} else {
			fmt.Fprintln(stdoutOf(fs), "server cost per client: not measured (give --server-pid of the serve process, or read its cpu line at the end of its summary)")
		}
		return err
	}
}

// loadDialError says how many clients could not connect and why, as
// connect says it ("nothing listens at ..."), from the first failure.
func loadDialError(ctx context.Context, err error, connected, n int, p netcode.TokenParams, key *netcode.Key, waited time.Duration) error {
	if ctx.Err() != nil {
		return err
	}
	first := err
	if j, ok := err.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) > 0 {
		first = j.Unwrap()[0]
	}
	tok, terr := netcode.GenerateConnectToken(&p, time.Now(), key, nil)
	if terr == nil {
		if e, ok := explainDial(first, tok, waited); ok {
			first = e
		}
	}
	return fmt.Errorf("load: %d of %d clients could not connect; the first: %w", n-connected, n, first)
}

// dialLoad connects n players at once, each with its own token.
func dialLoad(ctx context.Context, n int, p netcode.TokenParams, key *netcode.Key, sides match.Sides, setup match.Setup, agree string, timeout time.Duration) ([]*udpdrive.Client, []match.Player, error) {
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
			// The match the server plays: without it a server that checks
			// (every serve --model) never lets the client join.
			ccfg.Agree = agree
			cs[i], errs[i] = udpdrive.Dial(ctx, tok, func(slot int) (netmodel.Client, error) {
				ps := match.PlayerSetup{Setup: setup, Slot: slot, Bot: true}
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

// printLoad prints one line per client, its traffic and the model's
// figures, rounded, then the mean over the clients.
func printLoad(w io.Writer, cs []*udpdrive.Client, players []match.Player, d time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	now := time.Now()
	var (
		figs          []viewer.Figure
		down, up, cpu float64
		sums          []float64
	)
	order := make([]int, len(cs)) // by player number
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cs[a].Slot() - cs[b].Slot() })
	for k, i := range order {
		c := cs[i]
		figs = players[i].Figures(now, figs[:0])
		if k == 0 {
			fmt.Fprint(tw, "player\tdown kbps\tup kbps\tcpu ms/frame\t")
			for _, f := range figs {
				fmt.Fprintf(tw, "%s\t", strings.TrimSpace(f.Name+" "+f.Unit))
			}
			fmt.Fprintln(tw)
			sums = make([]float64, len(figs))
		}
		t := c.Traffic()
		down, up, cpu = down+t.DownKbps(d), up+t.UpKbps(d), cpu+ms(c.Cost().Mean())
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t", c.Slot()+1, match.Round(t.DownKbps(d)), match.Round(t.UpKbps(d)), match.Round(ms(c.Cost().Mean())))
		for j, f := range figs {
			fmt.Fprintf(tw, "%s\t", match.Round(f.Value))
			if j < len(sums) {
				sums[j] += f.Value
			}
		}
		fmt.Fprintln(tw)
	}
	if n := float64(len(cs)); n > 0 {
		fmt.Fprintf(tw, "mean\t%s\t%s\t%s\t", match.Round(down/n), match.Round(up/n), match.Round(cpu/n))
		for _, v := range sums {
			fmt.Fprintf(tw, "%s\t", match.Round(v/n))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// printServerCost prints the server's cost per client: its process's CPU
// time over the run, shared by the clients.
func printServerCost(w io.Writer, cpu, d time.Duration, clients int) {
	core := 100 * cpu.Seconds() / d.Seconds()
	fmt.Fprintf(w, "server cost: %s %% of a core for %d clients over %v: %s %% of a core, %s µs of CPU per second, per client\n",
		match.Round(core), clients, d.Round(time.Second), match.Round(core/float64(clients)),
		match.Round(1e6*cpu.Seconds()/d.Seconds()/float64(clients)))
}

// processCPU is the CPU time (user and system) process pid has used, from
// /proc/pid/stat (Linux; clock ticks of 1/100 s, Linux's USER_HZ).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("load: --server-pid %d: %w (it needs Linux and the serve process on this machine)", pid, err)
	}
	return parseProcCPU(string(b))
}

// parseProcCPU reads utime and stime, fields 14 and 15 of /proc/pid/stat,
// after the command name in parentheses (which may hold spaces).
func parseProcCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	f := strings.Fields(stat[i+1:])
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("load: /proc stat line %.40q has no CPU times", stat)
	}
	var ticks int64
	for _, s := range f[11:13] {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("load: /proc stat CPU time %q is not a count", s)
		}
		ticks += v
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
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
