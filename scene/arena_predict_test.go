package scene

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// The arena under the prediction model: four bots over a clean 50 ms
// link. Free of contacts the prediction must be exact, and every hit a
// shooter saw must be the one the server commits.
func TestArenaPredictsAndRegistersHits(t *testing.T) {
	cfg := predict.DefaultConfig()
	acfg := DefaultArenaConfig(cfg.TickRate)
	acfg.Players = 4
	sg, err := NewArena(acfg)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := predict.NewServer[ArenaInput](cfg, sg, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 3, Conditions: netsim.Conditions{Latency: 25 * time.Millisecond}}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	var clients []*predict.Client[ArenaInput, *ArenaInput]
	for p := 0; p < acfg.Players; p++ {
		g, err := NewArena(acfg)
		if err != nil {
			t.Fatal(err)
		}
		c, err := predict.NewClient[ArenaInput](cfg, g, NewBot(p, 5, acfg).Input, simmatch.Epoch)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(c); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	if err := m.Run(8 * time.Second); err != nil {
		t.Fatal(err)
	}
	committed := map[[2]int]int{}
	for _, h := range srv.TakeCommitted(nil) {
		committed[[2]int{h.Shooter, int(h.Tick)}] = h.Target
	}
	last := srv.Tick() - predict.Tick(cfg.TickRate) - 1
	seen, confirmed := 0, 0
	for p, c := range clients {
		st := c.Stats()
		if st.Compared+st.ComparedContact < 400 || st.Mispredicted != 0 {
			t.Errorf("client %d: %+v", p, st)
		}
		for _, h := range c.TakeSeenHits(nil) {
			if h.Tick >= last {
				continue
			}
			seen++
			if target, ok := committed[[2]int{p, int(h.Tick)}]; ok && target == h.Target {
				confirmed++
			}
		}
	}
	if seen < 20 || confirmed != seen {
		t.Fatalf("%d of %d hits confirmed", confirmed, seen)
	}
}
