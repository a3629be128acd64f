package snapshot

import (
	"math"
	"math/rand/v2"

	"github.com/netphys/netphys/vecmath"
)

// The synthetic scene: n cubes on a grid, a minute-like script compressed
// into a few seconds at 60 Hz:
//
//	ticks [0, 90):    a cloud of cubes dropped from up to 6 m, bouncing,
//	                  tumbling and settling (everything changes)
//	ticks [90, 150):  all cubes at rest (nothing changes)
//	ticks [150, 270): a katamari ball of 60 cubes orbiting a player that
//	                  rolls across the field, plus a few cubes knocked away
//	ticks [270, 330): the ball comes apart and settles
//
// The motion is kinematic, not physics: it only has to look like the data
// a snapshot codec sees (smooth motion, rest, groups moving together).

const dt = 1.0 / 60

type synthCube struct {
	pos, vel, ang vecmath.Vec3
	rot           vecmath.Quat
	rest          bool
}

type synthScene struct {
	rng   *rand.Rand
	cubes []synthCube
	tick  int
	ball  []int // indices of the katamari cubes
}

func newSynthScene(n int, seed uint64) *synthScene {
	sc := &synthScene{rng: rand.New(rand.NewPCG(seed, 99)), cubes: make([]synthCube, n)}
	side := int(math.Ceil(math.Sqrt(float64(n))))
	for i := range sc.cubes {
		x, z := float64(i%side)*1.5-float64(side)*0.75, float64(i/side)*1.5-float64(side)*0.75
		sc.cubes[i] = synthCube{
			pos: vecmath.V3(x, 0.5+sc.rng.Float64()*6, z),
			vel: vecmath.V3(sc.rng.NormFloat64(), sc.rng.NormFloat64(), sc.rng.NormFloat64()),
			ang: vecmath.V3(sc.rng.NormFloat64()*3, sc.rng.NormFloat64()*3, sc.rng.NormFloat64()*3),
			rot: vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), sc.rng.Float64()*6),
		}
	}
	for i := range n {
		if i%15 == 7 {
			sc.ball = append(sc.ball, i)
		}
	}
	return sc
}

// step advances the scene by one tick.
func (sc *synthScene) step() {
	sc.tick++
	player := vecmath.V3(-20+float64(sc.tick-150)*0.1, 0.5, 3) // 6 m/s
	for i := range sc.cubes {
		c := &sc.cubes[i]
		if sc.tick >= 150 && sc.tick < 270 && i%15 == 7 {
			// Orbit the player on a sphere of radius 2.
			a := float64(sc.tick)*0.04 + float64(i) // 2.4 rad/s
			s1, c1 := vecmath.SinCos(a)
			s2, c2 := vecmath.SinCos(float64(i) * 0.7)
			c.pos = player.Add(vecmath.V3(2*c1*c2, 1.5+2*s2, 2*s1*c2))
			c.rot = c.rot.Integrate(vecmath.V3(0, 0, -4), dt)
			c.rest = false
			c.vel = vecmath.V3(6, 0, 0)
			continue
		}
		if sc.tick == 150 && i%97 == 3 {
			c.vel, c.ang, c.rest = vecmath.V3(3, 4, -2), vecmath.V3(2, 5, 1), false
		}
		if sc.tick == 270 && i%15 == 7 {
			c.vel, c.ang = vecmath.V3(sc.rng.NormFloat64()*2, 2, sc.rng.NormFloat64()*2), vecmath.V3(1, 2, 3)
		}
		if c.rest {
			continue
		}
		c.vel.Y -= 9.81 * dt
		c.pos = c.pos.MulAdd(dt, c.vel)
		c.rot = c.rot.Integrate(c.ang, dt)
		if c.pos.Y < 0.5 {
			c.pos.Y = 0.5
			c.vel = vecmath.V3(c.vel.X*0.7, -c.vel.Y*0.3, c.vel.Z*0.7)
			c.ang = c.ang.Scale(0.7)
			if c.vel.Length() < 0.3 {
				c.rest, c.vel, c.ang = true, vecmath.Vec3{}, vecmath.Vec3{}
			}
		}
	}
}

func (sc *synthScene) snapshot() *Snapshot {
	s := &Snapshot{Cubes: make([]Cube, len(sc.cubes))}
	for i, c := range sc.cubes {
		s.Cubes[i] = Cube{Position: c.pos, Rotation: c.rot, LinearVelocity: c.vel, Interacting: !c.rest}
	}
	return s
}

// synthSequence returns the script's snapshots, one per tick.
func synthSequence(n, ticks int, seed uint64) []*Snapshot {
	sc := newSynthScene(n, seed)
	out := make([]*Snapshot, 0, ticks)
	for range ticks {
		sc.step()
		out = append(out, sc.snapshot())
	}
	return out
}
