package collide

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

func ids(m *Manifold) []uint32 {
	out := make([]uint32, m.Count)
	for i, p := range m.Points[:m.Count] {
		out[i] = p.ID
	}
	slices.Sort(out)
	return out
}

// perturb moves and turns xf by up to dx metres and da radians.
func perturb(rng *rand.Rand, xf vecmath.Transform, dx, da float64) vecmath.Transform {
	off := vecmath.V3(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Scale(2 * dx)
	axis, _ := vecmath.V3(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Normalize()
	q := vecmath.QuatAxisAngle(axis, (rng.Float64()-0.5)*2*da).Mul(xf.Rot).Normalize()
	return vecmath.Transform{Pos: xf.Pos.Add(off), Rot: q}
}

// TestFeatureIDsStableAtRest: the solver warm starts by id, so a resting
// pair jittered by rounding-sized motions (10 µm, 10 µrad) must keep the
// ids of its points, whichever box is A.
func TestFeatureIDsStableAtRest(t *testing.T) {
	cube := box(0.5, 0.5, 0.5)
	cases := []struct {
		name   string
		a      *Shape
		xa     vecmath.Transform
		b      *Shape
		xb     vecmath.Transform
		points int
	}{
		{"equal cubes stacked", cube, at(0, 0, 0), cube, at(0, 0.999, 0), 4},
		{"equal cubes, upper is A", cube, at(0, 0.999, 0), cube, at(0, 0, 0), 4},
		{"small on large", box(2, 0.5, 2), at(0, 0, 0), box(0.25, 0.25, 0.25), at(1.1, 0.749, -0.6), 4},
		{"large on small", box(2, 0.5, 2), at(0, 1.499, 0), cube, at(0.3, 0.5, 0), 4},
		{"hanging over an edge", cube, at(0, 0, 0), cube, at(0.6, 0.999, 0.2), 4},
		{"yawed 45°", box(2, 0.5, 2), at(0, 0, 0), cube, atRot(0, 0.999, 0, vecmath.V3(0, 1, 0), math.Pi/4), 4},
		{"yawed 45° on an equal cube", cube, at(0, 0, 0), cube, atRot(0, 0.999, 0, vecmath.V3(0, 1, 0), math.Pi/4), 4},
		{"on the ground", cube, at(0, 0.499, 0), ground, at(0, 0, 0), 4},
		{"capsule on a box", cube, at(0, 0, 0), capsule(0.2, 1), atRot(0.2, 0.699, 0, vecmath.V3(0, 0, 1), math.Pi/2), 2},
		{"capsules side by side", capsule(0.5, 1), at(0, 0, 0), capsule(0.5, 1), at(0.999, 0.5, 0), 2},
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for _, c := range cases {
		ref := collide(c.a, c.xa, c.b, c.xb)
		if ref.Count != c.points {
			t.Errorf("%s: %d points, want %d: %+v", c.name, ref.Count, c.points, ref)
			continue
		}
		want := ids(&ref)
		for range 1000 {
			xb := perturb(rng, c.xb, 1e-5, 1e-5)
			m := collide(c.a, c.xa, c.b, xb)
			if got := ids(&m); !slices.Equal(got, want) {
				t.Errorf("%s: ids %x became %x at %+v", c.name, want, got, xb)
				break
			}
		}
	}
}

// TestFeatureIDsWhileSliding slides a yawed cube across a slab, off its
// far rim, in 1 mm steps: ids change only when a corner crosses a rim,
// not from step to step.
func TestFeatureIDsWhileSliding(t *testing.T) {
	slab, cube := box(1, 0.5, 1), box(0.25, 0.25, 0.25)
	var prev []uint32
	changes, steps := 0, 0
	for x := 0.0; x < 1.6; x += 0.001 {
		xb := atRot(x, 0.749, 0.3, vecmath.V3(0, 1, 0), 0.3)
		m := collide(slab, at(0, 0, 0), cube, xb)
		checkManifold(t, &m, 0.02)
		if m.Count == 0 {
			break
		}
		steps++
		if got := ids(&m); prev != nil && !slices.Equal(got, prev) {
			changes++
		}
		prev = ids(&m)
	}
	// Four corners leave the face one after another; each departure
	// changes the clipped polygon about twice (corner → two clip points →
	// reduction).
	if steps < 1000 || changes > 12 {
		t.Errorf("%d id changes over %d steps", changes, steps)
	}
	t.Logf("%d id changes over %d steps", changes, steps)
}
