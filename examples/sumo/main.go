// Command sumo is hovercraft sumo on client prediction with server
// reconciliation, an outside game plugged into netphys through its public
// packages only: the game (game.go) implements predict.Game for its own
// input type, Stick, and joins crafts as their players connect
// (predict.Joiner). This file runs a match of bots, either in virtual
// time over the network simulator (the default: the same match every
// time, in a fraction of the time) or over real UDP on loopback (-udp),
// with netcode connect tokens.
//
//	go run ./examples/sumo -players 3 -duration 60s -rtt 120ms -loss 0.05
//	go run ./examples/sumo -udp -duration 5s
//
// Each client steps its own craft at once from its stick, ahead of the
// server by its one-way delay, and shows the others as the server had
// them a few ticks ago; when the server's state disagrees with what it
// predicted it rewinds to that state and steps again (reconciliation).
// The program prints what that cost: how many predictions the server
// confirmed, how many it corrected clear of other crafts and near a bump,
// how far. Knockouts are announced by the server only once they left its
// window, when no late input can rewrite them. At the end the bots let
// go, the crafts come to rest, and every client's world must equal the
// server's to the quantization.
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
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/netsim"
)

// Options say what match to run.
type Options struct {
	Players  int           // 1 to 4 bots
	Duration time.Duration // of play
	Settle   time.Duration // then the bots let go for this long, and the worlds are compared
	RTT      time.Duration // simulated round trip (virtual time only)
	Jitter   time.Duration // simulated jitter each way (virtual time only)
	Loss     float64       // simulated loss each way, 0–1 (virtual time only)
	Seed     uint64        // of the simulated network
	UDP      bool          // real UDP on loopback instead of the simulator
	Out      io.Writer     // where knockouts are announced; nil: nowhere
}

// Result is what a match produced.
type Result struct {
	Clients []predict.ClientStats // per player, in joining order
	Server  predict.ServerCounters
	Score   [slots]int32 // the server's
	KOs     []KO         // the knockouts announced, in order
	// Apart is the largest distance, m, between a craft as a client has
	// it (its own predicted, the others as shown) and as the server has
	// it, after the crafts came to rest; Resting says whether they all
	// had.
	Apart   float64
	Resting bool
	// Absent counts the crafts a client has in the game or out of it
	// unlike the server, at the end.
	Absent int
}

// README: predict-player

// player is one client, the game it predicts and its bot.
type player struct {
	client *predict.Client[Stick, *Stick]
	game   *Sumo
}

// newPlayer returns a client whose bot drives until *stop. The control
// function gets the client's View: the others as shown, its own craft
// as predicted.
func newPlayer(cfg predict.Config, index int, stop *bool, now time.Time) (*player, error) {
	pl := &player{game: NewSumo()}
	bias := 0.25 * float64(index-1) // each bot comes in at its own angle
	control := func(_ predict.Tick, v *predict.View) Stick {
		if *stop {
			return Stick{} // the zero input: do nothing
		}
		return Bot(v, bias)
	}
	var err error
	pl.client, err = predict.NewClient[Stick](cfg, pl.game, control, now)
	return pl, err
}

// README: end

// README: predict-host

// host is the server and its announcer: a knockout is final once its
// tick left the window, since until then a late input can rewind the
// server through it and rewrite it. The log is part of the game's state,
// so a rewind that undoes a knockout removes it from the log.
type host struct {
	srv       *predict.Server[Stick, *Stick]
	game      *Sumo
	window    int32 // ticks
	announced []KO
	out       io.Writer
}

func (h *host) announce() {
	for _, ko := range h.game.Log()[len(h.announced):] {
		if h.game.Tick-ko.Tick <= h.window {
			return
		}
		h.announced = append(h.announced, ko)
		if h.out == nil {
			continue
		}
		if ko.By == noCraft {
			fmt.Fprintf(h.out, "%6.2f s: craft %d slid off the rink\n", float64(ko.Tick)*dt, ko.Out)
		} else {
			fmt.Fprintf(h.out, "%6.2f s: craft %d knocked craft %d off the rink\n", float64(ko.Tick)*dt, ko.By, ko.Out)
		}
	}
}

// README: end

// Run plays a match as opts say.
func Run(ctx context.Context, opts Options) (Result, error) {
	cfg := predict.DefaultConfig()
	h := &host{game: NewSumo(), window: int32(cfg.Window * time.Duration(cfg.TickRate) / time.Second), out: opts.Out}
	stop := new(bool)
	var players []*player
	var err error
	if opts.UDP {
		players, err = runUDP(ctx, cfg, h, stop, opts)
	} else {
		players, err = runVirtual(cfg, h, stop, opts)
	}
	if err != nil {
		return Result{}, err
	}
	r := Result{Server: h.srv.Counters(), Score: h.game.Score, KOs: h.announced, Resting: true}
	for _, pl := range players {
		r.Clients = append(r.Clients, pl.client.Stats())
		// A client predicts its own craft; the others it shows as the
		// server sent them (its own world's copies of far crafts are
		// left alone until they come near).
		shown := pl.client.Shown()
		for i := range slots {
			if shown.Present[i] != h.srv.Present(i) {
				r.Absent++
			}
			if !h.srv.Present(i) {
				continue // no craft on the rink: its body is not sent
			}
			a, b := shown.Bodies[i], h.game.Body(i)
			if i == pl.client.You() {
				a = pl.game.Body(i)
			}
			r.Apart = max(r.Apart, a.Position.Sub(b.Position).Length())
			r.Resting = r.Resting && a.AtRest && b.AtRest
		}
	}
	return r, nil
}

// runVirtual plays in virtual time over the network simulator.
func runVirtual(cfg predict.Config, h *host, stop *bool, opts Options) ([]*player, error) {
	// README: predict-virtual
	var err error
	h.srv, err = predict.NewServer[Stick](cfg, h.game, simmatch.Epoch)
	if err != nil {
		return nil, err
	}
	cond := netsim.Conditions{Latency: opts.RTT / 2, Jitter: opts.Jitter, Loss: opts.Loss}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: opts.Seed, Conditions: cond}}, h.srv)
	if err != nil {
		return nil, err
	}
	var players []*player
	for i := range opts.Players {
		pl, err := newPlayer(cfg, i, stop, m.Now())
		if err != nil {
			return nil, err
		}
		// The server spawns the slot's craft (predict.Joiner).
		if _, err := m.Join(pl.client); err != nil {
			return nil, err
		}
		players = append(players, pl)
	}
	for m.Elapsed() < opts.Duration+opts.Settle {
		*stop = m.Elapsed() >= opts.Duration
		if err := m.Run(time.Second / 60); err != nil {
			return nil, err
		}
		h.announce()
	}
	// README: end
	return players, nil
}

// runUDP plays over real UDP on loopback: a netcode server around the
// predict server and a netcode client per player, all stepped by one
// udpdrive.Run, as separate processes would be by one each.
func runUDP(ctx context.Context, cfg predict.Config, h *host, stop *bool, opts Options) ([]*player, error) {
	quiet := slog.New(slog.DiscardHandler)
	var key netcode.Key
	if _, err := rand.Read(key[:]); err != nil {
		return nil, err
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	h.srv, err = predict.NewServer[Stick](cfg, h.game, start)
	if err != nil {
		conn.Close()
		return nil, err
	}
	scfg := udpdrive.DefaultServerConfig()
	scfg.Logger = quiet
	scfg.Transport.Netcode.PrivateKey = key
	scfg.Transport.Netcode.MaxClients = slots
	srv, err := udpdrive.NewServer(h.srv, conn, scfg)
	if err != nil {
		conn.Close()
		return nil, err
	}
	defer srv.Close()

	players := make([]*player, opts.Players)
	sides := []udpdrive.Stepper{srv}
	for i := range players {
		p := netcode.DefaultTokenParams()
		p.ClientID = netcode.ClientID(1 + i)
		p.ServerAddresses = []netip.AddrPort{srv.Transport().Addr()}
		tok, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
		if err != nil {
			return nil, err
		}
		ccfg := udpdrive.DefaultClientConfig()
		ccfg.Logger = quiet
		c, err := udpdrive.Dial(ctx, tok, func(int) (netmodel.Client, error) {
			pl, err := newPlayer(cfg, i, stop, time.Now())
			players[i] = pl
			if err != nil {
				return nil, err
			}
			return pl.client, nil
		}, ccfg)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		sides = append(sides, c)
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Duration+opts.Settle)
	defer cancel()
	// The server, the games and the bots all belong to Run's goroutine:
	// after reads and sets them between frames, without locks.
	err = udpdrive.Run(ctx, udpdrive.DefaultFrame, func(now time.Time) (bool, error) {
		*stop = now.Sub(start) >= opts.Duration
		h.announce()
		return false, nil
	}, sides...)
	if err != nil {
		return nil, err
	}
	for i, pl := range players {
		if pl == nil || !pl.client.Started() {
			return nil, fmt.Errorf("sumo: player %d had no state from the server before the end", i)
		}
	}
	return players, nil
}

// Check returns an error unless the match did what client prediction
// promises: the server confirmed nearly every prediction made clear of
// other crafts, the announced knockouts add up to the score, and after
// the crafts came to rest every client's world is the server's.
func (r *Result) Check() error {
	for i, st := range r.Clients {
		if st.Compared == 0 {
			return fmt.Errorf("sumo: client %d had no prediction checked", i)
		}
		if float64(st.Mispredicted) > 0.02*float64(st.Compared) {
			return fmt.Errorf("sumo: client %d: %d of %d predictions clear of other crafts corrected", i, st.Mispredicted, st.Compared)
		}
		if st.BadPackets != 0 {
			return fmt.Errorf("sumo: client %d dropped %d packets", i, st.BadPackets)
		}
	}
	var score [slots]int32
	for _, ko := range r.KOs {
		if ko.By != noCraft {
			score[ko.By]++
		}
	}
	for p := range score {
		if score[p] > r.Score[p] {
			return fmt.Errorf("sumo: knockouts announced %v for a score of %v", score, r.Score)
		}
	}
	if r.Absent != 0 {
		return fmt.Errorf("sumo: at the end, %d crafts are in the game for a client and not for the server, or the other way round", r.Absent)
	}
	if !r.Resting {
		return errors.New("sumo: the crafts did not come to rest: settle longer (-settle)")
	}
	if r.Apart > 1.0/256 {
		return fmt.Errorf("sumo: at rest, a client's craft is %.4f m from the server's", r.Apart)
	}
	return nil
}

func main() {
	if err := command(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// command is the program: flags in, knockouts and each client's figures
// out.
func command(args []string, out io.Writer) error {
	var opts Options
	fs := flag.NewFlagSet("sumo", flag.ContinueOnError)
	fs.IntVar(&opts.Players, "players", 3, "bots on the rink, 1-4")
	fs.DurationVar(&opts.Duration, "duration", 60*time.Second, "how long to play")
	fs.DurationVar(&opts.Settle, "settle", 4*time.Second, "how long the crafts get to come to rest before the worlds are compared")
	fs.DurationVar(&opts.RTT, "rtt", 120*time.Millisecond, "simulated round trip")
	fs.DurationVar(&opts.Jitter, "jitter", 10*time.Millisecond, "simulated jitter each way")
	fs.Float64Var(&opts.Loss, "loss", 0.05, "simulated loss each way, 0-1")
	fs.Uint64Var(&opts.Seed, "seed", 1, "seed of the simulated network")
	fs.BoolVar(&opts.UDP, "udp", false, "play over real UDP on loopback, in real time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case opts.Players < 1 || opts.Players > slots:
		return fmt.Errorf("sumo: -players %d: want 1 to %d", opts.Players, slots)
	case opts.Duration <= 0 || opts.Settle < 0:
		return fmt.Errorf("sumo: -duration %v must be positive and -settle %v not negative", opts.Duration, opts.Settle)
	case !(opts.Loss >= 0 && opts.Loss < 1) || opts.RTT < 0 || opts.Jitter < 0:
		return fmt.Errorf("sumo: -loss %v must be in [0, 1), -rtt %v and -jitter %v not negative", opts.Loss, opts.RTT, opts.Jitter)
	}
	opts.Out = out
	r, err := Run(context.Background(), opts)
	if err != nil {
		return err
	}
	if err := r.Check(); err != nil {
		return err
	}
	for i, st := range r.Clients {
		fmt.Fprintf(out, "client %d: %d predictions checked clear of other crafts, %d corrected; %d near a bump, %d corrected; %d reconciliations re-simulating %d ticks; largest correction %.2f m\n",
			i, st.Compared, st.Mispredicted, st.ComparedContact, st.MispredictedContact, st.Reconciles, st.ResimTicks, st.CorrectionMax)
	}
	s := r.Server
	_, err = fmt.Fprintf(out, "score %v after %d knockouts; server: %d ticks, %d inputs late (%d rewinds), %d guessed; at rest, the clients' worlds are the server's to %.4f m\n",
		r.Score[:opts.Players], len(r.KOs), s.Ticks, s.InputsLate, s.Rewinds, s.InputsGuessed, r.Apart)
	return err
}
