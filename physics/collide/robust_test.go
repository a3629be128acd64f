package collide

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// TestRobustness covers the inputs where narrowphases usually produce NaN:
// parallel edges, coincident shapes, exact contact and zero sizes.
func TestRobustness(t *testing.T) {
	cube := box(0.5, 0.5, 0.5)
	zero := box(0, 0, 0)
	cases := []struct {
		name   string
		a      *Shape
		xa     vecmath.Transform
		b      *Shape
		xb     vecmath.Transform
		points int // -1: any number, at least one
	}{
		{"side faces touching", cube, at(0, 0, 0), cube, at(1, 0.999, 0), 4},
		{"parallel edges touching", cube, at(0, 0, 0), cube, at(1, 1, 0), 2},
		{"parallel edges, yawed", cube, at(0, 0, 0), cube, atRot(0, 0.999, 0.9, vecmath.V3(0, 0, 1), 1e-9), 4},
		{"coincident cubes", cube, at(0, 0, 0), cube, at(0, 0, 0), 4},
		{"cube inside a slab", box(3, 1, 3), at(0, 0, 0), cube, atRot(0.1, 0.2, 0.3, vecmath.V3(1, 2, 3), 0.7), -1},
		{"exactly resting", cube, at(0, 0, 0), cube, at(0.25, 1, 0.25), 4},
		{"point boxes", zero, at(0, 0, 0), zero, at(0, 0, 0), -1},
		{"point box on cube", zero, at(0.1, 0.5, 0.1), cube, at(0, 0, 0), 1},
		{"point box in cube", cube, atRot(0, 0, 0, vecmath.V3(1, 1, 0), 0.3), zero, at(0.1, 0.2, 0), -1},
		{"flat box on cube", box(0.5, 0, 0.5), at(0, 0.5, 0), cube, at(0, 0, 0), 4},
		{"flat box on the ground", box(0.5, 0, 0.5), at(0, 0, 0), ground, at(0, 0, 0), 4},
		{"point box on the ground", zero, at(0, 0, 0), ground, at(0, 0, 0), 1},
		{"point ball", ball(0), at(0, 0.5, 0), cube, at(0, 0, 0), 1},
		{"point balls", ball(0), at(1, 1, 1), ball(0), at(1, 1, 1), 1},
		{"point ball on plane", ball(0), at(0, 0, 0), ground, at(0, 0, 0), 1},
		{"coreless capsule on plane", capsule(0.5, 0), at(0, 0.4, 0), ground, at(0, 0, 0), 1},
		{"segment capsules crossing", capsule(0, 1), at(0, 0, 0), capsule(0, 1), atRot(0, 0, 0, vecmath.V3(1, 0, 0), math.Pi/2), 1},
		{"coincident capsules", capsule(0.5, 1), at(0, 0, 0), capsule(0.5, 1), at(0, 0, 0), 2},
		{"capsule core in box", cube, at(0, 0, 0), capsule(0.1, 0.2), atRot(0, 0, 0, vecmath.V3(1, 0, 1), 0.4), -1},
		{"capsule core through box centre", cube, at(0, 0, 0), capsule(0.1, 2), at(0, 0, 0), -1},
		{"point capsule in box", cube, at(0, 0, 0), capsule(0, 0), at(0, 0, 0), 1},
		{"capsule on box edge", cube, at(0, 0, 0), capsule(0.1, 1), atRot(0.5, 0.6, 0, vecmath.V3(1, 0, 0), math.Pi/2), -1},
		{"ball centre on box centre", ball(0.3), at(0, 0, 0), cube, at(0, 0, 0), 1},
		{"negative sizes", box(-1, -1, -1), at(0, 0, 0), ball(-1), at(0, 0, 0), 1},
	}
	for _, c := range cases {
		for _, swap := range []bool{false, true} {
			var m Manifold
			if swap {
				Collide(c.b, c.xb, c.a, c.xa, 0.02, &m)
			} else {
				Collide(c.a, c.xa, c.b, c.xb, 0.02, &m)
			}
			checkManifold(t, &m, 0.02)
			if m.Count == 0 || (c.points >= 0 && m.Count != c.points) {
				t.Errorf("%s (swapped %v): %d points, want %d: %+v", c.name, swap, m.Count, c.points, m)
			}
		}
		if !Overlap(c.a, c.xa, c.b, c.xb) && c.name != "parallel edges touching" {
			t.Errorf("%s: no overlap", c.name)
		}
	}
}

// TestDegenerateRandomPairs mixes zero, tiny and huge sizes and
// positions: the results stay finite with unit normals.
func TestDegenerateRandomPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	size := func() float64 {
		return [...]float64{0, 1e-12, 1e-6, 0.01, 1, 100, 1e4}[rng.IntN(7)]
	}
	shape := func() *Shape {
		return &Shape{Kind: Kind(rng.IntN(4)), HalfExtents: vecmath.V3(size(), size(), size()), Radius: size(), HalfHeight: size()}
	}
	for iter := range 20000 * *soak {
		a, b := shape(), shape()
		scale := [...]float64{0, 1e-6, 1, 1e4}[rng.IntN(4)]
		xa, xb := randomPose(rng, scale), randomPose(rng, scale)
		if rng.IntN(4) == 0 {
			xb = xa
		}
		var m Manifold
		Collide(a, xa, b, xb, 0.02, &m)
		if m.Count > 0 && (!m.Normal.IsFinite() || !near(m.Normal.Length(), 1, 1e-9)) {
			t.Fatalf("iter %d: %+v %+v: normal %v", iter, a, b, m.Normal)
		}
		for _, p := range m.Points[:m.Count] {
			if !p.Point.IsFinite() || !finite(p.Separation) {
				t.Fatalf("iter %d: %+v %v %+v %v: point %+v", iter, a, xa, b, xb, p)
			}
		}
		d := vecmath.V3(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Scale(2 * scale)
		if f, n, ok := RayCast(b, xb, xa.Pos, d); ok && (!(f >= 0 && f <= 1) || !near(n.Length(), 1, 1e-9)) {
			t.Fatalf("iter %d: ray %v %v", iter, f, n)
		}
		if f, p, n, ok := ShapeCast(a, xa, d, b, xb); ok && (!(f >= 0 && f <= 1) || !p.IsFinite() || !near(n.Length(), 1, 1e-9)) {
			t.Fatalf("iter %d: %+v %v %+v %v cast %v: %v %v %v", iter, a, xa, b, xb, d, f, p, n)
		}
	}
}
