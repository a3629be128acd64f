package simmatch_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire"
)

// add is the input of the examples' game: a number from 0 to 3.
type add struct{ N uint8 }

// Serialize writes, reads and measures an add in 2 bits; reading rejects
// nothing, since every 2-bit value is valid.
func (a *add) Serialize(s wire.Stream) error { return wire.SerializeInt(s, &a.N, 0, 3) }

// tally is the examples' game, deterministic by construction: each
// player's input is added to its score every tick.
type tally struct {
	ticks int
	score []int
	// sum100 is the checksum after 100 ticks, kept to compare the players.
	sum100 uint64
}

func (g *tally) Step(inputs []add) {
	if g.score == nil {
		g.score = make([]int, len(inputs))
	}
	for p, in := range inputs {
		g.score[p] += int(in.N)
	}
	g.ticks++
	if g.ticks == 100 {
		g.sum100 = g.Checksum()
	}
}

func (g *tally) Checksum() uint64 {
	h := uint64(g.ticks)
	for _, s := range g.score {
		h = h*1000003 + uint64(s)
	}
	return h
}

// Pure lockstep never saves or loads.
func (g *tally) Save(slot int) {}
func (g *tally) Load(slot int) {}

// A two-player lockstep match over 100 ms of round trip and 5 % loss
// each way, in virtual time: 20 seconds of play run in a few
// milliseconds, the same way every time.
func Example() {
	cfg := lockstep.DefaultConfig()
	cfg.Players = 2
	srv, err := lockstep.NewServer[add](cfg, simmatch.Epoch)
	if err != nil {
		panic(err)
	}
	bad := netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.05}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 1, Conditions: bad}}, srv)
	if err != nil {
		panic(err)
	}
	var games []*tally
	for p := range 2 {
		g := &tally{}
		bot := func(t lockstep.Tick, _ *lockstep.View) add { return add{N: uint8((int(t) + p) % 4)} }
		c, err := lockstep.NewClient[add](cfg, g, bot, m.Now())
		if err != nil {
			panic(err)
		}
		if _, err := m.Join(c); err != nil {
			panic(err)
		}
		games = append(games, g)
	}
	if err := m.Run(20 * time.Second); err != nil {
		panic(err)
	}
	fmt.Println("virtual time:", m.Elapsed())
	fmt.Println("both past tick 100:", games[0].ticks > 100 && games[1].ticks > 100)
	fmt.Println("checksums agree:", games[0].sum100 == games[1].sum100)
	fmt.Println("datagrams up and down:", m.Traffic(0).UpPackets > 0, m.Traffic(0).DownPackets > 0)
	// Output:
	// virtual time: 20s
	// both past tick 100: true
	// checksums agree: true
	// datagrams up and down: true true
}

// A lockstep session waits for Config.Players: with 4 expected and 2
// joined it never starts, and Run says so once Config.StartWithin has
// passed instead of returning nil.
func ExampleMatch_Run_notStarted() {
	cfg := lockstep.DefaultConfig() // 4 players
	srv, err := lockstep.NewServer[add](cfg, simmatch.Epoch)
	if err != nil {
		panic(err)
	}
	m, err := simmatch.New(simmatch.Config{StartWithin: 5 * time.Second}, srv)
	if err != nil {
		panic(err)
	}
	for range 2 {
		c, err := lockstep.NewClient[add](cfg, &tally{}, func(lockstep.Tick, *lockstep.View) add { return add{} }, m.Now())
		if err != nil {
			panic(err)
		}
		if _, err := m.Join(c); err != nil {
			panic(err)
		}
	}
	err = m.Run(time.Minute)
	fmt.Println(errors.Is(err, simmatch.ErrNotStarted))
	fmt.Println(m.Elapsed() < 6*time.Second)
	// Output:
	// true
	// true
}
