package statesync

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
)

// slowToy is the toy whose cubes may fly at 3 m/s at most, slower than
// its hands move (6 m/s): a hand carries a cube faster than a throw.
type slowToy struct{ *toyGame }

func (slowToy) Limits() Limits {
	l := DefaultLimits()
	l.MaxSpeed = 3
	return l
}

// TestACarriedCubeGoesOnFromTheHand: guest 1 touches a cube (its
// updates of it are taken), grabs it, carries it 12 m in 2 s and sets it
// down. The states it sends of it after the hold go on from where the
// hand let go, not from its last state before the grab: nothing is
// implausible.
func TestACarriedCubeGoesOnFromTheHand(t *testing.T) {
	hg := newToy(0, 3)
	host, err := NewHost(DefaultConfig(), slowToy{hg})
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 3, Conditions: netsim.Conditions{Latency: 30 * time.Millisecond}}}, host)
	if err != nil {
		t.Fatal(err)
	}
	g := newToy(1, 3)
	cfg := DefaultConfig()
	cfg.Player = 1
	guest, err := NewGuest(cfg, g, m.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Join(guest); err != nil {
		t.Fatal(err)
	}
	const i = 1
	at := hg.Object(i).Position
	g.target = at.Add(vecmath.V3(-0.6, 0, 0)) // pushes it a little: its states are taken
	if err := m.Run(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	if host.links[1].took[i] == 0 {
		t.Fatal("the host took no state of the cube from the guest before the grab")
	}
	g.target, g.grip = hg.Object(i).Position.Add(vecmath.V3(0, 0.7, 0)), true
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	g.target = g.target.Add(vecmath.V3(0, 0, 12))
	if err := m.Run(2500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	g.grip = false
	if err := m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if d := hg.Object(i).Position.Sub(at).Length(); d < 10 {
		t.Fatalf("the cube went %.2f m on the host", d)
	}
	if n := host.Implausible(0); n != 0 {
		t.Errorf("%d implausible claims of an honest carry", n)
	}
}
