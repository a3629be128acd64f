package scene

import (
	"math"
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
	srv, m := arenaServer(t, cfg, acfg, 3)
	var clients []*predict.Client[ArenaInput, *ArenaInput]
	for p := 0; p < acfg.Players; p++ {
		c := arenaClient(t, cfg, acfg, NewBot(p, 5, acfg).Input)
		if _, err := m.Join(c); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	if err := m.Run(8 * time.Second); err != nil {
		t.Fatal(err)
	}
	committed := map[[2]int]int{}
	last := srv.Tick() - predict.Tick(cfg.TickRate) - 1
	// Each client's count of its hits the server confirmed: at least
	// those of ticks a second before the end, at most all of them.
	byShooter, byShooterBefore := make([]uint64, acfg.Players), make([]uint64, acfg.Players)
	for _, h := range srv.TakeCommitted(nil) {
		committed[[2]int{h.Shooter, int(h.Tick)}] = h.Target
		byShooter[h.Shooter]++
		if h.Tick < last {
			byShooterBefore[h.Shooter]++
		}
	}
	seen, confirmed := 0, 0
	for p, c := range clients {
		st := c.Stats()
		if st.Compared+st.ComparedContact < 400 || st.Mispredicted != 0 {
			t.Errorf("client %d: %+v", p, st)
		}
		if st.HitsConfirmed < byShooterBefore[p] || st.HitsConfirmed > byShooter[p] {
			t.Errorf("client %d: %d hits confirmed by the server's states, want %d to %d (committed up to a second before the end, and all)", p, st.HitsConfirmed, byShooterBefore[p], byShooter[p])
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
	srv, m := arenaServer(t, cfg, acfg, 5)
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
		c := arenaClient(t, cfg, acfg, trigger)
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

// lagSwitch is a client whose datagrams to the server are held while
// holding is set and sent all at once when it is cleared: the lag switch
// of issue 21, case 8.
type lagSwitch struct {
	*predict.Client[ArenaInput, *ArenaInput]
	holding bool
	held    [][]byte
}

func (l *lagSwitch) Update(now time.Time, send func([]byte)) error {
	return l.Client.Update(now, func(d []byte) {
		if l.holding {
			l.held = append(l.held, append([]byte(nil), d...))
			return
		}
		for _, h := range l.held {
			send(h)
		}
		l.held = l.held[:0]
		send(d)
	})
}

// lagSwitchGain plays a cheater who runs along +X at full speed, holds
// its packets back for 0.9 s and turns round as it does, running along
// -X until it lets them go and on, and returns the largest distance its
// character covered in the states the server sent the others: over one
// tick, and over any second.
func lagSwitchGain(t *testing.T, cfg predict.Config) (tick, second float64) {
	t.Helper()
	acfg := DefaultArenaConfig(cfg.TickRate)
	acfg.Players, acfg.Cubes = 2, 0
	srv, m := arenaServer(t, cfg, acfg, 6)
	const run, hold, stop = 120, 150, 250 // ticks
	cheat := func(tk predict.Tick, v *predict.View) ArenaInput {
		if v.You != 1 || tk < run || tk >= stop {
			return ArenaInput{}
		}
		dir := 1.0
		if tk >= hold {
			dir = -1
		}
		in, _ := MakeArenaInput(dir, 0, 0, 0, false, false)
		return in
	}
	var ls *lagSwitch
	for p := 0; p < 2; p++ {
		c := arenaClient(t, cfg, acfg, cheat)
		ls = &lagSwitch{Client: c}
		if _, err := m.Join(ls); err != nil {
			t.Fatal(err)
		}
	}
	// Sample what the server sends each tick: its world at its tick.
	var xs []float64
	for srv.Tick() < 420 {
		ls.holding = ls.Tick() >= hold && ls.Tick() < hold+54
		if err := m.Run(time.Second / time.Duration(cfg.TickRate)); err != nil {
			t.Fatal(err)
		}
		if srv.Tick() > 60 {
			xs = append(xs, srv.Game().Body(1).Position.X)
		}
	}
	for i := 1; i < len(xs); i++ {
		tick = max(tick, math.Abs(xs[i]-xs[i-1]))
		for j := max(0, i-cfg.TickRate); j < i; j++ {
			second = max(second, math.Abs(xs[i]-xs[j]))
		}
	}
	return tick, second
}

// Issue 21, case 8: a lag switch (packets held 0.9 s, then a burst) used
// to show the cheater's character covering far more than its speed allows
// in the states the others receive, since the held inputs rewrote the
// second of history they covered. Inputs later than MaxLate no longer
// rewrite history: the cheater moves, as the others see it, no faster
// than its speed allows but for a rewrite of MaxLate.
func TestArenaLagSwitchGainsNoMoreThanMaxLate(t *testing.T) {
	cfg := predict.DefaultConfig()
	tick, second := lagSwitchGain(t, cfg)
	speed := DefaultArenaConfig(cfg.TickRate).MoveSpeed
	late := cfg.MaxLate.Seconds()
	t.Logf("lag switch: the others saw the cheater cover at most %.2f m in a tick, %.2f m in a second (%v m/s, MaxLate %v)", tick, second, speed, cfg.MaxLate)
	if second > speed*(1+late) || tick > speed*(1/float64(cfg.TickRate)+late) {
		t.Fatalf("the cheater covered %.2f m in a tick and %.2f m in a second, at %v m/s", tick, second, speed)
	}
	// The same run as before issue 21 (last controls repeated until the
	// timeout, rewinds over the whole window) breaks the bound: the
	// measurement sees the teleport.
	cfg.MaxLate, cfg.Grace = cfg.Window, cfg.Window
	tick, second = lagSwitchGain(t, cfg)
	t.Logf("as before: %.2f m in a tick, %.2f m in a second", tick, second)
	if second < 2*speed || tick < 1 {
		t.Fatalf("without the bounds the cheater covered only %.2f m in a tick and %.2f m in a second", tick, second)
	}
}

// arenaServer is the arena's predict server in a match over 25 ms of
// latency each way, the network simulated with seed.
func arenaServer(t *testing.T, cfg predict.Config, acfg ArenaConfig, seed uint64) (*predict.Server[ArenaInput, *ArenaInput], *simmatch.Match) {
	t.Helper()
	sg, err := NewArena(acfg)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := predict.NewServer[ArenaInput](cfg, sg, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: seed, Conditions: netsim.Conditions{Latency: 25 * time.Millisecond}}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

// arenaClient is a client of the arena driven by control.
func arenaClient(t *testing.T, cfg predict.Config, acfg ArenaConfig, control predict.Control[ArenaInput]) *predict.Client[ArenaInput, *ArenaInput] {
	t.Helper()
	g, err := NewArena(acfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := predict.NewClient[ArenaInput](cfg, g, control, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
