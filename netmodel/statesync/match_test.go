package statesync

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
)

// testMatch is a host and three guests of the toy game over the simulator.
type testMatch struct {
	t      *testing.T
	m      *simmatch.Match
	host   *Host
	hg     *toyGame
	guests []*Guest
	gg     []*toyGame
}

func newTestMatch(t *testing.T, cubes int, cond netsim.Conditions) *testMatch {
	t.Helper()
	tm := &testMatch{t: t, hg: newToy(0, cubes)}
	var err error
	if tm.host, err = NewHost(DefaultConfig(), tm.hg); err != nil {
		t.Fatal(err)
	}
	if tm.m, err = simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 7, Conditions: cond}}, tm.host); err != nil {
		t.Fatal(err)
	}
	for p := Player(1); p < MaxPlayers; p++ {
		g := newToy(p, cubes)
		cfg := DefaultConfig()
		cfg.Player = p
		guest, err := NewGuest(cfg, g, tm.m.Now())
		if err != nil {
			t.Fatal(err)
		}
		if slot, err := tm.m.Join(guest); err != nil || slot != int(p)-1 {
			t.Fatalf("joined slot %d: %v", slot, err)
		}
		tm.guests, tm.gg = append(tm.guests, guest), append(tm.gg, g)
	}
	return tm
}

func (tm *testMatch) run(d time.Duration) {
	tm.t.Helper()
	if err := tm.m.Run(d); err != nil {
		tm.t.Fatal(err)
	}
}

// differing returns the objects whose quantized state differs between the
// host and any guest still in the match.
func (tm *testMatch) differing() []int {
	var out []int
	for i := range tm.host.objs {
		for _, g := range tm.guests {
			if g != nil && g.cur[i] != tm.host.cur[i] {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// handTo moves guest p's hand (p = 0 for the host) and sets its grip.
func (tm *testMatch) handTo(p Player, target vecmath.Vec3, grip bool) {
	g := tm.hg
	if p > 0 {
		g = tm.gg[p-1]
	}
	g.target, g.grip = target, grip
}

func TestGuestsConvergeBitForBitOnTheHost(t *testing.T) {
	tm := newTestMatch(t, 6, netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.25})
	for k, g := range tm.gg {
		// Each guest starts a little off, as a world built from a
		// slightly different state would.
		s := g.Object(k)
		s.Position = s.Position.Add(vecmath.V3(0.1, 0.3, 0))
		s.AtRest = false
		if err := g.SetObject(k, s); err != nil {
			t.Fatal(err)
		}
	}
	tm.run(4 * time.Second)
	if d := tm.differing(); len(d) != 0 {
		t.Fatalf("objects %v differ after 4 s", d)
	}
	for _, g := range tm.guests {
		for i := range g.objs {
			if s := g.game.Object(i); !s.AtRest {
				t.Fatalf("guest %d: object %d not at rest", g.cfg.Player, i)
			}
		}
	}
}

// throw has player p pick object i up, swing it towards +x and let go.
func (tm *testMatch) throw(p Player, i int) {
	tm.t.Helper()
	at := tm.hg.Object(i).Position.Add(vecmath.V3(0, 0.7, 0))
	tm.handTo(p, at, false)
	tm.run(1500 * time.Millisecond)
	tm.handTo(p, at, true)
	tm.run(100 * time.Millisecond)
	tm.handTo(p, at.Add(vecmath.V3(0, 2, 0)), true)
	tm.run(500 * time.Millisecond)
	tm.handTo(p, at.Add(vecmath.V3(4, 3, 0)), true)
	tm.run(200 * time.Millisecond)
	tm.handTo(p, at.Add(vecmath.V3(4, 3, 0)), false)
}

func TestThrownCubeIsTheThrowersUntilRestThenEveryonesBits(t *testing.T) {
	tm := newTestMatch(t, 6, netsim.Conditions{Latency: 125 * time.Millisecond, Loss: 0.25})
	tm.throw(1, 0)
	if _, holder, _ := tm.host.Authority(0); holder != Nobody {
		// still in the hand on the host, a round trip behind
		tm.run(400 * time.Millisecond)
	}
	tm.run(100 * time.Millisecond)
	if auth, holder, _ := tm.host.Authority(0); auth != OwnerOf(1) || holder != Nobody {
		t.Fatalf("host: thrown cube under %d held by %d", auth, holder)
	}
	tm.handTo(1, toyHome(1), false)
	tm.run(6 * time.Second)
	for i := range tm.host.objs {
		for _, n := range append([]*node{tm.host.node}, tm.guests[0].node, tm.guests[1].node, tm.guests[2].node) {
			if auth, holder, _ := n.Authority(i); auth != Nobody || holder != Nobody {
				t.Errorf("player %d: object %d under %d held by %d after rest", n.cfg.Player, i, auth, holder)
			}
		}
	}
	if d := tm.differing(); len(d) != 0 {
		t.Fatalf("objects %v differ", d)
	}
	hc, gc := tm.host.Counters(), tm.guests[0].Counters()
	if hc.GrabsWon != 1 || hc.Accepted == 0 || hc.Confirmed == 0 || gc.Confirmed == 0 || hc.Forged != 0 {
		t.Fatalf("host %+v\nguest %+v", hc, gc)
	}
	if s := tm.hg.Object(0).Position; s.X < tm.hg.Object(1).Position.X-1.5 {
		t.Fatalf("the cube did not fly: %v", s)
	}
}
