package replay_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire"
)

// The tests' tiny game: six marbles on a plane under gravity, bouncing
// on the floor; player p pushes marble p. It is a lockstep.Game and a
// replay.Inspector, the way a game that is not the cube world plugs in.

// push is a player's input: -1, 0 or 1 along x and along y.
type push struct{ X, Y int8 }

func (p *push) Serialize(s wire.Stream) error {
	if err := wire.SerializeInt(s, &p.X, -1, 1); err != nil {
		return err
	}
	return wire.SerializeInt(s, &p.Y, -1, 1)
}

const marbleCount = 6

type marble struct{ px, py, vx, vy float64 }

type marbles struct {
	m     [marbleCount]marble
	tick  lockstep.Tick
	saved [][marbleCount + 1]marble // the tick rides in the last slot's px
	// bugAfter plants a bug: from this tick on, marble 3 falls under a
	// gravity of 9.82 instead of 9.81 (0: no bug).
	bugAfter lockstep.Tick
}

func newMarbles() *marbles {
	g := &marbles{}
	for i := range g.m {
		g.m[i] = marble{px: float64(i), py: float64(1 + i%3)}
	}
	return g
}

const dt = 1.0 / 60

func (g *marbles) Step(in []push) {
	for i := range g.m {
		m := &g.m[i]
		if i < len(in) {
			m.vx += float64(float64(in[i].X) * 0.5) // float64(): no fused multiply-add
			m.vy += float64(float64(in[i].Y) * 0.5)
		}
		grav := 9.81
		if g.bugAfter > 0 && g.tick >= g.bugAfter && i == 3 {
			grav = 9.82
		}
		m.vy -= float64(grav * dt)
		m.vx *= 0.99
		m.px += float64(m.vx * dt)
		m.py += float64(m.vy * dt)
		if m.py < 0 {
			m.py, m.vy = -m.py, -float64(0.8*m.vy)
		}
	}
	g.tick++
}

func (g *marbles) Checksum() uint64 {
	h := uint64(14695981039346656037)
	for _, m := range g.m {
		for _, v := range [...]float64{m.px, m.py, m.vx, m.vy} {
			h ^= uint64(int64(v * 1e9))
			h *= 1099511628211
		}
	}
	return h ^ uint64(g.tick)
}

func (g *marbles) Save(slot int) {
	for len(g.saved) <= slot {
		g.saved = append(g.saved, [marbleCount + 1]marble{})
	}
	copy(g.saved[slot][:], g.m[:])
	g.saved[slot][marbleCount].px = float64(g.tick)
}

func (g *marbles) Load(slot int) {
	copy(g.m[:], g.saved[slot][:marbleCount])
	g.tick = lockstep.Tick(g.saved[slot][marbleCount].px)
}

func (g *marbles) Objects() int { return marbleCount }

func (g *marbles) Inspect(i int, dst []replay.Field) (string, []replay.Field) {
	m := g.m[i]
	return fmt.Sprintf("marble %d", i), append(dst,
		replay.Field{Name: "position.x", Value: m.px}, replay.Field{Name: "position.y", Value: m.py},
		replay.Field{Name: "velocity.x", Value: m.vx}, replay.Field{Name: "velocity.y", Value: m.vy})
}

// bot is player p's scripted input: bursts of a length of its own.
func bot(p int, t lockstep.Tick) push {
	phase := (int(t) / (7 + 5*p)) % 4
	return push{X: int8(phase%3 - 1), Y: int8((phase+p)%3 - 1)}
}

func testHeader(players int) replay.Header {
	cfg := lockstep.DefaultConfig()
	cfg.Players = players
	h := replay.NewHeader(cfg, "marbles", "six", "test")
	h.TickDuration = time.Second / 60
	return h
}

// playRollbackMatch plays players clients of the marbles, in rollback
// mode, for 5 s over 100 ms and 5 % loss, each recording its own game
// (party p's game from newGame(p), or a fresh one), and returns the
// recordings.
func playRollbackMatch(t testing.TB, players int, newGame func(p int) *marbles) [][]byte {
	t.Helper()
	cfg := lockstep.DefaultRollbackConfig()
	cfg.Players = players
	srv, err := lockstep.NewServer[push](cfg, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	cond := netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.05}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 3, Conditions: cond}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	bufs := make([]*bytes.Buffer, players)
	recs := make([]*replay.Recorder[push, *push], players)
	clients := make([]*lockstep.Client[push, *push], players)
	for p := range players {
		g := newMarbles()
		if newGame != nil {
			g = newGame(p)
		}
		bufs[p] = &bytes.Buffer{}
		h := replay.NewHeader(cfg, "marbles", "six", fmt.Sprintf("client %d", p))
		if recs[p], err = replay.NewRecorder[push](bufs[p], h); err != nil {
			t.Fatal(err)
		}
		// Every client plays every bot's script: the server numbers the
		// players in the order they join, which is p.
		c, err := lockstep.NewClient[push](cfg, recs[p].Wrap(g), func(tick lockstep.Tick, _ *lockstep.View) push { return bot(p, tick) }, simmatch.Epoch)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(c); err != nil {
			t.Fatal(err)
		}
		clients[p] = c
	}
	if err := m.Run(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	out := make([][]byte, players)
	for p, c := range clients {
		if c.Player() != p {
			t.Fatalf("client %d is player %d", p, c.Player())
		}
		if err := recs[p].CloseAt(c.Stats().Confirmed); err != nil {
			t.Fatal(err)
		}
		out[p] = bufs[p].Bytes()
	}
	return out
}
