package statesync

import (
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
)

// TestSeatIsHeldForTheGuestWhoLeft: guest 1's process dies 3 s in and
// netcode's timeout makes it a leave 2 s later. Within the grace a
// stranger landing in its slot is refused; guest 1 coming back with its
// client id is seated again, and guest 2 sees it present, its hand where
// it moved, within the hand's travel, a round trip and a jitter buffer of
// its return. Once the
// grace is over, a stranger takes the seat.
func TestSeatIsHeldForTheGuestWhoLeft(t *testing.T) {
	const latency = 50 * time.Millisecond
	cfg := DefaultConfig()
	cfg.RejoinGrace = 10 * time.Second
	hg := newToy(0, 6)
	host, err := NewHost(cfg, hg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 3, Conditions: netsim.Conditions{Latency: latency, Loss: 0.02}}}, host)
	if err != nil {
		t.Fatal(err)
	}
	guest := func(p Player) (*Guest, *toyGame) {
		g := newToy(p, 6)
		c := cfg
		c.Player = p
		gu, err := NewGuest(c, g, m.Now())
		if err != nil {
			t.Fatal(err)
		}
		return gu, g
	}
	run := func(d time.Duration) {
		t.Helper()
		if err := m.Run(d); err != nil {
			t.Fatal(err)
		}
	}
	var toys []*toyGame
	for p := Player(1); p <= 2; p++ {
		gu, g := guest(p)
		if _, err := m.Join(gu); err != nil {
			t.Fatal(err)
		}
		toys = append(toys, g)
	}
	run(3 * time.Second)
	if !toys[1].present[1] {
		t.Fatal("guest 2 does not see guest 1")
	}
	id := m.ClientID(0)
	m.Crash(0)
	run(2 * time.Second)
	m.Leave(0)
	run(time.Second)
	if toys[1].present[1] {
		t.Fatal("guest 2 still sees guest 1 a second after it left")
	}
	stranger, _ := guest(1)
	if _, err := m.Join(stranger); !errors.Is(err, ErrSeatHeld) {
		t.Fatalf("a stranger in the held seat: %v", err)
	}
	back, bg := guest(1)
	// Where guest 2 must see its hand, moving there at toyHandSpeed.
	move := vecmath.V3(0.3, 0.2, 0)
	bg.target = toyHome(1).Add(move)
	travel := time.Duration(move.Length() / toyHandSpeed * float64(time.Second))
	if slot, err := m.JoinID(back, id); err != nil || slot != 0 {
		t.Fatalf("came back in slot %d: %v", slot, err)
	}
	start := m.Now()
	seen := func() bool {
		return toys[1].present[1] && toys[1].avatars[1].Parts[1].Pose.Pos.Sub(bg.avatars[1].Parts[1].Pose.Pos).Length() < 0.05
	}
	for !seen() {
		if m.Now().Sub(start) > 2*time.Second {
			t.Fatalf("guest 2 does not see guest 1 back after 2 s: present %v, hand %v, it is at %v", toys[1].present[1], toys[1].avatars[1].Parts[1].Pose.Pos, bg.avatars[1].Parts[1].Pose.Pos)
		}
		run(time.Second / 60)
	}
	took := m.Now().Sub(start)
	t.Logf("guest 2 sees guest 1 back %v after it connected", took)
	if limit := travel + 2*latency + cfg.JitterDelay + 4*time.Second/60; took > limit {
		t.Fatalf("guest 2 saw guest 1 back after %v, more than the hand's travel, a round trip and a jitter buffer (%v)", took, limit)
	}
	if c := host.Counters(); c.Rejoins != 1 {
		t.Fatalf("%d rejoins counted", c.Rejoins)
	}
	m.Leave(0)
	run(cfg.RejoinGrace)
	if _, err := m.Join(stranger); err != nil {
		t.Fatalf("a stranger after the grace: %v", err)
	}
	run(time.Second)
	if !toys[1].present[1] || host.Counters().Rejoins != 1 {
		t.Fatalf("guest 2 does not see the stranger in seat 1 (present %v), or it counted as a rejoin (%d)", toys[1].present[1], host.Counters().Rejoins)
	}
}
