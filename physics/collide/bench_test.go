package collide

import (
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// pairSet is a fixed set of random placed pairs for the benchmarks.
type pairSet struct {
	a, b   []*Shape
	xa, xb []vecmath.Transform
}

func randomPairs(n int, kinds func(*rand.Rand) (*Shape, *Shape)) pairSet {
	rng := rand.New(rand.NewPCG(21, 34))
	var s pairSet
	for range n {
		a, b := kinds(rng)
		s.a, s.b = append(s.a, a), append(s.b, b)
		s.xa, s.xb = append(s.xa, randomPose(rng, 3)), append(s.xb, randomPose(rng, 3))
	}
	return s
}

// BenchmarkBoxBoxResting is a cube on a cube, as in a tower: aligned (4
// incident corners), and yawed (an octagon of clip points reduced to 4).
func BenchmarkBoxBoxResting(b *testing.B) {
	cube := box(0.5, 0.5, 0.5)
	for _, c := range []struct {
		name string
		xb   vecmath.Transform
	}{
		{"aligned", atRot(0.01, 0.999, -0.02, vecmath.V3(1, 2, 3), 0.001)},
		{"yawed", atRot(0.1, 0.999, -0.05, vecmath.V3(0, 1, 0), 0.2)},
	} {
		b.Run(c.name, func(b *testing.B) {
			var m Manifold
			for b.Loop() {
				Collide(cube, vecmath.TransformIdentity, cube, c.xb, 0.02, &m)
			}
		})
	}
}

func BenchmarkBoxPlaneResting(b *testing.B) {
	cube := box(0.5, 0.5, 0.5)
	xa := at(0, 0.499, 0)
	var m Manifold
	for b.Loop() {
		Collide(cube, xa, ground, vecmath.TransformIdentity, 0.02, &m)
	}
}

func BenchmarkBoxBoxRandom(b *testing.B) {
	s := randomPairs(1024, func(r *rand.Rand) (*Shape, *Shape) { return randomBox(r), randomBox(r) })
	var m Manifold
	i := 0
	for b.Loop() {
		Collide(s.a[i], s.xa[i], s.b[i], s.xb[i], 0.02, &m)
		i = (i + 1) & 1023
	}
}

func BenchmarkCollideRandomKinds(b *testing.B) {
	s := randomPairs(1024, func(r *rand.Rand) (*Shape, *Shape) { return randomShape(r), randomTarget(r) })
	var m Manifold
	i := 0
	for b.Loop() {
		Collide(s.a[i], s.xa[i], s.b[i], s.xb[i], 0.02, &m)
		i = (i + 1) & 1023
	}
}

func BenchmarkRayCastBox(b *testing.B) {
	cube := box(0.5, 0.5, 0.5)
	xf := atRot(0, 0, 0, vecmath.V3(1, 1, 0), 0.5)
	o, d := vecmath.V3(-3, 0.1, 0.2), vecmath.V3(6, 0, 0)
	for b.Loop() {
		RayCast(cube, xf, o, d)
	}
}

func BenchmarkSphereCastBox(b *testing.B) {
	cube, s := box(0.5, 0.5, 0.5), ball(0.3)
	xf := atRot(0, 0, 0, vecmath.V3(1, 1, 0), 0.5)
	start, d := at(-3, 0.1, 0.2), vecmath.V3(6, 0, 0)
	for b.Loop() {
		ShapeCast(s, start, d, cube, xf)
	}
}

func BenchmarkCapsuleCastBox(b *testing.B) {
	cube, c := box(0.5, 0.5, 0.5), capsule(0.3, 0.5)
	xf := atRot(0, 0, 0, vecmath.V3(1, 1, 0), 0.5)
	start, d := atRot(-3, 0.1, 0.2, vecmath.V3(0, 0, 1), 0.3), vecmath.V3(6, 0, 0)
	for b.Loop() {
		ShapeCast(c, start, d, cube, xf)
	}
}

// TestNoAllocations: the narrowphase and the queries run every step for
// every pair and must not allocate.
func TestNoAllocations(t *testing.T) {
	s := randomPairs(256, func(r *rand.Rand) (*Shape, *Shape) { return randomShape(r), randomTarget(r) })
	var m Manifold
	i := 0
	allocs := testing.AllocsPerRun(2000, func() {
		Collide(s.a[i], s.xa[i], s.b[i], s.xb[i], 0.02, &m)
		RayCast(s.b[i], s.xb[i], s.xa[i].Pos, vecmath.V3(3, -2, 1))
		ShapeCast(s.a[i], s.xa[i], vecmath.V3(3, -2, 1), s.b[i], s.xb[i])
		Overlap(s.a[i], s.xa[i], s.b[i], s.xb[i])
		i = (i + 1) & 255
	})
	if allocs != 0 {
		t.Errorf("%v allocations per call", allocs)
	}
}
