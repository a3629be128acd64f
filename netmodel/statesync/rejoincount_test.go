package statesync

import (
	"testing"
	"time"
)

// TestRejoiningKeepsTheImplausibleCount: with Config.MaxImplausible 20,
// the hostile makes 14 or more implausible claims, leaves and comes back
// to its seat with its client id, and claims on: the count goes on from
// where it was, and the 21st claim in all drops it. Before, a rejoin
// started the count afresh, and a guest that reconnected every 600
// implausible claims was never dropped.
func TestRejoiningKeepsTheImplausibleCount(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxImplausible = 20
	host, _, m, _, _, x := hostileMatch(t, cfg)
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	x.attack = attacks[3].send // two far holds a frame
	for host.Implausible(2) < 14 {
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
	}
	x.attack = nil
	if err := m.Run(time.Second / 6); err != nil { // what was on its way arrives
		t.Fatal(err)
	}
	before := host.Implausible(2)
	if before > 20 || host.dropped[3] {
		t.Fatalf("%d implausible claims before it left, dropped %v", before, host.dropped[3])
	}
	id := m.ClientID(2)
	m.Leave(2)
	if err := m.Run(time.Second / 5); err != nil { // the host's packets to it on their way are lost
		t.Fatal(err)
	}
	y := newHostile(t, m.Now())
	if slot, err := m.JoinID(y, id); err != nil || slot != 2 {
		t.Fatalf("back in slot %d: %v", slot, err)
	}
	if n := host.Implausible(2); n != before {
		t.Fatalf("back in its seat with %d implausible claims, it left with %d", n, before)
	}
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	y.attack, y.frame = attacks[3].send, 0
	for range 180 {
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
		if host.dropped[3] {
			break
		}
	}
	if !host.dropped[3] || host.Implausible(2) != 21 {
		t.Fatalf("after rejoining and claiming on: dropped %v, %d implausible claims; want dropped at the 21st", host.dropped[3], host.Implausible(2))
	}
}
