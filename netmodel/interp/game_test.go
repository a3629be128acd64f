package interp_test

import (
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire/snapshot"
)

// orbits is the tiny game of the tests: n balls circling the origin at
// different radii and speeds, the first one bouncing. Its state is a
// function of the tick, so a test knows the truth at any time.
type orbits struct {
	n    int
	tick int64
}

func (g *orbits) Objects() int { return g.n }

func (g *orbits) Step() uint32 { g.tick++; return 0 }

func (g *orbits) Capture(dst []snapshot.Cube) { orbitState(g.n, float64(g.tick), dst) }

// orbitState writes the state at tick t (fractional) into dst.
func orbitState(n int, t float64, dst []snapshot.Cube) {
	sec := t / 60
	for i := range dst[:n] {
		r := float64(2 + i)
		w := 0.5 + float64(i)*0.25 // rad/s
		s, c := vecmath.SinCos(float64(w * sec))
		y := 0.5
		if i == 0 {
			ph := sec - float64(int(sec)) // a bounce a second
			y += 4 * ph * (1 - ph)
		}
		dst[i] = snapshot.Cube{
			Position:    vecmath.V3(float64(r*c), y, float64(r*s)),
			Rotation:    vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), float64(-w*sec)),
			Interacting: i%2 == 0,
		}
	}
}
