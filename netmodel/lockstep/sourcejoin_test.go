package lockstep

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// lyingSource sends a state with one bit flipped when asked for it.
type lyingSource struct{ *joinable }

func (g lyingSource) MarshalState() ([]byte, error) {
	b, err := g.joinable.MarshalState()
	b[len(b)-1] ^= 1
	return b, err
}

// noRefMatch is a 4-player session without a referee over 60 ms of round
// trip and 2 % loss: player 3's link dies at 20 s and a client with its
// client id comes back at 25 s; the others are played by newGame's games
// (a hostile source among them), with hostile applied to every client
// (late: the rejoiner).
type noRefMatch struct {
	srv     *Server[stick, *stick]
	m       *simmatch.Match
	clients []*Client[stick, *stick] // by slot
	games   []*joinable
	watch   stallWatch
}

// noRefPlayers is the seats of the matches without a referee.
const noRefPlayers = 4

// noRefSetup builds a server of noRefPlayers without a referee, taking
// players' states of up to 1 MiB, in a match over 30 ms and 2 % loss; cfg
// is set as the clients need it too.
func noRefSetup(t *testing.T, cfg *Config, seed uint64) (*Server[stick, *stick], *simmatch.Match, netsim.Conditions) {
	t.Helper()
	cfg.Players = noRefPlayers
	cfg.MaxSnapshotBytes = 1 << 20
	srv, err := NewServer[stick](*cfg, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	cond := netsim.Conditions{Latency: 30 * time.Millisecond, Loss: 0.02}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: seed, Conditions: cond}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	return srv, m, cond
}

// chunkyJoinable is a game whose state takes a few chunks to send.
func chunkyJoinable() *joinable {
	g := newJoinable(noRefPlayers)
	g.pad = 5000
	return g
}

func runNoRefMatch(t *testing.T, cfg Config, seconds int, newGame func(player int, g *joinable) Game[stick], hostile func(player int, late bool, c *Client[stick, *stick])) *noRefMatch {
	t.Helper()
	const players = noRefPlayers
	srv, m, cond := noRefSetup(t, &cfg, 7)
	x := &noRefMatch{srv: srv, m: m, clients: make([]*Client[stick, *stick], players), games: make([]*joinable, players)}
	join := func(id uint64) int {
		g := chunkyJoinable()
		var game Game[stick] = g
		player := int(id - 1)
		if newGame != nil && player < players-1 {
			game = newGame(player, g)
		}
		c, err := NewClient[stick](cfg, game, func(t Tick, v *View) stick { return stickAt(v.Player, t) }, m.Now())
		if err != nil {
			t.Fatal(err)
		}
		if hostile != nil {
			hostile(player, m.Elapsed() > 0, c)
		}
		slot, err := m.JoinID(c, id)
		if err != nil {
			t.Fatalf("join at %v: %v", m.Elapsed(), err)
		}
		x.clients[slot], x.games[slot] = c, g
		if slot < len(x.watch.run) {
			x.watch.run[slot], x.watch.worst[slot] = 0, 0
		}
		return slot
	}
	for id := range uint64(players) {
		join(id + 1)
	}
	dead := netsim.Conditions{Loss: 1}
	for frame := 0; frame < seconds*60; frame++ {
		switch frame {
		case 20 * 60:
			if err := m.SetLink(3, dead, dead); err != nil {
				t.Fatal(err)
			}
		case 25 * 60:
			m.Leave(3)
			if slot := join(4); slot != 3 {
				t.Fatalf("the rejoining client got slot %d", slot)
			}
			if err := m.SetLink(3, cond, cond); err != nil {
				t.Fatal(err)
			}
		}
		err := m.Run(time.Second / 60)
		var dropped *DroppedError
		if errors.As(err, &dropped) && (dropped.Reason == ReasonSnapshot || dropped.Reason == ReasonSourceTimeout || dropped.Reason == ReasonJoinFailed) {
			// The hostile source learns why it was dropped: it is gone.
			for slot, c := range x.clients {
				if c != nil && errors.Is(c.Update(m.Now(), func([]byte) {}), ErrDropped) {
					t.Logf("slot %d at %v: %v", slot, m.Elapsed(), dropped)
					m.Leave(slot)
					x.clients[slot] = nil
				}
			}
		} else if err != nil {
			t.Fatalf("at %v: %v", m.Elapsed(), err)
		}
		if frame >= 24*60 {
			for i, c := range x.clients {
				if c != nil {
					x.watch.frame(i, c)
				}
			}
		}
	}
	return x
}

// check asserts that every client still playing has the same checksum as
// the others on every checkpoint tick after the rejoin that all of them
// simulated, that the rejoiner caught up, and that nobody stalled longer
// than its input delay after 24 s.
func (x *noRefMatch) check(t *testing.T) {
	t.Helper()
	st := x.srv.Stats(x.m.Now())
	if st.Desync != nil || st.Drops[ReasonDesync] > 0 || st.Refereed {
		t.Fatalf("desync %v, %d dropped for a desync, refereed %v", st.Desync, st.Drops[ReasonDesync], st.Refereed)
	}
	var upTo Tick = 1 << 30
	for _, c := range x.clients {
		if c != nil {
			upTo = min(upTo, c.Stats().Confirmed)
		}
	}
	joiner := x.clients[3].Stats()
	if joiner.JoinedAt == 0 || joiner.CaughtUp == 0 || joiner.SnapshotBytes == 0 || joiner.Player != 3 {
		t.Fatalf("the rejoiner: player %d, joined at tick %d, caught up after %v, %d snapshot bytes", joiner.Player, joiner.JoinedAt, joiner.CaughtUp, joiner.SnapshotBytes)
	}
	compared := 0
	for tick := (joiner.JoinedFrom/60 + 1) * 60; tick < upTo; tick += 60 {
		want, ok := x.games[3].sums[tick]
		for i, g := range x.games {
			if x.clients[i] == nil {
				continue
			}
			if got, has := g.sums[tick]; !has || got != want || !ok {
				t.Fatalf("tick %d: player in slot %d has checksum %#x (%v), the rejoiner %#x", tick, i, got, has, want)
			}
		}
		compared++
	}
	if compared < 5 || st.Verified == 0 {
		t.Fatalf("only %d checksums compared (confirmed up to %d), %d verified by the server", compared, upTo, st.Verified)
	}
	for i, c := range x.clients {
		if c == nil {
			continue
		}
		s := c.Stats()
		if frames := int(s.InputDelay/(time.Second/60)) + 1; x.watch.worst[i] > frames {
			t.Errorf("slot %d stalled %d frames in a row after 24 s, its input delay is %v", i, x.watch.worst[i], s.InputDelay)
		}
	}
	t.Logf("rejoiner: snapshot of tick %d (%d bytes), plays from tick %d, had it %v and caught up %v after connecting; %d compared, %d verified; server: %d asked, %d failed, %d bad; worst stalls %v",
		joiner.JoinedFrom, joiner.SnapshotBytes, joiner.JoinedAt, joiner.Joined, joiner.CaughtUp, compared, st.Verified,
		st.SnapshotRequests, st.SnapshotFailures, st.BadSnapshots, x.watch.worst)
}

// TestLateJoinWithoutReferee: without a referee a player's state of a
// checkpoint tick is the rejoiner's snapshot, checked against the
// checksum all agreed on; afterwards everyone's checksums agree, pure
// and rollback, and nobody stalls beyond its input delay.
func TestLateJoinWithoutReferee(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig(), DefaultRollbackConfig()} {
		t.Run(fmt.Sprintf("rollback=%d", cfg.Rollback), func(t *testing.T) {
			x := runNoRefMatch(t, cfg, 40, nil, nil)
			x.check(t)
			st := x.srv.Stats(x.m.Now())
			if st.LateJoins != 1 || st.SnapshotRequests != 1 || st.SnapshotFailures != 0 || st.BadSnapshots != 0 {
				t.Fatalf("%d late joins, %d states asked, %d failed, %d bad", st.LateJoins, st.SnapshotRequests, st.SnapshotFailures, st.BadSnapshots)
			}
			if src := st.Players[0]; src.SourceChunks == 0 {
				t.Fatalf("player 0, the first asked, sent no chunk of its state")
			}
		})
	}
}

// TestLyingSource: the first player asked sends a state with a bit
// flipped: the rejoiner finds its checksum wrong and says so, another
// player's state seats the rejoiner, and the checksums of all four agree.
// The liar is accused (asked after the others from then on) but stays:
// one joiner's word drops nobody (TestJoinerCannotFrameASource); a second
// client's drops it (TestSpectatorsWithoutReferee).
func TestLyingSource(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig(), DefaultRollbackConfig()} {
		t.Run(fmt.Sprintf("rollback=%d", cfg.Rollback), func(t *testing.T) {
			x := runNoRefMatch(t, cfg, 45, func(player int, g *joinable) Game[stick] {
				if player == 0 {
					return lyingSource{g}
				}
				return g
			}, nil)
			x.check(t)
			st := x.srv.Stats(x.m.Now())
			if st.Drops[ReasonSnapshot] != 0 || !st.Players[0].Connected || st.BadSnapshots != 1 || st.Accusations != 1 ||
				st.SnapshotFailures != 1 || st.SnapshotRequests != 2 || st.LateJoins != 2 || x.srv.members[0].accused != 1 {
				t.Fatalf("%d dropped for a bad snapshot, player 0 connected %v (%v); %d bad, %d accusations, %d failed of %d asked, %d seated",
					st.Drops[ReasonSnapshot], st.Players[0].Connected, st.Players[0].Reason, st.BadSnapshots, st.Accusations, st.SnapshotFailures, st.SnapshotRequests, st.LateJoins)
			}
			if n := x.clients[3].Stats().BadSnapshots; n != 1 {
				t.Fatalf("the rejoiner found %d bad snapshots", n)
			}
		})
	}
}

// TestSilentSource: the first player asked never answers: after Timeout
// it is dropped (ReasonSourceTimeout) and told, the next player's state
// seats the rejoiner, and the checksums agree.
func TestSilentSource(t *testing.T) {
	x := runNoRefMatch(t, DefaultConfig(), 50, nil, func(player int, _ bool, c *Client[stick, *stick]) { c.mute = player == 0 })
	x.check(t)
	st := x.srv.Stats(x.m.Now())
	if st.Drops[ReasonSourceTimeout] != 1 || st.Players[0].Reason != ReasonSourceTimeout || st.SnapshotFailures != 1 || st.SnapshotRequests != 2 || st.LateJoins != 1 {
		t.Fatalf("%d dropped for no snapshot, player 0's reason %v; %d failed of %d asked, %d seated",
			st.Drops[ReasonSourceTimeout], st.Players[0].Reason, st.SnapshotFailures, st.SnapshotRequests, st.LateJoins)
	}
	if x.clients[0] != nil {
		t.Fatal("the silent source's client did not learn it was dropped")
	}
}

// TestNoSource: a player whose game is no Snapshotter says it cannot send
// its state, and is asked no more; when no player can, the joiner is
// refused with the reason (Released).
func TestNoSource(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 2
	cfg.MaxSnapshotBytes = 1 << 20
	srv, _ := NewServer[stick](cfg, simmatch.Epoch)
	m, _ := simmatch.New(simmatch.Config{}, srv)
	for p := range 2 {
		c, _ := NewClient[stick](cfg, newParticles(4), bot(p), m.Now())
		if _, err := m.JoinID(c, uint64(p+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	m.Leave(1)
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	c, _ := NewClient[stick](cfg, newJoinable(2), bot(1), m.Now())
	slot, err := m.JoinID(c, 2)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 * 60 {
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
		if _, _, done := srv.Released(slot); done {
			break
		}
	}
	code, reason, done := srv.Released(slot)
	st := srv.Stats(m.Now())
	if !done || code != "late_join" || !strings.Contains(reason, "no player could send its state") || st.SnapshotFailures != 1 || st.LateJoins != 0 {
		t.Fatalf("released %v %q %q; %d failed, %d seated", done, code, reason, st.SnapshotFailures, st.LateJoins)
	}
	t.Log(reason)
}

// TestDistrustingJoiner: a rejoiner that finds every snapshot wrong
// cannot get honest players dropped: the first source is only suspected,
// and when a second player's state fails for it too, the rejoiner is
// dropped (ReasonJoinFailed), the sources stay.
func TestDistrustingJoiner(t *testing.T) {
	x := runNoRefMatch(t, DefaultConfig(), 40, nil, func(_ int, late bool, c *Client[stick, *stick]) {
		if late {
			c.distrust = 2
		}
	})
	st := x.srv.Stats(x.m.Now())
	if st.Drops[ReasonJoinFailed] != 1 || st.Drops[ReasonSnapshot] != 0 || st.Players[3].Reason != ReasonJoinFailed ||
		st.BadSnapshots != 2 || st.SnapshotRequests != 2 || st.Desync != nil {
		t.Fatalf("%d dropped for a failed join, %d for a bad snapshot, player 3's reason %v; %d bad of %d asked, desync %v",
			st.Drops[ReasonJoinFailed], st.Drops[ReasonSnapshot], st.Players[3].Reason, st.BadSnapshots, st.SnapshotRequests, st.Desync)
	}
	for p := range 3 {
		if !st.Players[p].Connected || x.clients[p] == nil {
			t.Fatalf("honest player %d was dropped (%v)", p, st.Players[p].Reason)
		}
	}
	if x.clients[3] != nil {
		t.Fatal("the distrusting joiner's client did not learn it was dropped")
	}
}

// TestSourceChunkBounds: the server takes a source's chunks only for the
// state it asked for, allocates only a size within MaxSnapshotBytes, and
// drops (ReasonSnapshot) a source that claims a larger state or changes
// its size mid-transfer.
func TestSourceChunkBounds(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players, cfg.MaxSnapshotBytes = 2, 4096
	for _, c := range []struct {
		name   string
		chunks []srcChunk
		drop   bool
		held   int // bytes allocated for the state afterwards
	}{
		{"another tick", []srcChunk{{tick: 120, total: 100, data: make([]byte, 100)}}, false, 0},
		{"within bounds", []srcChunk{{tick: 60, total: 3000, data: make([]byte, snapshotChunk)}}, false, 3000},
		{"beyond MaxSnapshotBytes", []srcChunk{{tick: 60, total: 4097, data: make([]byte, snapshotChunk)}}, true, 0},
		{"size changed", []srcChunk{{tick: 60, total: 3000, data: make([]byte, snapshotChunk)}, {tick: 60, total: 2000, index: 1, data: make([]byte, 2000-snapshotChunk)}}, true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := runningMatch(t, cfg)
			s, now := x.server, x.m.Now()
			m := s.members[0]
			s.fetch = &fetch[stick]{src: m, tick: 60, asked: now}
			for _, ch := range c.chunks {
				msg := clientMsg[stick]{acks: m.acks, source: true, src: ch}
				if err := s.handle(now, 0, m, encodeClient[stick](t, &msg, cfg.Window)); err != nil {
					t.Fatal(err)
				}
			}
			held := 0
			if s.fetch != nil {
				held = len(s.fetch.state.buf)
			}
			if dropped := !m.connected && m.reason == ReasonSnapshot; dropped != c.drop || held != c.held {
				t.Fatalf("dropped %v (%v), %d bytes held; want dropped %v, %d held", dropped, m.reason, held, c.drop, c.held)
			}
		})
	}
}

// TestLyingThenSilentSources: player 0 sends a false state and player 1
// none: the rejoiner, unseated again after the false one, waits out
// player 1's Timeout without timing out itself and is seated from player
// 2's state; player 1 is dropped for its silence, player 0 is accused by
// the rejoiner (one client's word: it stays).
func TestLyingThenSilentSources(t *testing.T) {
	x := runNoRefMatch(t, DefaultConfig(), 55, func(player int, g *joinable) Game[stick] {
		if player == 0 {
			return lyingSource{g}
		}
		return g
	}, func(player int, _ bool, c *Client[stick, *stick]) { c.mute = player == 1 })
	st := x.srv.Stats(x.m.Now())
	if st.Drops[ReasonSnapshot] != 0 || st.Drops[ReasonSourceTimeout] != 1 || !st.Players[0].Connected || st.Accusations != 1 ||
		st.Players[1].Reason != ReasonSourceTimeout || st.SnapshotRequests != 3 || st.LateJoins != 2 {
		t.Fatalf("drops %v, player 0 connected %v, player 1's reason %v; %d accusations, %d asked, %d seated",
			st.Drops, st.Players[0].Connected, st.Players[1].Reason, st.Accusations, st.SnapshotRequests, st.LateJoins)
	}
	if x.clients[2] == nil || x.clients[3] == nil {
		t.Fatal("an honest player or the rejoiner was dropped")
	}
	j := x.clients[3].Stats()
	if j.CaughtUp == 0 || j.Checksums == 0 {
		t.Fatalf("the rejoiner: caught up after %v, %d checksums", j.CaughtUp, j.Checksums)
	}
	if a, b := x.clients[2].Stats(), j; a.LastChecksumTick == b.LastChecksumTick && a.LastChecksum != b.LastChecksum {
		t.Fatalf("tick %d: checksums %#x and %#x", a.LastChecksumTick, a.LastChecksum, b.LastChecksum)
	}
	t.Logf("rejoiner had its state %v and caught up %v after connecting", j.Joined, j.CaughtUp)
}

// TestSourceNotBlamedWithoutAgreement: player 0 sends its whole state of
// the checkpoint the server asked for, but player 2's checksums never
// reach the server, so that tick's checksums never agree: after Timeout
// the fetch fails without blaming player 0 (not dropped, not asked
// again), another player is asked, and the rejoiner is not seated from a
// state nobody agreed on.
func TestSourceNotBlamedWithoutAgreement(t *testing.T) {
	x := runNoRefMatch(t, DefaultConfig(), 37, nil, func(player int, late bool, c *Client[stick, *stick]) {
		c.hideSums = player == 2 && !late
	})
	st := x.srv.Stats(x.m.Now())
	if st.Disconnected != 1 || st.Drops[ReasonLag] != 1 || st.Drops[ReasonSourceTimeout] != 0 || !st.Players[0].Connected {
		t.Fatalf("%d dropped (%d for lag, the killed player 3; %d for no state), player 0 connected %v (%v)",
			st.Disconnected, st.Drops[ReasonLag], st.Drops[ReasonSourceTimeout], st.Players[0].Connected, st.Players[0].Reason)
	}
	if st.Players[0].SourceChunks == 0 || st.SnapshotFailures != 1 || st.SnapshotRequests != 2 || st.LateJoins != 0 || st.Joining != 1 {
		t.Fatalf("player 0 sent %d chunks; %d failed of %d asked, %d seated, %d waiting",
			st.Players[0].SourceChunks, st.SnapshotFailures, st.SnapshotRequests, st.LateJoins, st.Joining)
	}
	if x.clients[0] == nil || x.clients[3].Player() != -1 && x.clients[3].Stats().JoinedAt != 0 {
		t.Fatalf("player 0's client gone %v; the rejoiner is player %d, joined at %d", x.clients[0] == nil, x.clients[3].Player(), x.clients[3].Stats().JoinedAt)
	}
	t.Logf("player 0 sent %d chunks; %d states asked, %d failed; player 0's reason %v", st.Players[0].SourceChunks, st.SnapshotRequests, st.SnapshotFailures, st.Players[0].Reason)
}

// TestJoinerCannotFrameASource: a hostile rejoiner calls player 0's
// (honest) state wrong and player 1's right. Its word is all the server
// has, and one client's word drops nobody: player 0 stays connected and
// keeps playing, the rejoiner is seated from player 1's state, and player
// 0 is asked after the others from then on. (Before, player 0 was dropped
// with ReasonSnapshot: one joiner, or one spectator, could remove any
// honest player of a session without a referee, one per rejoin.)
func TestJoinerCannotFrameASource(t *testing.T) {
	x := runNoRefMatch(t, DefaultConfig(), 40, nil, func(_ int, late bool, c *Client[stick, *stick]) {
		if late {
			c.distrust = 1
		}
	})
	x.check(t)
	st := x.srv.Stats(x.m.Now())
	if st.Drops[ReasonSnapshot] != 0 || st.Drops[ReasonJoinFailed] != 0 || st.BadSnapshots != 1 || st.SnapshotRequests != 2 || st.LateJoins != 2 {
		t.Fatalf("%d dropped for a bad snapshot, %d for a failed join; %d bad of %d asked, %d seated",
			st.Drops[ReasonSnapshot], st.Drops[ReasonJoinFailed], st.BadSnapshots, st.SnapshotRequests, st.LateJoins)
	}
	for p := range 3 {
		if !st.Players[p].Connected || x.clients[p] == nil {
			t.Fatalf("honest player %d was dropped (%v)", p, st.Players[p].Reason)
		}
	}
	if x.clients[3].Stats().BadSnapshots != 1 {
		t.Fatalf("the rejoiner called %d snapshots wrong", x.clients[3].Stats().BadSnapshots)
	}
}
