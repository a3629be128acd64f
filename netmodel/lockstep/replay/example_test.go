package replay_test

import (
	"bytes"
	"fmt"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
	"github.com/netphys/netphys/wire"
)

// key is the example game's input: a button held or not.
type key struct{ Down bool }

func (k *key) Serialize(s wire.Stream) error { return wire.SerializeBool(s, &k.Down) }

// counters is the example game: each player's counter goes up while
// its button is held. It implements lockstep.Game and replay.Inspector.
type counters struct {
	n     [2]int
	saved [][2]int
}

func (g *counters) Step(in []key) {
	for p, k := range in {
		if k.Down {
			g.n[p]++
		}
	}
}
func (g *counters) Checksum() uint64 { return uint64(g.n[0])<<32 | uint64(g.n[1]) }
func (g *counters) Save(slot int) {
	for len(g.saved) <= slot {
		g.saved = append(g.saved, [2]int{})
	}
	g.saved[slot] = g.n
}
func (g *counters) Load(slot int) { g.n = g.saved[slot] }
func (g *counters) Objects() int  { return 2 }
func (g *counters) Inspect(i int, dst []replay.Field) (string, []replay.Field) {
	return fmt.Sprintf("counter %d", i), append(dst, replay.Field{Name: "value", Value: float64(g.n[i])})
}

// Record a match by wrapping the game the session steps, read it back,
// verify it, and compare two parties' recordings.
func Example() {
	cfg := lockstep.DefaultConfig()
	cfg.Players = 2
	record := func(party string, cheat bool) *replay.Replay[key] {
		var file bytes.Buffer
		rec, _ := replay.NewRecorder[key](&file, replay.NewHeader(cfg, "counters", "", party))
		game := rec.Wrap(&counters{}) // give this to lockstep.NewClient, or to the server's referee
		for t := range 100 {
			in := []key{{Down: t%3 == 0}, {Down: t%5 == 0}}
			if cheat && t == 41 {
				in[1].Down = true
			}
			game.Step(in)
		}
		rec.Close()
		rep, err := replay.Read[key](&file)
		if err != nil {
			panic(err)
		}
		return rep
	}
	a := record("player 0", false)
	checked, agreed, _ := replay.Verify(a, lockstep.Game[key](&counters{}))
	fmt.Printf("%d ticks, %d bytes, %d of %d checksums agree\n", a.Ticks(), a.Size, agreed, checked)

	b := record("player 1", true)
	r, _ := replay.Diagnose(a, b, func(int) (lockstep.Game[key], error) { return &counters{}, nil })
	tick, diff, _ := r.First()
	fmt.Printf("first difference after tick %d: %s\n", tick, diff)
	// Output:
	// 100 ticks, 493 bytes, 100 of 100 checksums agree
	// first difference after tick 41: counter 1 (object 1), value: 9 against 10
}
