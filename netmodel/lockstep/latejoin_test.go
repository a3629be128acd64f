package lockstep

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// joinable is the particle game as a Snapshotter, recording its checksum
// after every tick that is a multiple of 60 (the last simulation of it
// wins, so a rollback's correction stands).
type joinable struct {
	*particles
	tick Tick // the next tick Step simulates
	sums map[Tick]uint64
	pad  int // bytes of filler the state carries, for a transfer of many chunks
}

func newJoinable(players int) *joinable {
	return &joinable{particles: newParticles(players + 2), sums: map[Tick]uint64{}}
}

func (g *joinable) Step(in []stick) {
	g.particles.Step(in)
	if g.tick%60 == 0 {
		g.sums[g.tick] = g.particles.Checksum()
	}
	g.tick++
}

// Save and Load keep the tick with the particles.
func (g *joinable) Save(slot int) {
	g.particles.Save(slot)
	g.particles.saved[slot] = append(g.particles.saved[slot], particle{x: int64(g.tick)})
}

func (g *joinable) Load(slot int) {
	s := g.particles.saved[slot]
	g.tick = Tick(s[len(s)-1].x)
	copy(g.p, s[:len(s)-1])
}

func (g *joinable) MarshalState() ([]byte, error) {
	b := binary.LittleEndian.AppendUint32(nil, uint32(g.tick))
	b = binary.LittleEndian.AppendUint64(b, uint64(g.steps))
	for _, p := range g.p {
		for _, v := range [...]int64{p.x, p.y, p.vx, p.vy} {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	for i := range g.pad {
		b = append(b, byte(i*7+int(g.tick)))
	}
	return b, nil
}

func (g *joinable) UnmarshalState(b []byte) error {
	if len(b) != 12+32*len(g.p)+g.pad {
		return fmt.Errorf("state of %d bytes, want %d", len(b), 12+32*len(g.p)+g.pad)
	}
	for i, c := range b[len(b)-g.pad:] {
		if c != byte(i*7+int(binary.LittleEndian.Uint32(b))) {
			return fmt.Errorf("filler byte %d is %d", i, c)
		}
	}
	g.tick = Tick(binary.LittleEndian.Uint32(b))
	g.steps = int(binary.LittleEndian.Uint64(b[4:]))
	b = b[12:]
	for i := range g.p {
		v := func(k int) int64 { return int64(binary.LittleEndian.Uint64(b[32*i+8*k:])) }
		g.p[i] = particle{v(0), v(1), v(2), v(3)}
	}
	return nil
}

// stallWatch measures each client's stalls frame by frame after a time.
type stallWatch struct {
	run, worst []int // stalled frames in a row, and the most
}

func (w *stallWatch) frame(i int, c *Client[stick, *stick]) {
	for len(w.run) <= i {
		w.run, w.worst = append(w.run, 0), append(w.worst, 0)
	}
	if c.Stats().Stalling {
		w.run[i]++
		w.worst[i] = max(w.worst[i], w.run[i])
	} else {
		w.run[i] = 0
	}
}

// TestLateJoinAndRejoin plays a 4-player refereed session over 60 ms of
// round trip and 2 % loss, pure and rollback (whose game state carries
// 400 kB of filler, so that the snapshot takes 391 chunks over the lossy
// link): player 3 is killed at 20 s
// (its link goes dead; the server drops it for lag) and a new client with
// its client id rejoins in its seat at 25 s; player 1 leaves at 30 s and
// a fifth client joins late at 32 s, taking the free seat 1 once its
// RejoinGrace (1 s here) is over (MaxPlayers is 4: a late joiner takes a
// seat a player left). Each joiner receives the referee's
// state and the inputs since, catches up and plays. At the end every
// player's checksums equal the referee's (none dropped for a desync, and
// the checksums of the ticks after the joins are compared), and from
// 24 s on no player stalls longer than its input delay.
func TestLateJoinAndRejoin(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig(), DefaultRollbackConfig()} {
		t.Run(fmt.Sprintf("rollback=%d", cfg.Rollback), func(t *testing.T) {
			const players = 4
			cfg.Players = players
			cfg.MaxSnapshotBytes = 8 << 20
			cfg.RejoinGrace = time.Second
			srv, err := NewServer[stick](cfg, simmatch.Epoch)
			if err != nil {
				t.Fatal(err)
			}
			pad := 0
			if cfg.Rollback > 0 {
				pad = 400_000
			}
			ref := newJoinable(players)
			ref.pad = pad
			if err := srv.SetReferee(ref); err != nil {
				t.Fatal(err)
			}
			cond := netsim.Conditions{Latency: 30 * time.Millisecond, Loss: 0.02}
			m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 5, Conditions: cond}}, srv)
			if err != nil {
				t.Fatal(err)
			}
			clients := make([]*Client[stick, *stick], players) // by slot
			games := make([]*joinable, players)
			var watch stallWatch
			join := func(id uint64) int {
				g := newJoinable(players)
				g.pad = pad
				c, err := NewClient[stick](cfg, g, func(t Tick, v *View) stick { return stickAt(v.Player, t) }, m.Now())
				if err != nil {
					t.Fatal(err)
				}
				slot, err := m.JoinID(c, id)
				if err != nil {
					t.Fatalf("join at %v: %v", m.Elapsed(), err)
				}
				clients[slot], games[slot] = c, g
				if slot < len(watch.run) {
					watch.run[slot], watch.worst[slot] = 0, 0 // the stalls of the client it replaces are not its own
				}
				return slot
			}
			for id := range uint64(players) {
				join(id + 1)
			}
			for frame := 0; frame < 45*60; frame++ {
				switch frame {
				case 20 * 60:
					dead := netsim.Conditions{Loss: 1}
					if err := m.SetLink(3, dead, dead); err != nil {
						t.Fatal(err)
					}
				case 25 * 60:
					m.Leave(3) // the killed process's connection times out
					if slot := join(4); slot != 3 {
						t.Fatalf("the rejoining client got slot %d", slot)
					}
					if err := m.SetLink(3, cond, cond); err != nil {
						t.Fatal(err)
					}
				case 30 * 60:
					m.Leave(1)
				case 32 * 60:
					if slot := join(5); slot != 1 {
						t.Fatalf("the fifth client got slot %d", slot)
					}
				}
				if err := m.Run(time.Second / 60); err != nil {
					t.Fatalf("at %v: %v", m.Elapsed(), err)
				}
				if frame >= 24*60 {
					for i, c := range clients {
						watch.frame(i, c)
					}
				}
			}
			st := srv.Stats(m.Now())
			if st.Desync != nil || st.Drops[ReasonDesync] > 0 || st.LateJoins != 2 {
				t.Fatalf("desync %v, %d dropped for a desync, %d late joins (want 2)", st.Desync, st.Drops[ReasonDesync], st.LateJoins)
			}
			// Every player now in the session agrees with the others on every
			// tick after the second join that all of them have simulated.
			var upTo Tick = 1 << 30
			for _, c := range clients {
				upTo = min(upTo, c.Stats().Confirmed)
			}
			compared := 0
			for tick := Tick(33 * 60); tick < upTo; tick += 60 {
				want, ok := games[0].sums[tick]
				for i, g := range games {
					if got, has := g.sums[tick]; !has || got != want || !ok {
						t.Fatalf("tick %d: player in slot %d has checksum %#x (%v), slot 0 %#x", tick, i, got, has, want)
					}
				}
				compared++
			}
			if compared < 8 {
				t.Fatalf("only %d checksums compared (confirmed up to %d)", compared, upTo)
			}
			if st.Verified == 0 || st.RefereeTick < upTo {
				t.Fatalf("referee at tick %d, %d verified", st.RefereeTick, st.Verified)
			}
			for i, c := range clients {
				s := c.Stats()
				delayFrames := int(s.InputDelay/(time.Second/60)) + 1
				if watch.worst[i] > delayFrames {
					t.Errorf("slot %d stalled %d frames in a row after 24 s, its input delay is %v", i, watch.worst[i], s.InputDelay)
				}
				if i == 1 || i == 3 {
					if s.JoinedAt == 0 || s.CaughtUp == 0 || s.SnapshotBytes == 0 {
						t.Errorf("slot %d: joined at tick %d, caught up after %v, %d snapshot bytes", i, s.JoinedAt, s.CaughtUp, s.SnapshotBytes)
					}
					t.Logf("slot %d: snapshot of tick %d, %d bytes, plays from tick %d; had it %v and caught up %v after connecting",
						i, s.JoinedFrom, s.SnapshotBytes, s.JoinedAt, s.Joined, s.CaughtUp)
				}
			}
			t.Logf("worst stalls after 24 s, frames: %v; %d ticks verified, %d checksums compared by the test", watch.worst, st.Verified, compared)
		})
	}
}

// TestLateJoinRefused: with late join off (DefaultConfig), or with a
// referee whose game is not a Snapshotter, Join of a running session says
// why; with every seat taken, with or without a referee, a player's
// client is never made a spectator: it is refused at its first message
// with the reason (Released, which the driver tells the client).
func TestLateJoinRefused(t *testing.T) {
	for i, ref := range []Game[stick]{newJoinable(2), nil, newParticles(4), newJoinable(2)} {
		cfg := DefaultConfig()
		cfg.Players = 2
		if i > 0 {
			cfg.MaxSnapshotBytes = 1 << 20
		}
		srv, _ := NewServer[stick](cfg, simmatch.Epoch)
		if ref != nil {
			if err := srv.SetReferee(ref); err != nil {
				t.Fatal(err)
			}
		}
		m, _ := simmatch.New(simmatch.Config{}, srv)
		for p := range 2 {
			c, _ := NewClient[stick](cfg, newJoinable(2), bot(p), m.Now())
			if _, err := m.Join(c); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.Run(2 * time.Second); err != nil {
			t.Fatal(err)
		}
		c, _ := NewClient[stick](cfg, newJoinable(2), bot(0), m.Now())
		slot, err := m.Join(c)
		if i == 1 || i == 3 {
			if err != nil {
				t.Fatal(err)
			}
			reason := refusedWith(t, srv, m, slot, "every seat is taken")
			if st := srv.Stats(m.Now()); st.Watchers != 0 || st.Joining != 0 || c.Player() != -1 {
				t.Fatalf("referee %T: the refused player's client: %d spectators, %d joining, player %d", ref, st.Watchers, st.Joining, c.Player())
			}
			t.Log(reason)
			continue
		}
		if !errors.Is(err, ErrSession) {
			t.Fatalf("referee %T: late join into a full session: %v", ref, err)
		}
		t.Log(err)
	}
}

// TestFullLobbyRefusesPlayer: a player's client that joins a full lobby
// is refused at its first message with the reason, never made a
// spectator; a spectator joining it watches.
func TestFullLobbyRefusesPlayer(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 2
	srv, _ := NewServer[stick](cfg, simmatch.Epoch)
	m, _ := simmatch.New(simmatch.Config{}, srv)
	for p := range 2 {
		c, _ := NewClient[stick](cfg, newParticles(4), bot(p), m.Now())
		if _, err := m.Join(c); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := NewClient[stick](cfg, newParticles(4), bot(0), m.Now())
	slot, err := m.Join(c)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := NewSpectator[stick](cfg, newParticles(4), m.Now())
	if _, err := m.Join(w); err != nil {
		t.Fatal(err)
	}
	t.Log(refusedWith(t, srv, m, slot, "seats are taken"))
	if err := m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if st := srv.Stats(m.Now()); st.Watchers != 1 || !st.Running || w.Tick() == 0 {
		t.Fatalf("%d spectators, running %v, the spectator at tick %d", st.Watchers, st.Running, w.Tick())
	}
}

// refusedWith runs the session until the server has let the client in
// slot go, checks that it was refused as a late joiner with a reason that
// contains want, and takes it out as the driver would; it returns the
// reason.
func refusedWith(t *testing.T, srv *Server[stick, *stick], m *simmatch.Match, slot int, want string) string {
	t.Helper()
	for range 60 {
		if _, _, done := srv.Released(slot); done {
			break
		}
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
	}
	code, reason, done := srv.Released(slot)
	if !done || code != "late_join" || !strings.Contains(reason, want) || !strings.HasPrefix(reason, ErrSession.Error()) {
		t.Fatalf("slot %d: released %v, %q %q; want a refusal that says %q", slot, done, code, reason, want)
	}
	m.Leave(slot)
	return reason
}

// TestRejoinTakesOwnSeat: with seats 1 and 2 free, the client whose
// connect token names seat 2's player (JoinClient, as udpdrive passes
// netcode's client id) gets seat 2 back, not the lowest free seat; a
// stranger is kept out of seat 1, held for its player for RejoinGrace,
// with a reason that says so (with or without a referee: never made a
// spectator), and takes seat 1 once the grace is over.
func TestRejoinTakesOwnSeat(t *testing.T) {
	for _, refereed := range []bool{true, false} {
		t.Run(fmt.Sprintf("referee=%v", refereed), func(t *testing.T) {
			const players = 4
			cfg := DefaultConfig()
			cfg.Players = players
			cfg.MaxSnapshotBytes = 1 << 20
			srv, m, _ := runningJoinable(t, cfg, refereed)
			client := func() *Client[stick, *stick] {
				c, err := NewClient[stick](cfg, newJoinable(players), bot(0), m.Now())
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			join := func(id uint64) *Client[stick, *stick] {
				c := client()
				if _, err := m.JoinID(c, id); err != nil {
					t.Fatal(err)
				}
				return c
			}
			m.Leave(1) // client id 2, seat 1
			m.Leave(2) // client id 3, seat 2
			if err := m.Run(time.Second); err != nil {
				t.Fatal(err)
			}
			back := join(3)
			kept := client()
			slot, err := m.JoinID(kept, 9)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(refusedWith(t, srv, m, slot, "seat 1 is held for the player who left it"))
			if st := srv.Stats(m.Now()); st.Watchers != 0 || kept.Player() != -1 {
				t.Fatalf("the stranger kept out: %d spectators, player %d", st.Watchers, kept.Player())
			}
			if err := m.Run(5 * time.Second); err != nil {
				t.Fatal(err)
			}
			if got := back.Player(); got != 2 || back.Stats().CaughtUp == 0 {
				t.Errorf("client id 3 came back to seat %d (caught up after %v), want its own seat 2", got, back.Stats().CaughtUp)
			}
			if err := m.Run(cfg.RejoinGrace); err != nil {
				t.Fatal(err)
			}
			stranger := join(9)
			if err := m.Run(5 * time.Second); err != nil {
				t.Fatal(err)
			}
			if got := stranger.Player(); got != 1 || stranger.Stats().CaughtUp == 0 {
				t.Errorf("a new client id took seat %d (caught up after %v), want the free seat 1", got, stranger.Stats().CaughtUp)
			}
		})
	}
}

// runningJoinable starts a session of cfg.Players bots of the joinable
// game in virtual time, client ids 1 to cfg.Players, refereed by the
// server's own joinable game or not, and plays it 2 s; it returns the
// server, the match and the players' slots.
// refereedMatch is a server of cfg with a joinable referee whose state
// carries pad bytes more, in a virtual network of sim. It lets cfg's
// snapshots take up to 1 MiB, for the clients made from it too.
func refereedMatch(t *testing.T, cfg *Config, pad int, sim netsim.Config) (*Server[stick, *stick], *joinable, *simmatch.Match) {
	t.Helper()
	cfg.MaxSnapshotBytes = 1 << 20
	srv, err := NewServer[stick](*cfg, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	ref := newJoinable(cfg.Players)
	ref.pad = pad
	if err := srv.SetReferee(ref); err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: sim}, srv)
	if err != nil {
		t.Fatal(err)
	}
	return srv, ref, m
}

func runningJoinable(t *testing.T, cfg Config, refereed bool) (*Server[stick, *stick], *simmatch.Match, []int) {
	t.Helper()
	srv, err := NewServer[stick](cfg, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	if refereed {
		if err := srv.SetReferee(newJoinable(cfg.Players)); err != nil {
			t.Fatal(err)
		}
	}
	m, err := simmatch.New(simmatch.Config{}, srv)
	if err != nil {
		t.Fatal(err)
	}
	var slots []int
	for p := range cfg.Players {
		c, err := NewClient[stick](cfg, newJoinable(cfg.Players), bot(p), m.Now())
		if err != nil {
			t.Fatal(err)
		}
		slot, err := m.JoinID(c, uint64(p+1))
		if err != nil {
			t.Fatal(err)
		}
		slots = append(slots, slot)
	}
	if err := m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	return srv, m, slots
}
