package lockstep

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// TestSpectatorsWithoutReferee: two spectators join a running 4-player
// session without a referee at 5 s (60 ms RTT, 2 % loss), one behind a
// 1 s, 20 % loss link. They are seated from a player's state of a
// checkpoint, checked against the checksum every player agreed on, as a
// late joiner is; then every checksum they compute equals the players',
// and no player stalls longer than its input delay. With player 0 a liar
// (its state has a bit flipped), the spectators given its state find it
// wrong and wait; player 1's state seats them, and once both (two client
// ids) have accused player 0 it is dropped and told why (ReasonSnapshot);
// one spectator's word alone drops nobody.
func TestSpectatorsWithoutReferee(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig(), DefaultRollbackConfig()} {
		for _, lying := range []bool{false, true} {
			t.Run(fmt.Sprintf("rollback=%d/lying=%v", cfg.Rollback, lying), func(t *testing.T) {
				spectatorsWithoutReferee(t, cfg, lying)
			})
		}
	}
}

func spectatorsWithoutReferee(t *testing.T, cfg Config, lying bool) {
	const players = noRefPlayers
	srv, m, _ := noRefSetup(t, &cfg, 5)
	pl := make([]*Client[stick, *stick], players)
	plGames := make([]*joinable, players)
	for p := range players {
		g := chunkyJoinable()
		var gm Game[stick] = g
		if lying && p == 0 {
			gm = lyingSource{g}
		}
		c, err := NewClient[stick](cfg, gm, func(t Tick, v *View) stick { return stickAt(v.Player, t) }, m.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.JoinID(c, uint64(p+1)); err != nil {
			t.Fatal(err)
		}
		pl[p], plGames[p] = c, g
	}
	var sp []*Client[stick, *stick]
	var spGames []*joinable
	var stalls stallWatch
	for f := 0; f < 30*60; f++ {
		if f == 5*60 {
			for i := range 2 {
				g := chunkyJoinable()
				c, err := NewSpectator[stick](cfg, g, m.Now())
				if err != nil {
					t.Fatal(err)
				}
				slot, err := m.Join(c)
				if err != nil {
					t.Fatalf("spectator at %v: %v", m.Elapsed(), err)
				}
				if i == 1 {
					slow := netsim.Conditions{Latency: 500 * time.Millisecond, Loss: 0.2}
					if err := m.SetLink(slot, slow, slow); err != nil {
						t.Fatal(err)
					}
				}
				sp, spGames = append(sp, c), append(spGames, g)
			}
		}
		err := m.Run(time.Second / 60)
		var dropped *DroppedError
		if lying && errors.As(err, &dropped) && dropped.Reason == ReasonSnapshot && pl[0] != nil {
			if !errors.Is(pl[0].Update(m.Now(), func([]byte) {}), ErrDropped) {
				t.Fatalf("at %v: %v, not the liar's", m.Elapsed(), err)
			}
			t.Logf("the liar at %v: %v", m.Elapsed(), dropped)
			m.Leave(0)
			pl[0] = nil
		} else if err != nil {
			t.Fatalf("at %v: %v", m.Elapsed(), err)
		}
		if f >= 4*60 {
			for i, c := range pl {
				if c != nil {
					stalls.frame(i, c)
				}
			}
		}
	}
	st := srv.Stats(m.Now())
	// The slow spectator's first message may come after the other was
	// seated: then a second state is asked for it.
	var wantDropped uint64
	if lying && st.Accusations >= 2 {
		wantDropped = 1
	}
	if lying && st.Accusations != st.BadSnapshots {
		t.Fatalf("%d bad snapshots, %d accusations: a spectator seated from player 1's state accuses player 0", st.BadSnapshots, st.Accusations)
	}
	if st.Watchers != 2 || st.WatchersDropped != 0 || st.Joining != 0 || st.Desync != nil || st.Refereed ||
		st.SnapshotRequests == 0 || st.SnapshotRequests > 3 || (st.BadSnapshots == 0) == lying || st.BadSnapshots > 2 ||
		st.Drops[ReasonSnapshot] != wantDropped || st.Disconnected != wantDropped {
		t.Fatalf("%d spectators (%d dropped, %d waiting), desync %v; %d bad snapshots, %d states asked, %d dropped for a bad snapshot, %d in all",
			st.Watchers, st.WatchersDropped, st.Joining, st.Desync, st.BadSnapshots, st.SnapshotRequests, st.Drops[ReasonSnapshot], st.Disconnected)
	}
	if (wantDropped == 1) != (pl[0] == nil) || wantDropped == 1 && st.Players[0].Reason != ReasonSnapshot {
		t.Fatalf("the liar: client still playing %v, reason %v", pl[0] != nil, st.Players[0].Reason)
	}
	ref := pl[players-1]
	compared := 0
	var bad uint64
	for i, c := range sp {
		s := c.Stats()
		bad += s.BadSnapshots
		if s.Player != -1 || s.JoinedFrom == 0 || s.SnapshotBytes == 0 || s.BadSnapshots > 1 {
			t.Fatalf("spectator %d: player %d, snapshot of tick %d, %d bytes, %d bad", i, s.Player, s.JoinedFrom, s.SnapshotBytes, s.BadSnapshots)
		}
		n := 0
		// The ticks both simulated on known inputs (a spectator simulates
		// its input delay behind the inputs it has).
		upTo := min(s.Tick, s.Confirmed, ref.Stats().Tick, ref.Stats().Confirmed)
		for tick := (s.JoinedFrom/60 + 1) * 60; tick < upTo; tick += 60 {
			got, ok := spGames[i].sums[tick]
			want, has := plGames[players-1].sums[tick]
			if !ok || !has || got != want {
				t.Fatalf("spectator %d's checksum of tick %d is %#x (%v), player %d's %#x (%v)", i, tick, got, ok, players-1, want, has)
			}
			n++
		}
		if n < 5 {
			t.Fatalf("spectator %d: only %d checksums compared (snapshot of tick %d, confirmed up to %d)", i, n, s.JoinedFrom, s.Confirmed)
		}
		compared += n
		t.Logf("spectator %d: snapshot of tick %d (%d bytes, %d bad before it) had %v after connecting, %d ticks behind the last player",
			i, s.JoinedFrom, s.SnapshotBytes, s.BadSnapshots, s.Joined, ref.Stats().Tick-s.Tick)
	}
	if bad != st.BadSnapshots {
		t.Fatalf("the spectators found %d snapshots bad, the server counts %d", bad, st.BadSnapshots)
	}
	for i, c := range pl {
		if c == nil {
			continue
		}
		if frames := int(c.Stats().InputDelay/(time.Second/60)) + 1; stalls.worst[i] > frames {
			t.Errorf("player %d stalled %d frames in a row after 4 s, its input delay is %v", i, stalls.worst[i], c.Stats().InputDelay)
		}
	}
	t.Logf("%d spectator checksums equal the players'; %d states asked, %d bad; the players' worst stalls %v frames", compared, st.SnapshotRequests, st.BadSnapshots, stalls.worst)
}
