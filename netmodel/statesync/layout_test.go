package statesync

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// TestAnotherLayoutIsRefusedOnBothSides: a guest whose world has 12
// cubes and one whose world has 8 join a host of 10. Before, the first
// played on with its ids read modulo 10 by the host (and the host's
// modulo 12 by it), nothing counted, and the second refused every packet
// of the host's as malformed without saying why, while the host took its
// packets. Now each side refuses the other's packets, naming the two
// object counts, and counts them as malformed.
func TestAnotherLayoutIsRefusedOnBothSides(t *testing.T) {
	host, err := NewHost(DefaultConfig(), newToyTower(0, 10, 4))
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 5, Conditions: netsim.Conditions{Latency: 50 * time.Millisecond}}}, host)
	if err != nil {
		t.Fatal(err)
	}
	var guests []*Guest
	for k, n := range []int{12, 8} {
		cfg := DefaultConfig()
		cfg.Player = Player(k + 1)
		g, err := NewGuest(cfg, newToyTower(cfg.Player, n, 4), m.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(g); err != nil {
			t.Fatal(err)
		}
		guests = append(guests, g)
	}
	if err := m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	for k, n := range []int{12, 8} {
		for _, side := range []struct {
			name string
			err  error
			want string
		}{
			{"host", host.links[k+1].refused, fmt.Sprintf("the sender's world has %d objects, this one 10", n)},
			{"guest", guests[k].links[0].refused, fmt.Sprintf("the sender's world has 10 objects, this one %d", n)},
		} {
			if !errors.Is(side.err, ErrLayout) || !strings.Contains(side.err.Error(), side.want) {
				t.Errorf("guest %d's %s: refused %v, want ErrLayout saying %q", k+1, side.name, side.err, side.want)
			}
		}
		if guests[k].Counters().Malformed == 0 {
			t.Errorf("guest %d counted nothing malformed", k+1)
		}
	}
	if c := host.Counters(); c.Malformed == 0 || c.Accepted != 0 {
		t.Errorf("the host counted %d malformed and accepted %d updates", c.Malformed, c.Accepted)
	}
}
