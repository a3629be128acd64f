package lockstep

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// resimGame is the particle game as a Resimulator: it counts the steps
// inside and outside re-simulations.
type resimGame struct {
	*particles
	resim        bool
	fresh, again int // steps outside and inside a re-simulation
	nested       bool
}

func (g *resimGame) Resimulating(on bool) {
	if on == g.resim {
		g.nested = true // told twice the same: a bug
	}
	g.resim = on
}

func (g *resimGame) Step(in []stick) {
	g.particles.Step(in)
	if g.resim {
		g.again++
	} else {
		g.fresh++
	}
}

// TestControlViewAndResimulator plays 2 players over 100 ms and 10 %
// loss, pure and rollback, and checks what the input function is told
// (the player index the server gave, the tick the game simulates next,
// whether the game shown is predicted) and that a Resimulator game steps
// every tick exactly once outside re-simulations, however many times a
// rollback steps it again.
func TestControlViewAndResimulator(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig(), DefaultRollbackConfig()} {
		cfg.Players = 2
		srv, err := NewServer[stick](cfg, simmatch.Epoch)
		if err != nil {
			t.Fatal(err)
		}
		cond := netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.1}
		m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 3, Conditions: cond}}, srv)
		if err != nil {
			t.Fatal(err)
		}
		clients := make([]*Client[stick, *stick], 2)
		games := make([]*resimGame, 2)
		var calls, predicted, bad int
		for i := range clients {
			g := &resimGame{particles: newParticles(4)}
			input := func(tick Tick, v *View) stick {
				c := clients[i]
				calls++
				if v.Player != c.Player() || v.Player != i || v.Next != c.Tick() || v.Next > tick ||
					v.Predicted != (c.Tick() > c.confirmed()) {
					bad++
				}
				if v.Predicted {
					predicted++
				}
				return stickAt(v.Player, tick)
			}
			c, err := NewClient[stick](cfg, g, input, simmatch.Epoch)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Join(c); err != nil {
				t.Fatal(err)
			}
			clients[i], games[i] = c, g
		}
		if err := m.Run(10 * time.Second); err != nil {
			t.Fatal(err)
		}
		if calls < 2*500 || bad > 0 {
			t.Fatalf("rollback %d: %d input calls, %d with a wrong view", cfg.Rollback, calls, bad)
		}
		if (cfg.Rollback > 0) != (predicted > 0) {
			t.Errorf("rollback %d: %d inputs asked for while the game shown was predicted", cfg.Rollback, predicted)
		}
		for i, g := range games {
			st := clients[i].Stats()
			if g.nested || g.resim {
				t.Errorf("rollback %d, player %d: Resimulating calls do not pair up", cfg.Rollback, i)
			}
			if g.fresh != int(st.Tick) || g.again != int(st.Resimulated) {
				t.Errorf("rollback %d, player %d: %d fresh steps and %d re-simulated, want %d ticks and %d re-simulated",
					cfg.Rollback, i, g.fresh, g.again, st.Tick, st.Resimulated)
			}
			if cfg.Rollback > 0 && g.again == 0 {
				t.Errorf("player %d: no re-simulation at 10 %% loss: the test shows nothing", i)
			}
		}
		if joined, want := srv.Lobby(); joined != 2 || want != 2 {
			t.Errorf("Lobby() = %d, %d, want 2, 2", joined, want)
		}
	}
}

// TestLobbyCounts checks Lobby before the lobby fills.
func TestLobbyCounts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players = 3
	srv, err := NewServer[stick](cfg, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Join(simmatch.Epoch, 5); err != nil {
		t.Fatal(err)
	}
	if joined, want := srv.Lobby(); joined != 1 || want != 3 {
		t.Errorf("Lobby() = %d, %d, want 1, 3", joined, want)
	}
	srv.Leave(simmatch.Epoch, 5)
	if joined, _ := srv.Lobby(); joined != 0 {
		t.Errorf("Lobby() after the only player left = %d joined, want 0", joined)
	}
}
