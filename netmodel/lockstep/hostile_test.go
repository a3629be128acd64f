package lockstep

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// The trust model's cases (issue 21): one player of four is hostile or
// misconfigured, the three others are honest bots, and the server must
// drop the one and go on with the others.

// tally is the particle game recording its checksum after every 60th
// tick; lie, when set, makes it report a false checksum of that tick
// (the state stays honest: only the report lies).
type tally struct {
	*particles
	sums map[Tick]uint64
	lie  Tick
}

func newTally(players int) *tally {
	return &tally{particles: newParticles(players + 2), sums: map[Tick]uint64{}, lie: -1}
}

func (g *tally) Step(in []stick) {
	g.particles.Step(in)
	if t := Tick(g.steps - 1); t%60 == 0 {
		g.sums[t] = g.particles.Checksum()
	}
}

func (g *tally) Checksum() uint64 {
	sum := g.particles.Checksum()
	if Tick(g.steps-1) == g.lie {
		return ^sum
	}
	return sum
}

// player is a client that records the error that ended it instead of
// stopping the run, and then goes quiet, as a process that exits would.
// silent, when set, makes it send nothing while it returns true.
type player struct {
	*Client[stick, *stick]
	err    error
	deaf   bool // drops everything the server sends
	silent func(now time.Time) bool
}

func (p *player) Receive(now time.Time, d []byte) error {
	if p.err != nil || p.deaf {
		return nil
	}
	return p.Client.Receive(now, d)
}

func (p *player) Update(now time.Time, send func([]byte)) error {
	if p.err != nil || p.silent != nil && p.silent(now) {
		return nil
	}
	if err := p.Client.Update(now, send); err != nil {
		p.err = err
	}
	return nil
}

// arena is a 4-player session whose last player is built by the test.
type arena struct {
	m       *simmatch.Match
	server  *Server[stick, *stick]
	players []*player
	games   []*tally
	ref     *tally
}

const frame = time.Second / 60

// newArena starts a session of cfg.Players over 20 ms links; players
// 0..n-2 are honest, the last is configured by hostile (nil: honest);
// with referee the server simulates the game itself.
func newArena(t *testing.T, cfg Config, referee bool, hostile func(p *player, g *tally)) *arena {
	t.Helper()
	srv, err := NewServer[stick](cfg, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	a := &arena{server: srv}
	if referee {
		a.ref = newTally(cfg.Players)
		if err := srv.SetReferee(a.ref); err != nil {
			t.Fatal(err)
		}
	}
	if a.m, err = simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 21, Conditions: netsim.Conditions{Latency: 20 * time.Millisecond}}}, srv); err != nil {
		t.Fatal(err)
	}
	for i := range cfg.Players {
		g := newTally(cfg.Players)
		c, err := NewClient[stick](cfg, g, bot(i), simmatch.Epoch)
		if err != nil {
			t.Fatal(err)
		}
		p := &player{Client: c}
		if i == cfg.Players-1 && hostile != nil {
			hostile(p, g)
		}
		if _, err := a.m.Join(p); err != nil {
			t.Fatal(err)
		}
		a.players, a.games = append(a.players, p), append(a.games, g)
	}
	return a
}

func (a *arena) run(t *testing.T, d time.Duration) {
	t.Helper()
	if err := a.m.Run(d); err != nil {
		t.Fatal(err)
	}
}

// honest returns the honest players (all but the last).
func (a *arena) honest() []*player { return a.players[:len(a.players)-1] }

// runUntilDropped runs until the server has dropped the last player, and
// fails after limit.
func (a *arena) runUntilDropped(t *testing.T, limit time.Duration) PlayerStats {
	t.Helper()
	last := len(a.players) - 1
	for end := a.m.Elapsed() + limit; a.m.Elapsed() < end; {
		a.run(t, frame)
		if st := a.server.Stats(a.m.Now()); len(st.Players) > last && !st.Players[last].Connected {
			return st.Players[last]
		}
	}
	t.Fatalf("the hostile player is still connected after %v", limit)
	return PlayerStats{}
}

// worstStall runs d frame by frame and returns the longest run of
// stalled frames of any honest player, as a duration.
func (a *arena) worstStall(t *testing.T, d time.Duration) time.Duration {
	t.Helper()
	runs := make([]int, len(a.players))
	worst := 0
	for range int(d / frame) {
		a.run(t, frame)
		for i, p := range a.honest() {
			if p.Stats().Stalling {
				runs[i]++
				worst = max(worst, runs[i])
			} else {
				runs[i] = 0
			}
		}
	}
	return time.Duration(worst) * frame
}

// checkHonest requires every honest player to be running, not dropped,
// and their recorded checksums (and the referee's) to agree at every
// tick they share, from before the drop to the end.
func (a *arena) checkHonest(t *testing.T, upTo Tick) {
	t.Helper()
	st := a.server.Stats(a.m.Now())
	for i, p := range a.honest() {
		if p.err != nil || !st.Players[i].Connected {
			t.Fatalf("honest player %d: %v, connected %v", i, p.err, st.Players[i].Connected)
		}
		if p.Tick() < upTo {
			t.Fatalf("honest player %d reached only tick %d, want %d", i, p.Tick(), upTo)
		}
	}
	games := a.games[:len(a.games)-1]
	if a.ref != nil {
		games = append(games, a.ref)
	}
	compared := 0
	for tick := Tick(0); tick < upTo; tick += 60 {
		want, ok := games[0].sums[tick]
		if !ok {
			t.Fatalf("honest player 0 has no checksum of tick %d", tick)
		}
		for i, g := range games[1:] {
			if got, ok := g.sums[tick]; ok && got != want {
				t.Fatalf("tick %d: game %d has %#x, player 0 %#x", tick, i+1, got, want)
			} else if ok {
				compared++
			}
		}
	}
	if compared == 0 {
		t.Fatal("no checksum compared")
	}
}

func TestRefereeDropsTheFalseChecksum(t *testing.T) {
	for _, referee := range []bool{true, false} {
		a := newArena(t, DefaultConfig(), referee, func(p *player, g *tally) { g.lie = 300 })
		gone := a.runUntilDropped(t, 10*time.Second)
		if gone.Reason != ReasonDesync || gone.ReasonTick != 300 {
			t.Fatalf("referee %v: the liar was dropped for %v at tick %d, want its checksum of tick 300", referee, gone.Reason, gone.ReasonTick)
		}
		a.run(t, 15*time.Second)
		liar := a.players[3].err
		var d *DroppedError
		if !errors.As(liar, &d) || d.Reason != ReasonDesync || !strings.Contains(liar.Error(), "your state differs from the server's at tick 300") {
			t.Fatalf("referee %v: the liar's client ended with %v", referee, liar)
		}
		a.checkHonest(t, 1200)
		st := a.server.Stats(a.m.Now())
		if st.Desync != nil || st.Drops[ReasonDesync] != 1 || st.Disconnected != 1 || st.Verified < 15 || st.Refereed != referee {
			t.Fatalf("referee %v: server %+v", referee, st)
		}
	}
}

// TestOtherLayoutIsDropped: a player whose game starts from another
// arrangement (a genuine desync, not malice) differs from the referee at
// tick 0; it alone is dropped.
func TestOtherLayoutIsDropped(t *testing.T) {
	a := newArena(t, DefaultConfig(), true, func(p *player, g *tally) { g.p[0].x += 7 })
	gone := a.runUntilDropped(t, 5*time.Second)
	if gone.Reason != ReasonDesync || gone.ReasonTick != 0 {
		t.Fatalf("dropped for %v at tick %d, want a desync at tick 0", gone.Reason, gone.ReasonTick)
	}
	a.run(t, 10*time.Second)
	if !errors.Is(a.players[3].err, ErrDropped) {
		t.Fatalf("the other layout's client ended with %v", a.players[3].err)
	}
	a.checkHonest(t, 600)
}

// TestRefereeDesyncEndsTheMatch: when the server's own simulation
// differs from every player's (a non-deterministic game, a bug), nobody
// is blamed: the session stops and every client learns it.
func TestRefereeDesyncEndsTheMatch(t *testing.T) {
	cfg := DefaultConfig()
	srv, _ := NewServer[stick](cfg, simmatch.Epoch)
	bad := newTally(cfg.Players)
	bad.p[1].vy = 5
	if err := srv.SetReferee(bad); err != nil {
		t.Fatal(err)
	}
	tol := &tolerant{Server: srv}
	m, _ := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 4}}, tol)
	var players []*player
	for i := range cfg.Players {
		c, _ := NewClient[stick](cfg, newTally(cfg.Players), bot(i), simmatch.Epoch)
		p := &player{Client: c}
		if _, err := m.Join(p); err != nil {
			t.Fatal(err)
		}
		players = append(players, p)
	}
	if err := m.Run(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	var d *DesyncError
	if !errors.As(tol.err, &d) || !d.Referee || d.Tick != 0 || !strings.Contains(d.Error(), "not deterministic") {
		t.Fatalf("server: %v, want the referee's desync at tick 0", tol.err)
	}
	for i, p := range players {
		var got *DesyncError
		if !errors.As(p.err, &got) || *got != *d {
			t.Fatalf("player %d: %v, want %v", i, p.err, d)
		}
	}
	if st := srv.Stats(m.Now()); st.Disconnected != 0 {
		t.Fatalf("%d players dropped for the referee's fault", st.Disconnected)
	}
}

// TestOtherPlayerCountIsNamed: a client set up for 2 players joining a
// session of 4 stops with an error naming both counts.
func TestOtherPlayerCountIsNamed(t *testing.T) {
	a := newArena(t, DefaultConfig(), true, nil)
	cfg := DefaultConfig()
	cfg.Players = 2
	c, err := NewClient[stick](cfg, newTally(2), bot(0), simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	// The session is full: the server refuses the fifth, so let the
	// mismatched client replace the honest fourth before the start.
	a.m.Leave(3)
	odd := &player{Client: c}
	if _, err := a.m.Join(odd); err != nil {
		t.Fatal(err)
	}
	a.run(t, 3*time.Second)
	if odd.err == nil || !errors.Is(odd.err, ErrConfig) || !strings.Contains(odd.err.Error(), "has 4 players, this client was set up for 2") {
		t.Fatalf("the 2-player client ended with %v", odd.err)
	}
}

// The withholding players: each is dropped for its inputs lagging the
// session clock (MaxLag), never the honest players waiting for them, and
// once it is gone nobody stalls for a second.
func TestWithholdingPlayersAreDropped(t *testing.T) {
	for _, c := range []struct {
		name    string
		hostile func(p *player, g *tally)
	}{
		{"ack-only", func(p *player, _ *tally) {
			p.withhold = func(Tick, float64) bool { return true }
		}},
		{"half-rate", func(p *player, _ *tally) {
			p.withhold = func(t Tick, est float64) bool { return float64(t) > est/2 }
		}},
		{"pulsing", func(p *player, _ *tally) {
			// Silent 9 s out of every 10, from 3 s on.
			p.silent = func(now time.Time) bool {
				d := now.Sub(simmatch.Epoch) - 3*time.Second
				return d > 0 && d%(10*time.Second) < 9*time.Second
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newArena(t, DefaultConfig(), true, c.hostile)
			gone := a.runUntilDropped(t, 30*time.Second)
			if gone.Reason != ReasonLag {
				t.Fatalf("dropped for %v, want %v", gone.Reason, ReasonLag)
			}
			dropped := a.m.Elapsed()
			before := a.players[0].Stats()
			worst := a.worstStall(t, 20*time.Second)
			if worst >= time.Second {
				t.Errorf("an honest player stalled %v after the drop", worst)
			}
			t.Logf("dropped at %v (tick %d); before: player 0 longest stall %v, %d stalled frames, delay %v; worst stall after: %v",
				dropped, gone.ReasonTick, before.LongestStall, before.Stalled, before.InputDelay.Round(time.Millisecond), worst)
			for i, p := range a.honest() {
				if s := p.Stats(); s.InputDelay > DefaultConfig().MaxLag {
					t.Errorf("honest player %d: input delay %v, above MaxLag", i, s.InputDelay)
				}
			}
			a.checkHonest(t, Tick((dropped+15*time.Second)/frame))
			if a.players[3].err != nil && !errors.Is(a.players[3].err, ErrDropped) {
				t.Errorf("the hostile client ended with %v", a.players[3].err)
			}
			if st := a.server.Stats(a.m.Now()); st.Disconnected != 1 || st.Drops[ReasonLag] != 1 {
				t.Errorf("server dropped %d (%v)", st.Disconnected, st.Drops)
			}
		})
	}
}

// TestLobbyHolderCannotStopTheStart: a player whose datagrams never
// acknowledge the server's keeps its round trip unknown; the session
// starts StartTimeout after the lobby filled, without it.
func TestLobbyHolderCannotStopTheStart(t *testing.T) {
	cfg := DefaultConfig()
	a := newArena(t, cfg, true, func(p *player, _ *tally) { p.deaf = true })
	a.run(t, cfg.StartTimeout+time.Second)
	for i, p := range a.honest() {
		if !p.Running() {
			t.Fatalf("honest player %d: no session %v after the lobby filled", i, cfg.StartTimeout+time.Second)
		}
	}
	st := a.server.Stats(a.m.Now())
	if last := st.Players[3]; last.Connected || last.Reason != ReasonNoStart || st.Drops[ReasonNoStart] != 1 {
		t.Fatalf("the lobby holder: %+v", last)
	}
	if worst := a.worstStall(t, 10*time.Second); worst >= time.Second {
		t.Errorf("an honest player stalled %v", worst)
	}
	a.checkHonest(t, 500)
}

// TestReleasedAfterTheDrop: the server lets its driver close a dropped
// player's connection once it has told it why, so that a player that
// stays connected cannot keep a finished match alive.
func TestReleasedAfterTheDrop(t *testing.T) {
	a := newArena(t, DefaultConfig(), true, func(p *player, _ *tally) {
		p.withhold = func(Tick, float64) bool { return true }
	})
	a.runUntilDropped(t, 10*time.Second)
	if code, _, done := a.server.Released(3); done || code != "lag" {
		t.Fatalf("released %v (code %q) before the player was told why", done, code)
	}
	a.run(t, tellDropped+frame)
	code, reason, done := a.server.Released(3)
	if !done || code != "lag" || !strings.Contains(reason, "behind the session clock") {
		t.Fatalf("released %v: %q", done, reason)
	}
	if _, _, done := a.server.Released(0); done {
		t.Fatal("an honest player released")
	}
	if !errors.Is(a.players[3].err, ErrDropped) {
		t.Fatalf("the dropped player's client: %v", a.players[3].err)
	}
}

// TestBufferStepBlamesTheWithholder: when what the session still needs
// no longer fits in the buffer, the step that drops a player blames the
// one whose inputs are missing, not the honest players whose acks wait
// for those inputs (before issue 21 it dropped the three honest players
// and kept the withholder). With a valid Config the MaxLag rule drops a
// withholder first; this is the backstop, so it is asked directly.
func TestBufferStepBlamesTheWithholder(t *testing.T) {
	a := newArena(t, DefaultConfig(), false, func(p *player, _ *tally) {
		p.withhold = func(Tick, float64) bool { return true }
	})
	a.run(t, 1500*time.Millisecond)
	s := a.server
	if s.state != stateRunning || s.connected() != 4 {
		t.Fatalf("state %d, %d connected", s.state, s.connected())
	}
	if low := s.minAck(); s.members[3].ring.have > low {
		t.Fatalf("the withholder has inputs up to %d, the oldest tick needed is %d", s.members[3].ring.have, low)
	}
	if got := s.laggard(); got != s.members[3] {
		t.Fatalf("the buffer step blames slot %d, want the withholder (%d)", got.slot, s.members[3].slot)
	}
}

// TestNextMatchAfterASilentPlayer: a player that stays connected, sending
// acks and no inputs, cannot keep a finished match alive. A driver that
// closes what Released hands it (udpdrive does; here the test, in virtual
// time) is left with no player once the honest ones finish, and a second
// session takes four players, the hostile one's slot among them.
func TestNextMatchAfterASilentPlayer(t *testing.T) {
	a := newArena(t, DefaultConfig(), true, func(p *player, _ *tally) {
		p.withhold = func(Tick, float64) bool { return true }
	})
	joined := []bool{true, true, true, true}
	const finish = 600
	for end := a.m.Elapsed() + time.Minute; a.m.Elapsed() < end && slices.Contains(joined, true); {
		a.run(t, frame)
		for slot, p := range a.players {
			if !joined[slot] {
				continue
			}
			_, _, done := a.server.Released(slot)
			if done || slot < 3 && p.Tick() > finish {
				a.m.Leave(slot) // the driver closes the connection, or the player is done
				joined[slot] = false
			}
		}
	}
	if slices.Contains(joined, true) {
		t.Fatalf("players still in the first match after a minute: %v", joined)
	}
	st := a.server.Stats(a.m.Now())
	if st.Players[3].Reason != ReasonLag || st.Disconnected != 1 {
		t.Fatalf("first match: %+v", st)
	}
	// The next session, on the same slots.
	x := newMatch(t, DefaultConfig(), netsim.Conditions{Latency: 20 * time.Millisecond}, 22)
	if err := x.m.Run(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	x.check(t)
}
