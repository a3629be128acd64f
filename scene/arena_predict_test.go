package scene

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
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

// Issue 21, case 7: a client that fires every tick for 2 s (120 shots)
// at a player standing still commits at most what the rate of fire
// allows: the cooldown is in the arena's state, predicted by the client
// and enforced by the server.
func TestArenaRateOfFireHoldsAtTheServer(t *testing.T) {
	cfg := predict.DefaultConfig()
	acfg := DefaultArenaConfig(cfg.TickRate)
	acfg.Players, acfg.Cubes = 2, 0
	sg, err := NewArena(acfg)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := predict.NewServer[ArenaInput](cfg, sg, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 5, Conditions: netsim.Conditions{Latency: 25 * time.Millisecond}}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	const from, shots = 120, 120
	fired := 0
	trigger := func(tick predict.Tick, v *predict.View) ArenaInput {
		if v.You != 0 || tick < from || fired == shots {
			return ArenaInput{}
		}
		fired++
		eye := v.Own.Position.Add(vecmath.V3(0, acfg.EyeHeight, 0))
		d := v.Bodies[1].Position.Sub(eye)
		in, err := MakeArenaInput(0, 0, vecmath.Atan2(d.X, d.Z), vecmath.Atan2(d.Y, vecmath.V3(d.X, 0, d.Z).Length()), false, true)
		if err != nil {
			t.Error(err)
		}
		return in
	}
	var clients []*predict.Client[ArenaInput, *ArenaInput]
	for p := 0; p < 2; p++ {
		g, err := NewArena(acfg)
		if err != nil {
			t.Fatal(err)
		}
		c, err := predict.NewClient[ArenaInput](cfg, g, trigger, simmatch.Epoch)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(c); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	if err := m.Run(6 * time.Second); err != nil {
		t.Fatal(err)
	}
	hits := srv.TakeCommitted(nil)
	sc, st := srv.Counters(), clients[0].Stats()
	allowed := int(2/acfg.FireInterval) + 1
	t.Logf("%d shots, %d hits committed, %d seen; server %+v", st.Shots, len(hits), st.HitsSeen, sc)
	if fired != shots || st.Shots != shots || len(hits) > allowed || len(hits) < allowed-2 || sc.ShotsRefused < shots-uint64(allowed) {
		t.Fatalf("%d shots fired, %d hits committed (the cooldown allows %d), %d refused", st.Shots, len(hits), allowed, sc.ShotsRefused)
	}
	// The client predicted the same cooldown: the hits it saw are the ones
	// the server committed.
	if st.HitsSeen != uint64(len(hits)) {
		t.Fatalf("client saw %d hits, server committed %d", st.HitsSeen, len(hits))
	}
}
