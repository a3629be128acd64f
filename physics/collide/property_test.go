package collide

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// randomRot returns a uniformly random rotation (Shoemake's method).
func randomRot(rng *rand.Rand) vecmath.Quat {
	u1, u2, u3 := rng.Float64(), rng.Float64(), rng.Float64()
	a, b := math.Sqrt(1-u1), math.Sqrt(u1)
	return vecmath.Quat{
		X: a * math.Sin(2*math.Pi*u2), Y: a * math.Cos(2*math.Pi*u2),
		Z: b * math.Sin(2*math.Pi*u3), W: b * math.Cos(2*math.Pi*u3),
	}
}

func randomBox(rng *rand.Rand) *Shape {
	return box(0.05+2*rng.Float64(), 0.05+2*rng.Float64(), 0.05+2*rng.Float64())
}

// randomShape returns any kind but Plane, of sizes between 5 cm and 2 m.
func randomShape(rng *rand.Rand) *Shape {
	switch rng.IntN(3) {
	case 0:
		return ball(0.05 + 2*rng.Float64())
	case 1:
		return randomBox(rng)
	}
	return capsule(0.05+rng.Float64(), 2*rng.Float64())
}

// randomPose places a shape near the origin, close enough for its
// neighbours to touch it often.
func randomPose(rng *rand.Rand, spread float64) vecmath.Transform {
	p := vecmath.V3(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Scale(spread)
	return vecmath.Transform{Pos: p, Rot: randomRot(rng)}
}

// signedDistance returns the distance from the world point p to the surface
// of s placed at xf: negative inside.
func signedDistance(s *Shape, xf vecmath.Transform, p vecmath.Vec3) float64 {
	q := xf.ApplyInv(p)
	switch s.Kind {
	case Sphere:
		return q.Length() - s.Radius
	case Capsule:
		c := closestOnSegment(q, vecmath.V3(0, -s.HalfHeight, 0), vecmath.V3(0, s.HalfHeight, 0))
		return q.Sub(c).Length() - s.Radius
	case Plane:
		return q.Y
	}
	h := s.HalfExtents
	c := clampBox(q, h)
	if d := q.Sub(c).Length(); d > 0 {
		return d
	}
	a := q.Abs()
	return -math.Min(h.X-a.X, math.Min(h.Y-a.Y, h.Z-a.Z))
}

// satOverlap reports whether two boxes overlap, by the 15-axis test.
func satOverlap(a *Shape, xa vecmath.Transform, b *Shape, xb vecmath.Transform) (overlap bool, depth float64) {
	pa, pb := NewPose(xa), NewPose(xb)
	ba, bb := placeBox(a, &pa), placeBox(b, &pb)
	d := bb.pos.Sub(ba.pos)
	depth = math.Inf(-1)
	test := func(n vecmath.Vec3) {
		n, l := n.Normalize()
		if l < 1e-9 {
			return
		}
		depth = math.Max(depth, math.Abs(d.Dot(n))-ba.extent(n)-bb.extent(n))
	}
	for i := range 3 {
		test(ba.axis(i))
		test(bb.axis(i))
		for j := range 3 {
			test(ba.axis(i).Cross(bb.axis(j)))
		}
	}
	return depth <= 0, depth
}

func TestRandomBoxPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const margin = 0.02
	contacts, flippedAxes := 0, 0
	for iter := range 20000 * *soak {
		a, b := randomBox(rng), randomBox(rng)
		xa, xb := randomPose(rng, 4), randomPose(rng, 4)
		var m, w Manifold
		Collide(a, xa, b, xb, margin, &m)
		checkManifold(t, &m, margin)
		overlap, depth := satOverlap(a, xa, b, xb)
		if overlap && m.Count == 0 {
			t.Fatalf("iter %d: boxes overlap by %v but no contact", iter, depth)
		}
		if m.Count == 0 {
			continue
		}
		contacts++
		deepest := math.Inf(1)
		for _, p := range m.Points[:m.Count] {
			deepest = math.Min(deepest, p.Separation)
			pa := p.Point.MulAdd(-0.5*p.Separation, m.Normal)
			pb := p.Point.MulAdd(0.5*p.Separation, m.Normal)
			const tol = 3 * clipSlop
			if da, db := signedDistance(a, xa, pa), signedDistance(b, xb, pb); math.Abs(da) > tol || math.Abs(db) > tol {
				t.Fatalf("iter %d: point %+v is %v from A and %v from B\n%+v", iter, p, da, db, m)
			}
		}
		// No point can be deeper than the boxes' overlap along the normal.
		posa, posb := NewPose(xa), NewPose(xb)
		ba, bb := placeBox(a, &posa), placeBox(b, &posb)
		along := bb.pos.Sub(ba.pos).Dot(m.Normal) - ba.extent(m.Normal) - bb.extent(m.Normal)
		if deepest < along-1e-9 {
			t.Fatalf("iter %d: deepest point %v, but the overlap along the normal is %v", iter, deepest, along)
		}
		if overlap && deepest > 1e-9 {
			t.Fatalf("iter %d: overlapping boxes (SAT %v) with deepest point %v", iter, depth, deepest)
		}
		// The chosen axis is within the tolerances of the best one.
		if deepest < depth-edgeTolerance-relEdgeTolerance*math.Abs(deepest)-faceTolerance-1e-9 {
			t.Fatalf("iter %d: deepest point %v below the SAT depth %v", iter, deepest, depth)
		}
		// Swapping the shapes flips the normal, unless two axes were
		// equally good and the tie went to the other box.
		Collide(b, xb, a, xa, margin, &w)
		if w.Count == 0 {
			t.Fatalf("iter %d: swapped pair has no contact", iter)
		}
		if !nearVec(w.Normal, m.Normal.Neg(), 1e-9) {
			flippedAxes++
		}
	}
	if contacts < 5000 {
		t.Errorf("only %d of the random pairs touched; the test is too weak", contacts)
	}
	if flippedAxes > contacts/50 {
		t.Errorf("swapping the pair changed the axis in %d of %d contacts", flippedAxes, contacts)
	}
	t.Logf("%d contacts, %d axis changes on swap", contacts, flippedAxes)
}
