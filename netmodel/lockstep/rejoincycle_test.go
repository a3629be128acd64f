package lockstep

import (
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// TestRejoiningWithholderCannotStallAgainAndAgain: player 3 never sends an
// input; each time the server drops it for lagging (MaxLag, 2 s of stall
// for the others) it comes straight back with its client id into its
// own seat (late join, refereed, as `serve --late-join` runs) and
// withholds again. The others then wait for its inputs from the tick it
// plays from, up to MaxLag, every time. Before, it was seated again
// every time and the honest players stalled 2 s in every ~4 for as long
// as it liked: a drop that costs nothing to undo is no bound. Now from
// its second departure on its client id is held out of the seats for
// longer each time (MaxLag, then twice as long), so that the stalls it
// buys shrink to a small share of the match. The same holds for one
// that leaves by itself just before MaxLag would drop it (a clean leave
// is no drop, and cost it nothing either): every departure from a seat
// counts.
func TestRejoiningWithholderCannotStallAgainAndAgain(t *testing.T) {
	for _, leaves := range []bool{false, true} {
		name := "dropped"
		if leaves {
			name = "leaves"
		}
		t.Run(name, func(t *testing.T) { rejoiningWithholder(t, leaves) })
	}
}

func rejoiningWithholder(t *testing.T, leaves bool) {
	const players, seconds = 4, 90
	cfg := DefaultConfig()
	cfg.Players = players
	srv, _, m := refereedMatch(t, &cfg, 0, netsim.Config{Seed: 3, Conditions: netsim.Conditions{Latency: 20 * time.Millisecond}})
	clients := make([]*Client[stick, *stick], players)
	join := func(id uint64) (int, error) {
		c, err := NewClient[stick](cfg, newJoinable(players), func(t Tick, v *View) stick { return stickAt(v.Player, t) }, m.Now())
		if err != nil {
			t.Fatal(err)
		}
		if id == players {
			c.withhold = func(Tick, float64) bool { return true }
		}
		slot, err := m.JoinID(c, id)
		if err == nil {
			clients[slot] = c
		}
		return slot, err
	}
	for id := range uint64(players) {
		if _, err := join(id + 1); err != nil {
			t.Fatal(err)
		}
	}
	var stalled [players]int // frames each honest player stalled
	// The withholder: playing (0), dropped and to come back (1), or
	// waiting to be seated (2).
	state, refusals, left := 0, 0, 0
	for frame := 0; frame < seconds*60; frame++ {
		err := m.Run(time.Second / 60)
		var dropped *DroppedError
		switch {
		case errors.As(err, &dropped) && dropped.Reason == ReasonLag && state == 0:
			if !errors.Is(clients[3].Update(m.Now(), func([]byte) {}), ErrDropped) {
				t.Fatalf("at %v: %v, not the withholder's", m.Elapsed(), err)
			}
			m.Leave(3)
			state, left = 1, frame
		case err != nil:
			t.Fatalf("at %v: %v", m.Elapsed(), err)
		case leaves && state == 0 && srv.sessionTick(m.Now())-srv.members[3].ring.have > Tick(cfg.ticks(cfg.MaxLag))-6:
			m.Leave(3) // 100 ms before the server would drop it
			state, left = 1, frame
		}
		switch {
		case state == 1 && frame-left >= 6:
			// It comes back as soon as it can, 100 ms after it learned
			// it was dropped or refused (a new connection's handshake;
			// the old connection's datagrams still in flight are not
			// the new one's).
			slot, err := join(players)
			if err != nil {
				t.Fatalf("at %v: %v", m.Elapsed(), err)
			}
			if slot != 3 {
				t.Fatalf("the withholder came back in slot %d", slot)
			}
			state = 2
		case state == 2:
			if code, reason, done := srv.Released(3); done {
				m.Leave(3)
				state, left = 1, frame
				if refusals++; refusals%60 == 1 {
					t.Logf("at %v: refused (%s): %s", m.Elapsed(), code, reason)
				}
			} else if clients[3].Running() {
				state = 0
			}
		}
		for p := range players - 1 {
			if clients[p].Stats().Stalling {
				stalled[p]++
			}
		}
	}
	st := srv.Stats(m.Now())
	worst := 0
	for p := range players - 1 {
		worst = max(worst, stalled[p])
	}
	t.Logf("%d drops for lag, %d late joins, %d refusals; the honest players stalled %v frames of %d", st.Drops[ReasonLag], st.LateJoins, refusals, stalled[:players-1], seconds*60)
	if leaves && st.Drops[ReasonLag] != 0 {
		t.Fatalf("the withholder that leaves by itself was dropped %d times", st.Drops[ReasonLag])
	}
	if got := srv.Refusals(nil); len(got) != 2 || got[1] != (Refusal{"rejoin_held_off", st.HeldOff}) || st.HeldOff != uint64(refusals) {
		t.Fatalf("refusals %v, %d held off, %d refusals seen", got, st.HeldOff, refusals)
	}
	if st.Drops[ReasonDesync] != 0 || st.Desync != nil {
		t.Fatalf("desync %v, %d dropped for one", st.Desync, st.Drops[ReasonDesync])
	}
	if worst > seconds*60/6 {
		t.Fatalf("an honest player stalled %d frames of %d (%d drops for lag)", worst, seconds*60, st.Drops[ReasonLag])
	}
}

// TestALeftDroppedPlayerIsNotToldThroughItsSlot: the server tells a
// dropped player why for a second, through its slot; once its driver
// says it left (its connection is gone), nothing more goes to that slot
// for it: the driver may give the slot to the next client (netcode
// reuses client indexes, and this one's reconnect is the next), which
// was told it had been dropped, and gave up, before.
func TestALeftDroppedPlayerIsNotToldThroughItsSlot(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 2
	x := runningMatch(t, cfg)
	s, now := x.server, x.m.Now()
	s.disconnect(now, s.members[1], ReasonLag, s.sessionTick(now))
	sent := 0
	count := func(slot int, _ []byte) {
		if slot == 1 {
			sent++
		}
	}
	if err := s.Update(now, count); err != nil || sent != 1 {
		t.Fatalf("the dropped player was sent %d messages (%v), want 1: why it was dropped", sent, err)
	}
	s.Leave(now, 1)
	for i := range 10 {
		if err := s.Update(now.Add(time.Duration(i)*frame), count); err != nil {
			t.Fatal(err)
		}
	}
	if sent != 1 {
		t.Fatalf("%d messages went to the slot of the dropped player after it left", sent-1)
	}
	if code, _, done := s.Released(1); !done || code != "lag" {
		t.Fatalf("released %v (%q)", done, code)
	}
}
