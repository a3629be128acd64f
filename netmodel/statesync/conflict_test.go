package statesync

import (
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
)

func (tm *testMatch) node(p Player) *node {
	if p == 0 {
		return tm.host.node
	}
	return tm.guests[p-1].node
}

func (tm *testMatch) holding(p Player) Held {
	if p == 0 {
		return tm.hg.avatars[0].Parts[1].Held
	}
	return tm.gg[p-1].avatars[p].Parts[1].Held
}

func TestSimultaneousGrabGoesToOnePlayer(t *testing.T) {
	tm := newTestMatch(t, 6, netsim.Conditions{Latency: 60 * time.Millisecond})
	top := tm.hg.Object(2).Position.Add(vecmath.V3(0, 0.7, 0))
	tm.handTo(1, top, false)
	tm.handTo(2, top, false)
	tm.run(2 * time.Second)
	tm.handTo(1, top, true)
	tm.handTo(2, top, true) // the same tick on both machines
	tm.run(50 * time.Millisecond)
	if !tm.holding(1).Holding || !tm.holding(2).Holding {
		t.Fatal("each guest should first hold the cube on its own machine")
	}
	tm.run(2 * time.Second)
	_, holder, _ := tm.host.Authority(2)
	winner, ok := holder.Player()
	if !ok || (winner != 1 && winner != 2) {
		t.Fatalf("host gave the cube to %d", holder)
	}
	loser := 3 - winner
	if !tm.holding(winner).Holding || tm.holding(loser).Holding {
		t.Fatalf("winner %d holds %v, loser holds %v", winner, tm.holding(winner), tm.holding(loser))
	}
	for p := range Player(MaxPlayers) {
		if _, h, _ := tm.node(p).Authority(2); h != holder {
			t.Errorf("player %d thinks %d holds it, the host says %d", p, h, holder)
		}
	}
	if tm.node(loser).Counters().GrabsLost == 0 || tm.host.Counters().GrabsLost == 0 {
		t.Fatalf("the lost grab was not counted: loser %+v host %+v", tm.node(loser).Counters(), tm.host.Counters())
	}
}

func TestGrabbingACubeUnderAnotherPlayersAuthority(t *testing.T) {
	tm := newTestMatch(t, 6, netsim.Conditions{Latency: 60 * time.Millisecond})
	top := tm.hg.Object(3).Position.Add(vecmath.V3(0, 0.7, 0))
	tm.handTo(1, top, false)
	tm.run(2 * time.Second)
	tm.handTo(1, top, true)
	tm.run(100 * time.Millisecond)
	lifted := top.Add(vecmath.V3(0, 1, 0))
	tm.handTo(1, lifted, true)
	tm.handTo(2, lifted.Add(vecmath.V3(0, -0.8, 0.3)), false)
	tm.run(2 * time.Second)
	tm.handTo(1, lifted, false) // let go: still player 1's while it falls
	tm.handTo(2, lifted.Add(vecmath.V3(0, -0.8, 0.3)), true)
	tm.run(1 * time.Second)
	if !tm.holding(2).Holding || tm.holding(2).Object != 3 {
		t.Fatalf("player 2 holds %+v", tm.holding(2))
	}
	tm.run(1 * time.Second)
	for p := range Player(MaxPlayers) {
		if auth, holder, _ := tm.node(p).Authority(3); auth != OwnerOf(2) || holder != OwnerOf(2) {
			t.Errorf("player %d: authority %d holder %d, want player 2's", p, auth, holder)
		}
	}
}

func TestHostOverrulesAConflictingClaim(t *testing.T) {
	tm := newTestMatch(t, 6, netsim.Conditions{Latency: 100 * time.Millisecond})
	at := tm.hg.Object(1).Position
	sides := [2]vecmath.Vec3{at.Add(vecmath.V3(-0.8, 0, 0)), at.Add(vecmath.V3(0.8, 0, 0))}
	tm.handTo(0, sides[0], false)
	tm.handTo(1, sides[1], false)
	tm.run(2 * time.Second)
	// Both push the cube in the same step, then pull back.
	tm.handTo(0, at.Add(vecmath.V3(-0.55, 0, 0)), false)
	tm.handTo(1, at.Add(vecmath.V3(0.55, 0, 0)), false)
	tm.run(200 * time.Millisecond)
	tm.handTo(0, toyHome(0), false)
	tm.handTo(1, toyHome(1), false)
	tm.run(5 * time.Second)
	hc, gc := tm.host.Counters(), tm.guests[0].Counters()
	if hc.Stale == 0 || gc.Overruled == 0 {
		t.Fatalf("no overrule: host %+v guest %+v", hc, gc)
	}
	if d := tm.differing(); len(d) != 0 {
		t.Fatalf("objects %v differ after the conflict", d)
	}
}

func TestGuestLeavingMidThrowHandsItsCubeToTheHost(t *testing.T) {
	tm := newTestMatch(t, 6, netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.1})
	tm.throw(1, 0)
	tm.run(150 * time.Millisecond)
	if auth, _, _ := tm.host.Authority(0); auth != OwnerOf(1) {
		t.Fatalf("the thrown cube is under %d on the host", auth)
	}
	tm.m.Leave(0)
	tm.guests[0] = nil
	if auth, holder, _ := tm.host.Authority(0); auth != Nobody || holder != Nobody || tm.host.Counters().Returned == 0 {
		t.Fatalf("after the leave: authority %d holder %d", auth, holder)
	}
	tm.run(5 * time.Second)
	if d := tm.differing(); len(d) != 0 {
		for _, i := range d {
			for _, n := range []*node{tm.host.node, tm.guests[1].node, tm.guests[2].node} {
				a, h, v := n.Authority(i)
				t.Logf("player %d object %d: %d %d %v %+v", n.cfg.Player, i, a, h, v, n.game.Object(i))
			}
		}
		t.Fatalf("objects %v differ", d)
	}
	for _, g := range tm.guests[1:] {
		if auth, _, _ := g.Authority(0); auth != Nobody {
			t.Errorf("guest %d: the cube is under %d", g.cfg.Player, auth)
		}
	}
}

// TestRejoinedSeatIsSeenAtOnce: guest 1 plays 5 s and leaves; it comes
// back to its seat with its client id (at once, and in other matches
// 100 ms and 2 s later) as a new process would, walks its hand to a cube
// and grabs it. Guest 2 sees the newcomer's hand (150 ms after it joined:
// the two legs and the jitter buffer) and its hold within a jitter buffer
// and a round trip of the newcomer's first packets, though the
// newcomer's clock starts again from 0, far behind its predecessor's.
func TestRejoinedSeatIsSeenAtOnce(t *testing.T) {
	for _, gap := range []time.Duration{0, 100 * time.Millisecond, 2 * time.Second} {
		tm := newTestMatch(t, 6, netsim.Conditions{Latency: 50 * time.Millisecond})
		tm.gg[0].target = toyHome(1).Add(vecmath.V3(0, 2, 0)) // the one who leaves, 2 m above where the newcomer's hand starts
		tm.run(5 * time.Second)
		tm.m.Leave(0)
		tm.run(gap)
		g := newToy(1, 6)
		cfg := DefaultConfig()
		cfg.Player = 1
		guest, err := NewGuest(cfg, g, tm.m.Now())
		if err != nil {
			t.Fatal(err)
		}
		if slot, err := tm.m.JoinID(guest, tm.m.ClientID(0)); err != nil || slot != 0 {
			t.Fatalf("joined slot %d: %v", slot, err)
		}
		tm.guests[0], tm.gg[0] = guest, g
		seen := func() bool {
			a := tm.gg[1].avatars[1]
			return tm.gg[1].present[1] && a.Parts[1].Pose.Pos.Sub(g.avatars[1].Parts[1].Pose.Pos).Length() < 0.5
		}
		// The newcomer sends from its first frame: the others see it, its
		// hand where it is, within the two legs (50 ms each), a frame of
		// the host's relay and one jitter buffer (at most JitterDelay).
		// Taken at once (gap 0), the simulator hands the newcomer's link
		// the datagrams its predecessor still had in flight (it addresses
		// clients by slot; netcode would drop them, sealed with the old
		// connection's keys), whose newer sequences make its first ones
		// look stale to the host's endpoint: then within a second.
		bound := 100*time.Millisecond + cfg.JitterDelay + 3*time.Second/60
		if gap == 0 {
			bound = time.Second
		}
		var after time.Duration
		for !seen() {
			if after > bound {
				t.Fatalf("gap %v: guest 2 does not see the newcomer %v after it joined: hand at %v, present %v, it is at %v", gap, after,
					tm.gg[1].avatars[1].Parts[1].Pose.Pos, tm.gg[1].present[1], g.avatars[1].Parts[1].Pose.Pos)
			}
			tm.run(time.Second / 60)
			after += time.Second / 60
		}
		t.Logf("gap %v: guest 2 sees the newcomer %v after it joined", gap, after)
		top := tm.hg.Object(2).Position.Add(vecmath.V3(0, 0.7, 0))
		g.target = top
		// The newcomer's hand needs about a second to get there; then the
		// others have a buffer and a round trip to see it.
		tm.run(1500 * time.Millisecond)
		if !seen() {
			t.Fatalf("gap %v: guest 2 does not see the newcomer's hand: %v present %v, it is at %v", gap,
				tm.gg[1].avatars[1].Parts[1].Pose.Pos, tm.gg[1].present[1], g.avatars[1].Parts[1].Pose.Pos)
		}
		g.grip = true
		tm.run(50 * time.Millisecond)
		if !g.avatars[1].Parts[1].Held.Holding {
			t.Fatalf("gap %v: the newcomer did not grab the cube", gap)
		}
		g.target = top.Add(vecmath.V3(0, 1, 0))
		tm.run(400 * time.Millisecond)
		if _, h, _ := tm.guests[1].Authority(2); h != OwnerOf(1) {
			t.Fatalf("gap %v: guest 2 thinks %d holds the cube", gap, h)
		}
		if d := tm.gg[1].Object(2).Position.Sub(g.Object(2).Position).Length(); d > 0.5 {
			t.Fatalf("gap %v: the carried cube is %.2f m off on guest 2", gap, d)
		}
	}
}
