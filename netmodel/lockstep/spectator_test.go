package lockstep

import (
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// TestSpectators plays a 4-player refereed session (60 ms RTT, 2 % loss)
// with 8 spectators: 4 join the full lobby, 4 join the running session at
// 5 s (they get the referee's state first, 20 kB of it: 20 chunks), one of
// the latter behind a 1 s, 20 % loss link. Every spectator simulates the same game: its
// checksums equal the players' on every checkpoint both have; the players
// never stall (spectators never hold them back), and the server drops no
// one.
func TestSpectators(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig(), DefaultRollbackConfig()} {
		const players = 4
		cfg.Players = players
		srv, _, m := refereedMatch(t, &cfg, 20_000, netsim.Config{Seed: 11, Conditions: netsim.Conditions{Latency: 30 * time.Millisecond, Loss: 0.02}})
		var pl, sp []*Client[stick, *stick]
		var plGames, spGames []*joinable
		for range players {
			g := newJoinable(players)
			g.pad = 20_000
			c, _ := NewClient[stick](cfg, g, func(t Tick, v *View) stick { return stickAt(v.Player, t) }, m.Now())
			if _, err := m.Join(c); err != nil {
				t.Fatal(err)
			}
			pl, plGames = append(pl, c), append(plGames, g)
		}
		watch := func() int {
			g := newJoinable(players)
			g.pad = 20_000
			c, err := NewSpectator[stick](cfg, g, m.Now())
			if err != nil {
				t.Fatal(err)
			}
			slot, err := m.Join(c)
			if err != nil {
				t.Fatalf("spectator at %v: %v", m.Elapsed(), err)
			}
			sp, spGames = append(sp, c), append(spGames, g)
			return slot
		}
		for range 4 {
			watch()
		}
		var watchStalls stallWatch
		for f := 0; f < 20*60; f++ {
			if f == 5*60 {
				for i := range 4 {
					slot := watch()
					if i == 3 {
						slow := netsim.Conditions{Latency: 500 * time.Millisecond, Loss: 0.2}
						if err := m.SetLink(slot, slow, slow); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			if err := m.Run(time.Second / 60); err != nil {
				t.Fatalf("rollback %d at %v: %v", cfg.Rollback, m.Elapsed(), err)
			}
			if f >= 60 {
				for i, c := range pl {
					watchStalls.frame(i, c)
				}
			}
		}
		st := srv.Stats(m.Now())
		if st.Watchers != 8 || st.WatchersDropped != 0 || st.Disconnected != 0 || st.Desync != nil {
			t.Fatalf("rollback %d: %d spectators (%d dropped), %d players dropped, desync %v", cfg.Rollback, st.Watchers, st.WatchersDropped, st.Disconnected, st.Desync)
		}
		for i, w := range watchStalls.worst {
			if w > 1 {
				t.Errorf("rollback %d: player %d stalled %d frames in a row", cfg.Rollback, i, w)
			}
		}
		compared := 0
		for i, g := range spGames {
			s := sp[i].Stats()
			if s.Player != -1 || s.Tick < 600 {
				t.Fatalf("rollback %d: spectator %d is player %d at tick %d", cfg.Rollback, i, s.Player, s.Tick)
			}
			for tick, sum := range g.sums {
				if tick >= sp[i].Stats().Confirmed {
					continue
				}
				if want, ok := plGames[0].sums[tick]; ok && tick < pl[0].Stats().Confirmed {
					if sum != want {
						t.Fatalf("rollback %d: spectator %d's checksum of tick %d is %#x, player 0's %#x", cfg.Rollback, i, tick, sum, want)
					}
					compared++
				}
			}
		}
		if compared < 8*5 {
			t.Fatalf("rollback %d: only %d checksums compared", cfg.Rollback, compared)
		}
		slow := sp[7].Stats()
		t.Logf("rollback %d: %d spectator checksums equal the players'; the slow spectator is %d ticks behind player 0 (delay %v), the players' worst stall %v frames",
			cfg.Rollback, compared, pl[0].Stats().Tick-slow.Tick, slow.InputDelay, watchStalls.worst)
	}
}
