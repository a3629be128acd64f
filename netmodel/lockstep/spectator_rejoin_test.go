package lockstep

import (
	"fmt"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// TestSpectatorsSeeARejoin: spectators that join while a player's seat
// is silent see the same world as the players through that player's drop
// and its rejoin in the same seat (the match of the late-join process
// test, in virtual time): no spectator is dropped, and every checksum a
// spectator and a player both have agrees.
func TestSpectatorsSeeARejoin(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig(), DefaultRollbackConfig()} {
		for seed := uint64(1); seed <= 3; seed++ {
			for _, at := range []int{200, 240, 300, 386, 392, 400, 420, 480} {
				t.Run(fmt.Sprintf("rollback=%d/seed=%d/at=%d", cfg.Rollback, seed, at), func(t *testing.T) {
					spectatorsSeeARejoin(t, cfg, seed, at)
				})
			}
		}
	}
}

func spectatorsSeeARejoin(t *testing.T, cfg Config, seed uint64, watchAt int) {
	const players = 4
	cfg.Players = players
	cond := netsim.Conditions{Latency: 60 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.02}
	srv, _, m := refereedMatch(t, &cfg, 0, netsim.Config{Seed: seed, Conditions: cond})
	var clients []*Client[stick, *stick]
	var games []*joinable
	join := func(id uint64, spectate bool) int {
		g := newJoinable(players)
		var c *Client[stick, *stick]
		var err error
		if spectate {
			c, err = NewSpectator[stick](cfg, g, m.Now())
		} else {
			c, err = NewClient[stick](cfg, g, func(t Tick, v *View) stick { return stickAt(v.Player, t) }, m.Now())
		}
		if err != nil {
			t.Fatal(err)
		}
		slot, err := m.JoinID(c, id)
		if err != nil {
			t.Fatalf("client %d at %v: %v", id, m.Elapsed(), err)
		}
		clients, games = append(clients, c), append(games, g)
		return slot
	}
	for id := uint64(1); id <= players; id++ {
		join(id, false)
	}
	victim := 3
	silent := netsim.Conditions{Loss: 1}
	for f := 0; f < 14*60; f++ {
		if f == watchAt {
			for id := uint64(6); id < 14; id++ {
				join(id, true)
			}
		}
		switch f {
		case 150: // 2.5 s: player 4 goes silent, as a killed process
			if err := m.SetLink(victim, silent, silent); err != nil {
				t.Fatal(err)
			}
		case 384: // 6.4 s: its connection is gone
			m.Leave(victim)
			clients[victim] = nil
		case 390: // 6.5 s: it comes back with its client id
			if err := m.SetLink(join(4, false), cond, cond); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatalf("at %v: %v", m.Elapsed(), err)
		}
	}
	st := srv.Stats(m.Now())
	if st.WatchersDropped != 0 || st.Desync != nil || st.Drops[ReasonDesync] != 0 || st.LateJoins != 1 {
		t.Fatalf("%d spectators dropped, desync %v, %d dropped for a desync, %d late joins", st.WatchersDropped, st.Desync, st.Drops[ReasonDesync], st.LateJoins)
	}
	ref, refGame := clients[0], games[0]
	compared := 0
	for i, c := range clients {
		if c == nil || i == 0 {
			continue
		}
		s := c.Stats()
		for tick, sum := range games[i].sums {
			if tick >= s.Confirmed || tick >= ref.Stats().Confirmed || tick < s.JoinedFrom {
				continue
			}
			if want, ok := refGame.sums[tick]; ok {
				if sum != want {
					t.Errorf("client %d (player %d): checksum of tick %d is %#x, player 0's %#x", i, s.Player, tick, sum, want)
				}
				compared++
			}
		}
	}
	if compared < 9*5 {
		t.Fatalf("only %d checksums compared", compared)
	}
}
