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
			in[p] = stickAt(p, Tick(t))
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

// TestMajorityDropsTheDivergentPlayer: without a referee, three players
// outvote the one whose world diverged; it is told why, at a checksum
// tick, and the server goes on (2 players, or a tie, stop the session:
// testdata/desync.txt).
func TestMajorityDropsTheDivergentPlayer(t *testing.T) {
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
	var d *DroppedError
	if !errors.As(err, &d) || !errors.Is(err, ErrDropped) || d.Reason != ReasonDesync || d.Tick%30 != 0 {
		t.Fatalf("Run = %v, want player 2 dropped for its checksum", err)
	}
	st := x.server.Stats(x.m.Now())
	if st.Desync != nil || st.Players[2].Connected || !st.Players[0].Connected || !st.Players[1].Connected || st.Drops[ReasonDesync] != 1 {
		t.Fatalf("server: desync %v, players %+v, drops %v", st.Desync, st.Players, st.Drops)
	}
}

// stallsAfter runs x for warm then for d, and returns every client's
// stalls during d.
func (x *match) stallsAfter(t *testing.T, warm, d time.Duration) []uint64 {
	t.Helper()
	if err := x.m.Run(warm); err != nil {
		t.Fatal(err)
	}
	before := make([]uint64, len(x.clients))
	for i, c := range x.clients {
		before[i] = c.Stats().Stalled
	}
	if err := x.m.Run(d); err != nil {
		t.Fatal(err)
	}
	for i, c := range x.clients {
		before[i] = c.Stats().Stalled - before[i]
	}
	return before
}

// TestTenMinutesAtTwoSecondsAndQuarterLoss is the article's claim for
// redundant inputs over UDP: 4 players, 2 s RTT, 25 % loss each way, and
// once the delay has adapted the session runs without a stall, every
// checksum equal. -short plays 2 minutes instead of 10.
func TestTenMinutesAtTwoSecondsAndQuarterLoss(t *testing.T) {
	d := 10 * time.Minute
	if testing.Short() {
		d = 2 * time.Minute
	}
	x := newMatch(t, DefaultConfig(), netsim.Conditions{Latency: time.Second, Loss: 0.25}, 7)
	stalls := x.stallsAfter(t, 20*time.Second, d)
	for i, n := range stalls {
		if n != 0 {
			t.Errorf("client %d stalled %d times after the delay adapted", i, n)
		}
		if s := x.clients[i].Stats(); s.InputDelay > 3*time.Second {
			t.Errorf("client %d: input delay %v at 2 s RTT", i, s.InputDelay)
		}
	}
	x.check(t)
	st := x.server.Stats(x.m.Now())
	if want := uint64(d/time.Second) - 5; st.Verified < want || st.Desync != nil {
		t.Fatalf("server verified %d ticks, want at least %d; desync %v", st.Verified, want, st.Desync)
	}
}

// TestRollbackRepairsPredictions plays 4 players at 250 ms RTT and 5 %
// loss in rollback mode: one tick of input delay, predictions corrected
// by re-simulation within the window, every checksum equal.
func TestRollbackRepairsPredictions(t *testing.T) {
	cfg := DefaultRollbackConfig()
	x := newMatch(t, cfg, netsim.Conditions{Latency: 125 * time.Millisecond, Loss: 0.05}, 8)
	stalls := x.stallsAfter(t, 5*time.Second, 30*time.Second)
	for i, c := range x.clients {
		s := c.Stats()
		if stalls[i] != 0 || s.Rollbacks == 0 || s.MaxResimulated > cfg.Rollback || s.MaxResimulated < 10 {
			t.Errorf("client %d: %d stalls, %d rollbacks, at most %d re-simulated (window %d)",
				i, stalls[i], s.Rollbacks, s.MaxResimulated, cfg.Rollback)
		}
		if s.InputDelay != cfg.MinDelay {
			t.Errorf("client %d: input delay %v, want the minimum %v", i, s.InputDelay, cfg.MinDelay)
		}
	}
	x.check(t)
}

// TestStreamStallsWhereDatagramsDoNot is the article's comparison at
// 100 ms RTT and 1 % loss: the same session over the TCP model stalls
// while redundant datagrams do not.
func TestStreamStallsWhereDatagramsDoNot(t *testing.T) {
	cond := netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.01}
	udp := newMatch(t, DefaultConfig(), cond, 4)
	for i, n := range udp.stallsAfter(t, 10*time.Second, time.Minute) {
		if n != 0 {
			t.Errorf("datagrams: client %d stalled %d times", i, n)
		}
	}
	tcp := newMatch(t, DefaultStreamConfig(), cond, 4)
	total := uint64(0)
	for _, n := range tcp.stallsAfter(t, 10*time.Second, time.Minute) {
		total += n
	}
	if total == 0 {
		t.Error("the TCP model never stalled at 1 % loss")
	}
	udp.check(t)
	tcp.check(t)
}

// TestStreamOutlivesALongStall cuts a player of a TCP session off for
// 12 s: DefaultStreamConfig waits for TCP's retransmissions to repair it,
// where DefaultConfig's 10 s timeout would end the session.
func TestStreamOutlivesALongStall(t *testing.T) {
	for _, cfg := range []Config{DefaultStreamConfig(), DefaultRollbackConfig().OverStream()} {
		cfg.Players = 2
		x := newMatch(t, cfg, netsim.Conditions{Latency: 30 * time.Millisecond}, 8)
		if err := x.m.Run(3 * time.Second); err != nil {
			t.Fatal(err)
		}
		dead, good := netsim.Conditions{Loss: 1}, netsim.Conditions{Latency: 30 * time.Millisecond}
		if err := x.m.SetLink(1, dead, dead); err != nil {
			t.Fatal(err)
		}
		if err := x.m.Run(12 * time.Second); err != nil {
			t.Fatalf("rollback %d: %v while cut off", cfg.Rollback, err)
		}
		if err := x.m.SetLink(1, good, good); err != nil {
			t.Fatal(err)
		}
		before := x.clients[0].Tick()
		if err := x.m.Run(20 * time.Second); err != nil {
			t.Fatalf("rollback %d: %v after the link came back", cfg.Rollback, err)
		}
		if st := x.server.Stats(x.m.Now()); st.Disconnected != 0 || x.clients[0].Tick() < before+60*5 {
			t.Fatalf("rollback %d: %d disconnected, tick %d then %d", cfg.Rollback, st.Disconnected, before, x.clients[0].Tick())
		}
		x.check(t)
	}
}

// skewed runs a client on a clock that goes rate times as fast as the
// simulator's.
type skewed struct {
	*Client[stick, *stick]
	rate float64
}

func (s skewed) at(now time.Time) time.Time {
	return simmatch.Epoch.Add(time.Duration(float64(now.Sub(simmatch.Epoch)) * s.rate))
}
func (s skewed) Receive(now time.Time, d []byte) error { return s.Client.Receive(s.at(now), d) }
func (s skewed) Update(now time.Time, send func([]byte)) error {
	return s.Client.Update(s.at(now), send)
}

// TestClockDriftIsAbsorbed gives two players clocks 0.3 % fast and slow:
// slewing follows the server's clock and nobody stalls.
func TestClockDriftIsAbsorbed(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 3
	srv, _ := NewServer[stick](cfg, simmatch.Epoch)
	m, _ := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 3, Conditions: netsim.Conditions{Latency: 40 * time.Millisecond}}}, srv)
	x := &match{m: m, server: srv}
	for p, rate := range []float64{1, 1.003, 0.997} {
		g := &recorder{particles: newParticles(cfg.Players + 2)}
		c, err := NewClient[stick](cfg, g, bot(p), simmatch.Epoch)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(skewed{c, rate}); err != nil {
			t.Fatal(err)
		}
		x.clients, x.games = append(x.clients, c), append(x.games, g)
	}
	for i, n := range x.stallsAfter(t, 10*time.Second, 3*time.Minute) {
		s := x.clients[i].Stats()
		if n != 0 || s.InputDelay > 200*time.Millisecond {
			t.Errorf("client %d: %d stalls, delay %v", i, n, s.InputDelay)
		}
	}
	// Everyone is at the same point of the session, whatever its clock.
	for _, c := range x.clients[1:] {
		if d := c.Tick() - x.clients[0].Tick(); d < -3 || d > 3 {
			t.Errorf("ticks %d and %d after 3 minutes", x.clients[0].Tick(), c.Tick())
		}
	}
	x.check(t)
}

// TestLostPlayerTimesOut cuts one player off: its client gives up with
// ErrTimeout, the server disconnects it and feeds its idle input, and the
// others play on after catching up.
func TestLostPlayerTimesOut(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 3
	x := newMatch(t, cfg, netsim.Conditions{Latency: 30 * time.Millisecond}, 6)
	if err := x.m.Run(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	dead := netsim.Conditions{Loss: 1}
	if err := x.m.SetLink(1, dead, dead); err != nil {
		t.Fatal(err)
	}
	err := x.m.Run(time.Minute)
	if !errors.Is(err, ErrTimeout) || x.m.Elapsed() > 5*time.Second+cfg.Timeout+time.Second {
		t.Fatalf("Run = %v at %v, want client 1's timeout after %v", err, x.m.Elapsed(), cfg.Timeout)
	}
	x.m.Leave(1)
	x.clients = []*Client[stick, *stick]{x.clients[0], x.clients[2]}
	stalls := x.stallsAfter(t, 10*time.Second, 20*time.Second)
	st := x.server.Stats(x.m.Now())
	if st.Disconnected != 1 || st.Players[1].Connected || stalls[0]+stalls[1] != 0 {
		t.Fatalf("disconnected %d, player 1 connected %v, stalls %v", st.Disconnected, st.Players[1].Connected, stalls)
	}
	if st.Desync != nil || x.clients[0].Tick() < 60*30 {
		t.Fatalf("desync %v, tick %d", st.Desync, x.clients[0].Tick())
	}
}

// tolerant is a server whose Update errors are recorded instead of
// stopping the match, so that the clients can be seen to learn them.
type tolerant struct {
	*Server[stick, *stick]
	err error
}

func (s *tolerant) Update(now time.Time, send func(int, []byte)) error {
	if err := s.Server.Update(now, send); err != nil && s.err == nil {
		s.err = err
	}
	return nil
}

// TestClientsLearnTheDesync lets the server go on telling the players
// after a desync: every client's Update returns the same error.
func TestClientsLearnTheDesync(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 2
	srv, _ := NewServer[stick](cfg, simmatch.Epoch)
	tol := &tolerant{Server: srv}
	m, _ := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 1}}, tol)
	games := []*particles{newParticles(4), newParticles(4)}
	for p, g := range games {
		c, _ := NewClient[stick](cfg, g, bot(p), simmatch.Epoch)
		if _, err := m.Join(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	games[0].p[1].vy++
	err := m.Run(5 * time.Second)
	var want, got *DesyncError
	if !errors.As(tol.err, &want) || !errors.As(err, &got) || *got != *want {
		t.Fatalf("server %v, client %v: want the same desync", tol.err, err)
	}
}

// TestSilentPlayerLeavesTheLobby: a client that joins and never answers
// frees its place.
func TestSilentPlayerLeavesTheLobby(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 2
	srv, _ := NewServer[stick](cfg, simmatch.Epoch)
	if err := srv.Join(simmatch.Epoch, 9); err != nil {
		t.Fatal(err)
	}
	if err := srv.Update(simmatch.Epoch.Add(cfg.Timeout+time.Second), func(int, []byte) {}); err != nil {
		t.Fatal(err)
	}
	if st := srv.Stats(simmatch.Epoch); len(st.Players) != 0 {
		t.Fatalf("the silent player is still in the lobby: %+v", st.Players)
	}
	if err := srv.Join(simmatch.Epoch, 9); err != nil {
		t.Fatalf("joining again: %v", err)
	}
}

func TestLossMargin(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want int
	}{{0, 0}, {0.001, 1}, {0.01, 2}, {0.05, 3}, {0.1, 4}, {0.25, 5}, {0.5, 10}, {0.9, 20}, {1, 20}} {
		if got := lossMargin(c.p); got != c.want {
			t.Errorf("lossMargin(%v) = %d, want %d", c.p, got, c.want)
		}
	}
}

// TestDelayMovesWithoutJumps samples every client's input delay every
// frame while a link gets worse and better again: once the session runs,
// the delay never moves by more than Slew of a frame between two frames,
// except by the stall it absorbs (and the stalls are counted).
func TestDelayMovesWithoutJumps(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 3
	x := newMatch(t, cfg, netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.02}, 11)
	if err := x.m.Run(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	frame := time.Second / 60
	limit := time.Duration(cfg.Slew*float64(frame)) + time.Microsecond
	prev := make([]Stats, len(x.clients))
	for i, c := range x.clients {
		prev[i] = c.Stats()
	}
	for f := range 60 * 40 {
		switch f {
		case 60 * 5:
			bad := netsim.Conditions{Latency: 150 * time.Millisecond, Loss: 0.05}
			if err := x.m.SetLink(2, bad, bad); err != nil {
				t.Fatal(err)
			}
		case 60 * 20:
			good := netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.02}
			if err := x.m.SetLink(2, good, good); err != nil {
				t.Fatal(err)
			}
		}
		if err := x.m.Run(frame); err != nil {
			t.Fatal(err)
		}
		for i, c := range x.clients {
			s := c.Stats()
			d := s.InputDelay - prev[i].InputDelay
			if s.Stalled == prev[i].Stalled && (d > limit || d < -limit) {
				t.Fatalf("frame %d, client %d: the delay moved %v (%v → %v) without a stall", f, i, d, prev[i].InputDelay, s.InputDelay)
			}
			prev[i] = s
		}
	}
	for i, c := range x.clients {
		if s := c.Stats(); s.InputDelay > 300*time.Millisecond {
			t.Errorf("client %d: delay %v after the link recovered", i, s.InputDelay)
		}
	}
	x.check(t)
}
