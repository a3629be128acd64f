package lockstep

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// TestLateSpectatorTakesNoSeat: with a seat free (its player left and
// its RejoinGrace is over), a client that joins the running session to
// watch never sits in it, not even until its first message says it
// watches: it counts no late join, leaves no departed seat held for its
// client id, and the free seat goes to the next player who joins, with
// or without a referee.
func TestLateSpectatorTakesNoSeat(t *testing.T) {
	for _, refereed := range []bool{true, false} {
		t.Run(fmt.Sprintf("referee=%v", refereed), func(t *testing.T) {
			const players = 4
			cfg := DefaultConfig()
			cfg.Players = players
			cfg.MaxSnapshotBytes = 1 << 20
			cfg.RejoinGrace = time.Second
			srv, m, slots := runningJoinable(t, cfg, refereed)
			m.Leave(slots[3])
			if err := m.Run(cfg.RejoinGrace + time.Second); err != nil {
				t.Fatal(err)
			}
			w, err := NewSpectator[stick](cfg, newJoinable(players), m.Now())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.JoinID(w, 20); err != nil {
				t.Fatal(err)
			}
			if err := m.Run(3 * time.Second); err != nil {
				t.Fatal(err)
			}
			st := srv.Stats(m.Now())
			if st.LateJoins != 0 || st.Watchers != 1 || w.Stats().Joined == 0 || w.Player() != -1 {
				t.Fatalf("the late spectator: %d late joins, %d spectators, joined after %v as player %d",
					st.LateJoins, st.Watchers, w.Stats().Joined, w.Player())
			}
			if seat := st.Players[3]; seat.Slot != slots[3] || seat.Connected || seat.JoinedAt != 0 {
				t.Fatalf("seat 3 after the spectator joined: %+v, want its player who left (slot %d)", seat, slots[3])
			}
			// The seat is free for a player at once: not held for the
			// spectator's client id.
			c, err := NewClient[stick](cfg, newJoinable(players), bot(3), m.Now())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.JoinID(c, 30); err != nil {
				t.Fatal(err)
			}
			if err := m.Run(5 * time.Second); err != nil {
				t.Fatal(err)
			}
			if st := srv.Stats(m.Now()); c.Player() != 3 || c.Stats().CaughtUp == 0 || st.LateJoins != 1 || st.Disconnected != 0 || st.Watchers != 1 {
				t.Fatalf("the player after the spectator: seat %d, caught up after %v; server: %d late joins, %d dropped, %d spectators",
					c.Player(), c.Stats().CaughtUp, st.LateJoins, st.Disconnected, st.Watchers)
			}
		})
	}
}

// TestDroppedSpectatorIsToldWhy: a spectator that goes silent, and one
// that stops receiving and goes on sending (its acks fall behind the
// server's buffer, 34 s), are
// dropped without holding the players back, and Released tells the
// driver why, under the code "spectator", instead of the lobby's "silent
// in the lobby".
func TestDroppedSpectatorIsToldWhy(t *testing.T) {
	cfg := DefaultConfig()
	a := newArena(t, cfg, true, nil)
	var watchers []*player
	var slots []int
	for i := range 2 {
		// The second, hostile, keeps sending its stale acks for a
		// minute after it stopped hearing the server.
		wcfg := cfg
		if i == 1 {
			wcfg.Timeout, wcfg.Buffer = time.Minute, 8192
		}
		w, err := NewSpectator[stick](wcfg, newTally(4), a.m.Now())
		if err != nil {
			t.Fatal(err)
		}
		p := &player{Client: w}
		slot, err := a.m.Join(p)
		if err != nil {
			t.Fatal(err)
		}
		watchers, slots = append(watchers, p), append(slots, slot)
	}
	a.run(t, 3*time.Second)
	if st := a.server.Stats(a.m.Now()); st.Watchers != 2 || !st.Running {
		t.Fatalf("%d spectators, running %v", st.Watchers, st.Running)
	}
	watchers[0].silent = func(time.Time) bool { return true }
	watchers[1].deaf = true
	worst := a.worstStall(t, 35*time.Second)
	for i, want := range []string{"this spectator was not heard for 10s", "this spectator fell behind the server's buffer"} {
		code, reason, done := a.server.Released(slots[i])
		if !done || code != "spectator" || !strings.Contains(reason, want) {
			t.Errorf("spectator %d: released %v, %q %q; want %q", i, done, code, reason, want)
		}
		t.Log(reason)
	}
	if st := a.server.Stats(a.m.Now()); st.Watchers != 0 || st.WatchersDropped != 2 || st.Disconnected != 0 || worst > 0 {
		t.Fatalf("%d spectators (%d dropped), %d players dropped, worst stall %v", st.Watchers, st.WatchersDropped, st.Disconnected, worst)
	}
	a.checkHonest(t, 2000)
}

// TestSpectatorInTheLobbyKeepsNoSeatFromAPlayer: a spectator joining a
// lobby with a free seat sits in it until its first message says it
// watches; a player's client joining meanwhile finds the lobby full and
// waits among the spectators. Whichever message the server reads first,
// the player takes the seat the spectator frees, and the session starts
// with it: it is not refused as if every seat were taken.
func TestSpectatorInTheLobbyKeepsNoSeatFromAPlayer(t *testing.T) {
	for _, spectatorFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("spectator first=%v", spectatorFirst), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Players = 2
			srv, err := NewServer[stick](cfg, simmatch.Epoch)
			if err != nil {
				t.Fatal(err)
			}
			m, err := simmatch.New(simmatch.Config{}, srv)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := NewClient[stick](cfg, newParticles(4), bot(0), m.Now())
			w, _ := NewSpectator[stick](cfg, newParticles(4), m.Now())
			b, _ := NewClient[stick](cfg, newParticles(4), bot(1), m.Now())
			var slots []int
			for _, c := range []*Client[stick, *stick]{a, w, b} {
				slot, err := m.Join(c)
				if err != nil {
					t.Fatal(err)
				}
				slots = append(slots, slot)
			}
			// The later one's link up takes 200 ms.
			later := slots[2]
			if !spectatorFirst {
				later = slots[1]
			}
			if err := m.SetLink(later, netsim.Conditions{Latency: 200 * time.Millisecond}, netsim.Conditions{}); err != nil {
				t.Fatal(err)
			}
			if err := m.Run(3 * time.Second); err != nil {
				t.Fatal(err)
			}
			if code, reason, done := srv.Released(slots[2]); done {
				t.Fatalf("the player was let go: %q %q", code, reason)
			}
			st := srv.Stats(m.Now())
			if !st.Running || st.Watchers != 1 || b.Player() < 0 || a.Player() < 0 || w.Player() != -1 || b.Tick() == 0 {
				t.Fatalf("running %v, %d spectators; players %d and %d (at tick %d), the spectator %d",
					st.Running, st.Watchers, a.Player(), b.Player(), b.Tick(), w.Player())
			}
		})
	}
}
