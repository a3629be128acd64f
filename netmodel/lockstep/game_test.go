package lockstep

import (
	"github.com/netphys/netphys/wire"
)

// The tests' own game: integer particles in a box. Each player pushes its
// particle; particles bounce off the walls and push each other apart. It is
// deterministic by construction (integers only) and cheap, so whole
// matches run in a test; the cube world is plugged in by package scene.

// stick is a player's input: a direction, 0 (none) to 4, and a boost bit.
// Directions 5 to 7 fit in the 3 bits but are invalid: a message with one
// is forged.
type stick struct {
	Dir   uint8
	Boost bool
}

func (s *stick) Serialize(st wire.Stream) error {
	if err := wire.SerializeInt(st, &s.Dir, 0, 4); err != nil {
		return err
	}
	return wire.SerializeBool(st, &s.Boost)
}

type particle struct{ x, y, vx, vy int64 }

type particles struct {
	p     []particle
	saved [][]particle
	steps int
}

func newParticles(n int) *particles {
	g := &particles{p: make([]particle, n)}
	for i := range g.p {
		g.p[i] = particle{x: int64(i) * 1000, y: int64(i*i) * 100}
	}
	return g
}

const box = 100000

func (g *particles) Step(in []stick) {
	g.steps++
	for i := range g.p {
		q := &g.p[i]
		if i < len(in) {
			a := int64(3)
			if in[i].Boost {
				a = 9
			}
			switch in[i].Dir {
			case 1:
				q.vx -= a
			case 2:
				q.vx += a
			case 3:
				q.vy -= a
			case 4:
				q.vy += a
			}
		}
		q.x += q.vx
		q.y += q.vy
		if q.x < 0 || q.x > box {
			q.vx = -q.vx
			q.x = min(max(q.x, 0), box)
		}
		if q.y < 0 || q.y > box {
			q.vy = -q.vy
			q.y = min(max(q.y, 0), box)
		}
		q.vx -= q.vx / 64 // friction
		q.vy -= q.vy / 64
	}
	for i := range g.p {
		for j := i + 1; j < len(g.p); j++ {
			a, b := &g.p[i], &g.p[j]
			if dx, dy := a.x-b.x, a.y-b.y; dx*dx+dy*dy < 2000*2000 {
				a.vx, b.vx = a.vx+dx/100, b.vx-dx/100
				a.vy, b.vy = a.vy+dy/100, b.vy-dy/100
			}
		}
	}
}

func (g *particles) Checksum() uint64 {
	h := uint64(14695981039346656037)
	for _, q := range g.p {
		for _, v := range [...]int64{q.x, q.y, q.vx, q.vy} {
			h ^= uint64(v)
			h *= 1099511628211
		}
	}
	return h
}

func (g *particles) Save(slot int) {
	for len(g.saved) <= slot {
		g.saved = append(g.saved, nil)
	}
	g.saved[slot] = append(g.saved[slot][:0], g.p...)
}

func (g *particles) Load(slot int) { copy(g.p, g.saved[slot]) }

// bot is a scripted player: it changes direction every few ticks, in a
// pattern that differs per player.
func bot(player int) Control[stick] {
	return func(t Tick, _ *View) stick { return stickAt(player, t) }
}

// stickAt is player's scripted input of tick t.
func stickAt(player int, t Tick) stick {
	k := int(t)/(7+3*player) + player
	return stick{Dir: uint8(k % 5), Boost: k%3 == 0}
}
