// Command bulldozers is an outside co-op game on state synchronization
// with distributed authority (netmodel/statesync), plugged into netphys
// through its public packages only: every player drives a cube, a
// bulldozer, and together they push towers of crates over (game.go
// implements statesync.Game and statesync.Bodies, with no hands and no
// avatars). Each machine simulates the whole world; a player takes
// authority over its bulldozer by driving it and over the crates it
// pushes, so its own pushing shows with no latency. After play stops, it
// measures how long until every guest holds the host's world bit for bit,
// everything at rest under the default authority. It runs in virtual
// time over the network simulator (the same figures every time).
//
//	go run ./examples/bulldozers -players 4 -rtt 120ms -loss 0.1
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
)

// Options say what match to run.
type Options struct {
	Players        int // the host and Players-1 guests, 1-4
	Towers, Height int
	Play           time.Duration // how long the players drive
	Settle         time.Duration // how long to wait for convergence after
	RTT            time.Duration // simulated round trip
	Loss           float64       // simulated loss each way, 0-1
	Seed           uint64
}

// Result is what the match measured.
type Result struct {
	// Taken counts the crates some guest had authority over on the host
	// at some point (sampled every 50 ms): pushed by a remote player.
	Taken int
	// Moved counts the crates more than 30 cm from where they started.
	Moved int
	// Converged: every guest held the host's bits, everything at rest
	// under the default authority, ConvergedAfter the stop.
	Converged      bool
	ConvergedAfter time.Duration
	// UpKbps and DownKbps are per guest, the mean over the match.
	UpKbps, DownKbps []float64
	// Implausible and Forged are the host's counts of guest claims it
	// overruled or rejected.
	Implausible, Forged uint64
}

// Run plays a match as opts say.
func Run(opts Options) (Result, error) {
	if opts.Players < 1 || opts.Players > statesync.MaxPlayers || opts.Play <= 0 || opts.Settle <= 0 {
		return Result{}, fmt.Errorf("bulldozers: -players %d (1-%d), -play %v and -settle %v (positive)", opts.Players, statesync.MaxPlayers, opts.Play, opts.Settle)
	}
	hostGame, err := NewBulldozers(0, opts.Towers, opts.Height)
	if err != nil {
		return Result{}, err
	}
	start, _ := NewBulldozers(0, opts.Towers, opts.Height)
	host, err := statesync.NewHost(statesync.DefaultConfig(), hostGame)
	if err != nil {
		return Result{}, err
	}
	cond := netsim.Conditions{Latency: opts.RTT / 2, Loss: opts.Loss}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: opts.Seed, Conditions: cond}}, host)
	if err != nil {
		return Result{}, err
	}
	games := []*Bulldozers{hostGame}
	var guests []*statesync.Guest
	for p := statesync.Player(1); int(p) < opts.Players; p++ {
		g, err := NewBulldozers(p, opts.Towers, opts.Height)
		if err != nil {
			return Result{}, err
		}
		cfg := statesync.DefaultConfig()
		cfg.Player = p
		guest, err := statesync.NewGuest(cfg, g, m.Now())
		if err != nil {
			return Result{}, err
		}
		if _, err := m.Join(guest); err != nil {
			return Result{}, err
		}
		games, guests = append(games, g), append(guests, guest)
	}
	// Each player drives to the middle, behind its tower, then through
	// the tower and out.
	taken := make([]bool, hostGame.Objects())
	for p, g := range games {
		g.Drive, g.Target = true, TowerAt(p).Scale(0.3).Add(vecmath.V3(0, 0.5, 0))
	}
	for t := time.Duration(0); t < opts.Play; t += 50 * time.Millisecond {
		if t >= opts.Play/2 {
			for p, g := range games {
				g.Target = TowerAt(p).Scale(3).Add(vecmath.V3(0, 0.5, 0))
			}
		}
		if err := m.Run(50 * time.Millisecond); err != nil {
			return Result{}, err
		}
		for i := statesync.MaxPlayers; i < hostGame.Objects(); i++ {
			if a, _, _ := host.Authority(i); a != statesync.Nobody && a != statesync.OwnerOf(0) {
				taken[i] = true
			}
		}
	}
	var r Result
	for i := statesync.MaxPlayers; i < hostGame.Objects(); i++ {
		if taken[i] {
			r.Taken++
		}
		if hostGame.Object(i).Position.Sub(start.Object(i).Position).Length() > 0.3 {
			r.Moved++
		}
	}
	for _, g := range games {
		g.Drive = false
	}
	for t := time.Duration(0); t < opts.Settle; t += 100 * time.Millisecond {
		if err := m.Run(100 * time.Millisecond); err != nil {
			return Result{}, err
		}
		if converged(hostGame, host, games, guests) {
			r.Converged, r.ConvergedAfter = true, t+100*time.Millisecond
			break
		}
	}
	for k := range guests {
		tr := m.Traffic(k)
		r.UpKbps = append(r.UpKbps, tr.UpKbps(m.Elapsed()))
		r.DownKbps = append(r.DownKbps, tr.DownKbps(m.Elapsed()))
	}
	c := host.Counters()
	r.Implausible, r.Forged = c.Implausible, c.Forged
	return r, nil
}

// converged reports whether every guest holds the host's world bit for
// bit, every object at rest under the default authority everywhere.
func converged(hostGame *Bulldozers, host *statesync.Host, games []*Bulldozers, guests []*statesync.Guest) bool {
	for i := range hostGame.Objects() {
		s := hostGame.Object(i)
		if a, _, _ := host.Authority(i); !s.AtRest || a != statesync.Nobody {
			return false
		}
		for k, g := range guests {
			if a, _, _ := g.Authority(i); a != statesync.Nobody || games[k+1].Object(i) != s {
				return false
			}
		}
	}
	return true
}

func main() {
	if err := command(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// command is the program: flags in, the match's figures out.
func command(args []string, out io.Writer) error {
	opts := Options{}
	fs := flag.NewFlagSet("bulldozers", flag.ContinueOnError)
	fs.IntVar(&opts.Players, "players", 4, "players, the host included (1-4)")
	fs.IntVar(&opts.Towers, "towers", 4, "towers of crates (1-4)")
	fs.IntVar(&opts.Height, "height", 5, "crates a tower (1-10)")
	fs.DurationVar(&opts.Play, "play", 6*time.Second, "how long the players drive")
	fs.DurationVar(&opts.Settle, "settle", 20*time.Second, "how long to wait for convergence after play")
	fs.DurationVar(&opts.RTT, "rtt", 120*time.Millisecond, "simulated round trip")
	fs.Float64Var(&opts.Loss, "loss", 0.1, "simulated loss each way, 0-1")
	fs.Uint64Var(&opts.Seed, "seed", 1, "seed of the simulated network")
	if err := fs.Parse(args); err != nil {
		return err
	}
	r, err := Run(opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "crates pushed by guests %d, moved %d of %d\n", r.Taken, r.Moved, opts.Towers*opts.Height)
	if r.Converged {
		fmt.Fprintf(out, "every guest holds the host's bits, all at rest, %v after play\n", r.ConvergedAfter)
	} else {
		fmt.Fprintf(out, "NOT converged within %v after play\n", opts.Settle)
	}
	for k := range r.UpKbps {
		fmt.Fprintf(out, "guest %d: %.1f kbps up, %.1f kbps down\n", k+1, r.UpKbps[k], r.DownKbps[k])
	}
	fmt.Fprintf(out, "claims overruled %d, forged %d\n", r.Implausible, r.Forged)
	return nil
}
