package lockstep

import (
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// match is a session of the particle game over the simulator.
type match struct {
	m       *simmatch.Match
	server  *Server[stick, *stick]
	clients []*Client[stick, *stick]
	games   []*recorder
}

// recorder wraps a game and records its checksum after every tick that
// is a multiple of 60 the first time the tick is final.
type recorder struct {
	*particles
	sums map[Tick]uint64
}

func newMatch(t testing.TB, cfg Config, cond netsim.Conditions, seed uint64) *match {
	t.Helper()
	srv, err := NewServer[stick](cfg, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: seed, Conditions: cond}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	x := &match{m: m, server: srv}
	for p := range cfg.Players {
		g := &recorder{particles: newParticles(cfg.Players + 2), sums: map[Tick]uint64{}}
		c, err := NewClient[stick](cfg, g, bot(p), simmatch.Epoch)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(c); err != nil {
			t.Fatal(err)
		}
		x.clients = append(x.clients, c)
		x.games = append(x.games, g)
	}
	return x
}

// reference plays the same bots offline and returns the checksum after
// every tick.
func reference(players, ticks int) []uint64 {
	g := newParticles(players + 2)
	in := make([]stick, players)
	sums := make([]uint64, ticks)
	for t := range ticks {
		for p := range in {
			in[p] = bot(p)(Tick(t))
		}
		g.Step(in)
		sums[t] = g.Checksum()
	}
	return sums
}

// checkAgainst requires every client's reported checksums to equal the
// offline reference's.
func (x *match) check(t *testing.T) {
	t.Helper()
	var most Tick
	for _, c := range x.clients {
		most = max(most, c.Tick())
	}
	ref := reference(len(x.clients), int(most))
	for i, c := range x.clients {
		s := c.Stats()
		if s.Checksums == 0 {
			t.Fatalf("client %d reported no checksum (tick %d)", i, s.Tick)
		}
		if want := uint32(ref[s.LastChecksumTick]); s.LastChecksum != want {
			t.Fatalf("client %d: checksum of tick %d is %#x, offline %#x", i, s.LastChecksumTick, s.LastChecksum, want)
		}
		// A rollback client's newest ticks may rest on predictions.
		if got := x.games[i].Checksum(); c.Tick() > 0 && c.Tick() <= s.Confirmed && got != ref[c.Tick()-1] {
			t.Fatalf("client %d: state after tick %d differs from the offline game", i, c.Tick()-1)
		}
	}
}

func TestTwoPlayersPerfectNetwork(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 2
	x := newMatch(t, cfg, netsim.Conditions{}, 1)
	if err := x.m.Run(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	x.check(t)
	for i, c := range x.clients {
		s := c.Stats()
		if s.Tick < 500 {
			t.Fatalf("client %d simulated only %d ticks in 10 s", i, s.Tick)
		}
		if s.Stalled > 0 {
			t.Errorf("client %d stalled %d times on a perfect network", i, s.Stalled)
		}
		if s.InputDelay > 100*time.Millisecond {
			t.Errorf("client %d: input delay %v on a perfect network", i, s.InputDelay)
		}
	}
	if v := x.server.Stats(x.m.Now()).Verified; v < 5 {
		t.Fatalf("server verified %d checksums", v)
	}
}

func TestDesyncStopsTheSession(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 3
	cfg.ChecksumEvery = 30
	x := newMatch(t, cfg, netsim.Conditions{Latency: 20 * time.Millisecond}, 2)
	if err := x.m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	// Player 2's world diverges: one particle moves by one unit.
	x.games[2].p[0].x++
	err := x.m.Run(5 * time.Second)
	var d *DesyncError
	if !errors.As(err, &d) || !errors.Is(err, ErrDesync) {
		t.Fatalf("Run = %v, want a desync", err)
	}
	if d.Tick%30 != 0 || (d.A != 2 && d.B != 2) {
		t.Fatalf("desync %+v does not name player 2 at a checksum tick", d)
	}
}
