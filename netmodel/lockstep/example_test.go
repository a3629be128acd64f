package lockstep_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire"
)

// step is the input of the example's game: stay, or one cell forward.
type step struct{ Go bool }

func (s *step) Serialize(st wire.Stream) error { return wire.SerializeBool(st, &s.Go) }

// ring is the example's game: two runners on a ring of 60 cells, running
// opposite ways, one cell a tick when their input says so. When they land on the same
// cell it is a tag: an event the game records with its tick, and the
// runners go back to where they started.
type ring struct {
	state
	saved []state // the rollback slots
	// seen counts the tags Step simulated, re-simulations included: what
	// a game that played its sounds in Step would have played.
	seen int
}

type state struct {
	tick lockstep.Tick // the lockstep tick the next Step simulates
	at   [2]int
	tags int // the tags that happened, in Tags()[:tags]
	log  [64]lockstep.Tick
}

func (g *ring) Step(in []step) {
	if in[0].Go {
		g.at[0] = (g.at[0] + 1) % 60
	}
	if in[1].Go {
		g.at[1] = (g.at[1] + 59) % 60
	}
	if g.at[0] == g.at[1] {
		if g.tags < len(g.log) {
			g.log[g.tags] = g.tick
			g.tags++
		}
		g.seen++
		g.at = [2]int{0, 30}
	}
	g.tick++
}

func (g *ring) Checksum() uint64 {
	return uint64(g.tick)<<32 | uint64(g.at[0])<<16 | uint64(g.at[1])<<8 | uint64(g.tags)
}

// Save and Load copy the whole state, tags included: a tag undone by a
// rollback disappears from the log.
func (g *ring) Save(slot int) {
	for len(g.saved) <= slot {
		g.saved = append(g.saved, state{})
	}
	g.saved[slot] = g.state
}

func (g *ring) Load(slot int) { g.state = g.saved[slot] }

// Tags returns the ticks of the tags so far, some of them predicted.
func (g *ring) Tags() []lockstep.Tick { return g.log[:g.tags] }

// script is a bot: player p runs in bursts of a length of its own, so
// that the other client's predictions (the last input) are often wrong.
func script(player int, t lockstep.Tick) step {
	return step{Go: (int(t)/(5+4*player))%3 != 0}
}

func newRing() *ring {
	g := &ring{}
	g.at = [2]int{0, 30}
	return g
}

// Pure lockstep between two players over 40 ms of round trip: only the
// inputs cross the network, each client steps its own copy of the game
// once every player's input for the tick is known, and the copies stay
// identical, as the checksums the server compares prove.
func Example() {
	cfg := lockstep.DefaultConfig()
	cfg.Players = 2
	srv, err := lockstep.NewServer[step](cfg, simmatch.Epoch) // the relay: a netmodel.Server
	if err != nil {
		panic(err)
	}
	net := netsim.Conditions{Latency: 20 * time.Millisecond}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 1, Conditions: net}}, srv)
	if err != nil {
		panic(err)
	}
	var clients []*lockstep.Client[step, *step]
	for range 2 {
		bot := func(t lockstep.Tick, v *lockstep.View) step { return script(v.Player, t) } // v.Player: the index the server gave
		c, err := lockstep.NewClient[step](cfg, newRing(), bot, m.Now())                   // a netmodel.Client
		if err != nil {
			panic(err)
		}
		if _, err := m.Join(c); err != nil {
			panic(err)
		}
		clients = append(clients, c)
	}
	if err := m.Run(10 * time.Second); err != nil { // a desync would stop it with an error
		panic(err)
	}
	st := srv.Stats(m.Now())
	fmt.Println("running:", st.Running)
	fmt.Println("ticks whose checksums the server compared:", st.Verified > 0)
	fmt.Println("players:", clients[0].Player(), clients[1].Player())
	// Output:
	// running: true
	// ticks whose checksums the server compared: true
	// players: 0 1
}

// Rollback lockstep over 100 ms of round trip and 10 % loss: each client
// runs ahead of the other's inputs, predicting them, and re-simulates when
// a prediction was wrong.
//
// Three things an outside game must know. The input function gets the
// tick and a View: the player index the server gave this client, and
// whether the game it shows rests on predicted inputs. An effect that
// must happen once (a sound, a goal counter shown on screen) is played
// only for ticks before Stats().Confirmed, which no rollback can undo (a
// game that implements lockstep.Resimulator also learns which steps are
// re-simulations); the game's state itself (the tag log here) is saved
// and loaded with everything else. And lockstep tick n is the n+1-th
// Step: the state after tick n is the one Checksum sees once Tick() is
// n+1.
func Example_rollback() {
	cfg := lockstep.DefaultRollbackConfig()
	cfg.Players = 2
	srv, err := lockstep.NewServer[step](cfg, simmatch.Epoch)
	if err != nil {
		panic(err)
	}
	net := netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.1}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 7, Conditions: net}}, srv)
	if err != nil {
		panic(err)
	}
	type player struct {
		client *lockstep.Client[step, *step]
		game   *ring
		played []lockstep.Tick // the tags whose sound played
	}
	players := make([]*player, 2)
	for i := range players {
		pl := &player{game: newRing()}
		input := func(t lockstep.Tick, v *lockstep.View) step { return script(v.Player, t) }
		pl.client, err = lockstep.NewClient[step](cfg, pl.game, input, m.Now())
		if err != nil {
			panic(err)
		}
		if _, err := m.Join(pl.client); err != nil {
			panic(err)
		}
		players[i] = pl
	}
	for range 20 * 60 { // 20 s, one frame at a time, as a game loop would
		if err := m.Run(time.Second / 60); err != nil {
			panic(err)
		}
		for _, pl := range players {
			confirmed := pl.client.Stats().Confirmed
			for _, tick := range pl.game.Tags()[len(pl.played):] {
				if tick >= confirmed {
					break // predicted: a rollback may still undo it
				}
				pl.played = append(pl.played, tick) // play the sound here
			}
		}
	}

	// The same inputs offline, without a network.
	offline := newRing()
	for t := range lockstep.Tick(600) {
		offline.Step([]step{script(0, t), script(1, t)})
	}
	first600 := func(ticks []lockstep.Tick) []lockstep.Tick {
		return slices.DeleteFunc(slices.Clone(ticks), func(t lockstep.Tick) bool { return t >= 600 })
	}
	a, b := players[0], players[1]
	fmt.Println("rolled back:", a.client.Stats().Rollbacks > 0 && b.client.Stats().Rollbacks > 0)
	fmt.Println("tags in the first 600 ticks:", offline.Tags())
	fmt.Println("Step simulated some tags more than once:", a.game.seen+b.game.seen > len(a.game.Tags())+len(b.game.Tags()))
	fmt.Println("both played them once each:",
		slices.Equal(first600(a.played), offline.Tags()),
		slices.Equal(first600(b.played), offline.Tags()))
	// Output:
	// rolled back: true
	// tags in the first 600 ticks: [70 134 205 269 340 404 475 539]
	// Step simulated some tags more than once: true
	// both played them once each: true true
}
