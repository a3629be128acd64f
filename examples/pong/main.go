// Command pong is a two-player pong on rollback lockstep, an outside game
// plugged into netphys through its public packages only: the game (game.go)
// implements lockstep.Game, and this file runs a match of two bots either in
// virtual time over the network simulator (the default: a minute of play in
// a fraction of a second, the same every time) or over real UDP on
// loopback (-udp), with netcode connect tokens.
//
//	go run ./examples/pong -duration 60s -rtt 120ms -loss 0.05
//	go run ./examples/pong -udp -duration 5s
//	go run ./examples/pong -hosted -duration 5s
//
// With -hosted the match is the runtime's (package match, hosted.go): pong
// registers its model with it, and the runtime's server and players play
// it over UDP on loopback with tokens, as netphys's own games are played
// by `netphys serve` and `netphys play`.
//
// It shows the three things a rollback game must get right: inputs are
// read from the game the player sees, with the player's index the client
// passes to the input function; one-shot effects (here the
// "goal!" line, in a real game a sound) are played only for ticks no
// rollback can undo; and the match's outcome is checked, not assumed: both
// players must have seen the same goals, each once.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"slices"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/netsim"
)

// Options say what match to run.
type Options struct {
	Duration time.Duration // of play
	RTT      time.Duration // simulated round trip (virtual time only)
	Loss     float64       // simulated loss each way, 0–1 (virtual time only)
	Seed     uint64        // of the simulated network
	UDP      bool          // real UDP on loopback instead of the simulator
	Out      io.Writer     // where the goals are announced; nil: nowhere
}

// Result is what a match produced.
type Result struct {
	Score [2]int32 // the goals player 0's client announced, per scorer
	// Played are the goals each player's client announced, in order.
	Played [2][]Goal
	// Rollbacks and MaxResimulated are each client's.
	Rollbacks      [2]uint64
	MaxResimulated [2]int
	// Verified counts the ticks whose checksums the server compared and
	// found equal.
	Verified uint64
}

// README: player

// player is one client and the game it steps.
type player struct {
	client *lockstep.Client[Paddle, *Paddle]
	game   *Pong
	lag    int32 // how late the bot sees the ball, in ticks
	played []Goal
	out    io.Writer
}

func newPlayer(cfg lockstep.Config, index int, now time.Time, out io.Writer) (*player, error) {
	pl := &player{game: NewPong(), lag: int32(4 + 6*index), out: out}
	// The input function gets the tick and what the client knows: the
	// player's index (the server names it before the first input is
	// asked for) and whether the game shown is predicted.
	input := func(_ lockstep.Tick, v *lockstep.View) Paddle { return Bot(pl.game, v.Player, pl.lag) }
	var err error
	pl.client, err = lockstep.NewClient[Paddle](cfg, pl.game, input, now)
	return pl, err
}

// present plays the goals no rollback can undo any more: those of ticks
// before Confirmed. Played in Step they would be announced again when a
// rollback re-simulates them (a lockstep.Resimulator game is told which
// steps those are), and a predicted goal may still be undone.
func (pl *player) present() {
	confirmed := pl.client.Stats().Confirmed
	for _, g := range pl.game.Log()[len(pl.played):] {
		if g.Tick >= confirmed {
			return
		}
		pl.played = append(pl.played, g)
		if pl.out != nil {
			fmt.Fprintf(pl.out, "player %d sees: goal for player %d at %.2f s\n",
				pl.client.Player(), g.Scorer, float64(g.Tick)/60)
		}
	}
}

// README: end

// Run plays a match as opts say.
func Run(ctx context.Context, opts Options) (Result, error) {
	cfg := lockstep.DefaultRollbackConfig()
	cfg.Players = 2
	var players []*player
	var r Result
	var err error
	if opts.UDP {
		players, r.Verified, err = runUDP(ctx, cfg, opts)
	} else {
		players, r.Verified, err = runVirtual(cfg, opts)
	}
	if err != nil {
		return Result{}, err
	}
	for i, pl := range players {
		st := pl.client.Stats()
		r.Played[i] = pl.played
		r.Rollbacks[i], r.MaxResimulated[i] = st.Rollbacks, st.MaxResimulated
	}
	for _, g := range players[0].played {
		r.Score[g.Scorer]++
	}
	return r, nil
}

// runVirtual plays in virtual time over the network simulator.
func runVirtual(cfg lockstep.Config, opts Options) ([]*player, uint64, error) {
	// README: virtual
	srv, err := lockstep.NewServer[Paddle](cfg, simmatch.Epoch)
	if err != nil {
		return nil, 0, err
	}
	cond := netsim.Conditions{Latency: opts.RTT / 2, Loss: opts.Loss}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: opts.Seed, Conditions: cond}}, srv)
	if err != nil {
		return nil, 0, err
	}
	var players []*player
	for i := range 2 {
		pl, err := newPlayer(cfg, i, m.Now(), opts.Out)
		if err != nil {
			return nil, 0, err
		}
		if _, err := m.Join(pl.client); err != nil {
			return nil, 0, err
		}
		players = append(players, pl)
	}
	for m.Elapsed() < opts.Duration {
		if err := m.Run(time.Second / 60); err != nil {
			return nil, 0, err
		}
		for _, pl := range players {
			pl.present()
		}
	}
	// README: end
	return players, srv.Stats(m.Now()).Verified, nil
}

// runUDP plays over real UDP on loopback: a netcode server with the
// lockstep relay, and a netcode client per player, all stepped by one
// udpdrive.Run, as separate processes would be by one each.
func runUDP(ctx context.Context, cfg lockstep.Config, opts Options) ([]*player, uint64, error) {
	quiet := slog.New(slog.DiscardHandler)
	// README: udp
	var key netcode.Key
	if _, err := rand.Read(key[:]); err != nil {
		return nil, 0, err
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, 0, err
	}
	relay, err := lockstep.NewServer[Paddle](cfg, time.Now())
	if err != nil {
		conn.Close()
		return nil, 0, err
	}
	scfg := udpdrive.DefaultServerConfig()
	scfg.Logger = quiet
	scfg.Transport.Netcode.PrivateKey = key
	scfg.Transport.Netcode.MaxClients = cfg.Players
	srv, err := udpdrive.NewServer(relay, conn, scfg)
	if err != nil {
		conn.Close()
		return nil, 0, err
	}
	defer srv.Close()

	players := make([]*player, 2)
	sides := []udpdrive.Stepper{srv}
	for i := range players {
		p := netcode.DefaultTokenParams()
		p.ClientID = netcode.ClientID(1 + i)
		p.ServerAddresses = []netip.AddrPort{srv.Transport().Addr()}
		tok, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
		if err != nil {
			return nil, 0, err
		}
		ccfg := udpdrive.DefaultClientConfig()
		ccfg.Logger = quiet
		c, err := udpdrive.Dial(ctx, tok, func(int) (netmodel.Client, error) {
			pl, err := newPlayer(cfg, i, time.Now(), opts.Out)
			players[i] = pl
			if err != nil {
				return nil, err
			}
			return pl.client, nil
		}, ccfg)
		if err != nil {
			return nil, 0, err
		}
		defer c.Close()
		sides = append(sides, c)
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Duration)
	defer cancel()
	err = udpdrive.Run(ctx, udpdrive.DefaultFrame, func(time.Time) (bool, error) {
		for _, pl := range players {
			pl.present()
		}
		return false, nil
	}, sides...)
	// README: end
	if err != nil {
		return nil, 0, err
	}
	if !players[0].client.Running() || !players[1].client.Running() {
		return nil, 0, errors.New("pong: the session did not start before the end")
	}
	return players, relay.Stats(time.Now()).Verified, nil
}

// Check returns an error unless both players announced the same goals, in
// the same order: what lockstep promises, rollbacks included.
func (r *Result) Check() error {
	n := min(len(r.Played[0]), len(r.Played[1]))
	if !slices.Equal(r.Played[0][:n], r.Played[1][:n]) {
		return fmt.Errorf("pong: the players saw different goals: %v and %v", r.Played[0], r.Played[1])
	}
	return nil
}

func main() {
	if err := command(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// command is the program: flags in, the match's goals and summary out.
func command(args []string, out io.Writer) error {
	var opts Options
	fs := flag.NewFlagSet("pong", flag.ContinueOnError)
	fs.DurationVar(&opts.Duration, "duration", 60*time.Second, "how long to play")
	fs.DurationVar(&opts.RTT, "rtt", 120*time.Millisecond, "simulated round trip")
	fs.Float64Var(&opts.Loss, "loss", 0.05, "simulated loss each way, 0-1")
	fs.Uint64Var(&opts.Seed, "seed", 1, "seed of the simulated network")
	fs.BoolVar(&opts.UDP, "udp", false, "play over real UDP on loopback, in real time")
	hosted := fs.Bool("hosted", false, "play over real UDP on loopback with the runtime (package match) hosting pong's model")
	models := match.DeclareFlags(fs, match.Defaults{Model: "pong", Players: 2})
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *hosted {
		return commandHosted(models, opts.Duration, out)
	}
	if opts.Duration <= 0 || !(opts.Loss >= 0 && opts.Loss < 1) || opts.RTT < 0 {
		return fmt.Errorf("pong: -duration %v must be positive, -loss %v in [0, 1), -rtt %v not negative", opts.Duration, opts.Loss, opts.RTT)
	}
	opts.Out = out
	r, err := Run(context.Background(), opts)
	if err != nil {
		return err
	}
	if err := r.Check(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "score %d:%d; %d ticks' checksums compared by the server; rollbacks %d and %d, at most %d and %d ticks re-simulated in a frame\n",
		r.Score[0], r.Score[1], r.Verified, r.Rollbacks[0], r.Rollbacks[1], r.MaxResimulated[0], r.MaxResimulated[1])
	return err
}

// commandHosted plays the match the runtime's flags describe for d, the
// server and every player bots in this process, and prints their
// summaries.
func commandHosted(models *match.Flags, d time.Duration, out io.Writer) error {
	m, sides, err := models.Sides()
	if err != nil {
		return err
	}
	setup, err := models.Setup(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return err
	}
	h, err := RunHosted(context.Background(), m, sides, setup, int(d*60/time.Second))
	h.Server.Print(out)
	for _, p := range h.Players {
		p.Print(out)
	}
	if err != nil {
		return err
	}
	return h.Check()
}
