package collide

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// randomTarget returns any kind, planes included.
func randomTarget(rng *rand.Rand) *Shape {
	if rng.IntN(6) == 0 {
		return &Shape{Kind: Plane}
	}
	return randomShape(rng)
}

// TestRayCastMatchesSampling compares ray casts with a dense walk along
// the ray: the first sample inside the shape must come just after the
// reported entry, and a miss must have no sample inside.
func TestRayCastMatchesSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const samples = 2000
	hits := 0
	for iter := range 3000 * *soak {
		s := randomTarget(rng)
		xf := randomPose(rng, 2)
		origin := vecmath.V3(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Scale(8)
		aim := vecmath.V3(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Scale(2).Add(xf.Pos)
		d := aim.Sub(origin).Scale(1 + rng.Float64())
		f, n, ok := RayCast(s, xf, origin, d)
		startsInside := signedDistance(s, xf, origin) <= 0
		first := -1
		for k := 0; k <= samples; k++ {
			if signedDistance(s, xf, origin.MulAdd(float64(k)/samples, d)) < -1e-9 {
				first = k
				break
			}
		}
		switch {
		case startsInside:
			if ok {
				t.Fatalf("iter %d: ray starting inside hit at %v", iter, f)
			}
		case ok:
			hits++
			p := origin.MulAdd(f, d)
			if sd := signedDistance(s, xf, p); math.Abs(sd) > 1e-9 {
				t.Fatalf("iter %d: hit point %v is %v from the surface", iter, p, sd)
			}
			if !near(n.Length(), 1, 1e-12) || n.Dot(d) > 0 {
				t.Fatalf("iter %d: normal %v for direction %v", iter, n, d)
			}
			// The normal is the gradient of the signed distance.
			const eps = 1e-6
			g := vecmath.V3(
				signedDistance(s, xf, p.Add(vecmath.V3(eps, 0, 0)))-signedDistance(s, xf, p.Sub(vecmath.V3(eps, 0, 0))),
				signedDistance(s, xf, p.Add(vecmath.V3(0, eps, 0)))-signedDistance(s, xf, p.Sub(vecmath.V3(0, eps, 0))),
				signedDistance(s, xf, p.Add(vecmath.V3(0, 0, eps)))-signedDistance(s, xf, p.Sub(vecmath.V3(0, 0, eps))),
			).Scale(1 / (2 * eps))
			if s.Kind != Box && !nearVec(g, n, 1e-4) {
				t.Fatalf("iter %d: normal %v, gradient %v", iter, n, g)
			}
			if first >= 0 && float64(first)/samples < f-1e-9 {
				t.Fatalf("iter %d: sample %d inside before the hit at %v", iter, first, f)
			}
		case first >= 0:
			// A miss may only graze: the sample is barely inside.
			if sd := signedDistance(s, xf, origin.MulAdd(float64(first)/samples, d)); sd < -1e-6 {
				t.Fatalf("iter %d: missed, but sample %d is %v deep in %+v", iter, first, sd, s)
			}
		}
	}
	if hits < 500 {
		t.Errorf("only %d hits", hits)
	}
}

// TestShapeCastMatchesSampling steps the moving shape along its sweep and
// checks the reported time of impact against the first overlapping sample.
func TestShapeCastMatchesSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	const samples = 400
	hits := 0
	for iter := range 1500 * *soak {
		var moving *Shape
		if rng.IntN(2) == 0 {
			moving = ball(0.05 + rng.Float64())
		} else {
			moving = capsule(0.05+0.5*rng.Float64(), 1.5*rng.Float64())
		}
		target := randomTarget(rng)
		xf := randomPose(rng, 2)
		start := randomPose(rng, 10)
		d := xf.Pos.Add(vecmath.V3(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Scale(3)).Sub(start.Pos).Scale(1 + rng.Float64())
		f, p, n, ok := ShapeCast(moving, start, d, target, xf)
		at := func(u float64) vecmath.Transform {
			return vecmath.Transform{Pos: start.Pos.MulAdd(u, d), Rot: start.Rot}
		}
		first := -1
		for k := 0; k <= samples; k++ {
			if Overlap(moving, at(float64(k)/samples), target, xf) {
				first = k
				break
			}
		}
		if !ok {
			if first >= 0 {
				// Allow a graze: a sample that overlaps by a hair.
				var m Manifold
				Collide(target, xf, moving, at(float64(first)/samples), 0, &m)
				if m.Count > 0 && m.Points[0].Separation < -1e-5 {
					t.Fatalf("iter %d: missed, but sample %d overlaps by %v", iter, first, m.Points[0].Separation)
				}
			}
			continue
		}
		hits++
		if !near(n.Length(), 1, 1e-9) || !p.IsFinite() {
			t.Fatalf("iter %d: normal %v point %v", iter, n, p)
		}
		if first < 0 {
			// A graze between two samples: the shapes must touch at f.
			var m Manifold
			Collide(target, xf, moving, at(f), 1e-5, &m)
			if m.Count == 0 || m.Points[0].Separation < -1e-5 {
				t.Fatalf("iter %d: hit at %v but no sample overlaps: %+v", iter, f, m)
			}
			continue
		}
		if float64(first)/samples < f-1e-9 {
			t.Fatalf("iter %d: sample %d overlaps before the hit at %v", iter, first, f)
		}
		if first > 0 && float64(first-1)/samples > f+1e-9 {
			t.Fatalf("iter %d: hit at %v, first overlap only at sample %d", iter, f, first)
		}
		if f > 0 {
			// At impact the point is on the target and the moving shape
			// touches it.
			if sd := signedDistance(target, xf, p); math.Abs(sd) > 2e-6 {
				t.Fatalf("iter %d: point %v is %v from the target", iter, p, sd)
			}
			if sd := signedDistance(moving, at(f), p); math.Abs(sd) > 2e-6 {
				t.Fatalf("iter %d: point %v is %v from the moving shape", iter, p, sd)
			}
			if n.Dot(d) > 1e-9 {
				t.Fatalf("iter %d: normal %v along the motion %v", iter, n, d)
			}
		}
	}
	if hits < 300 {
		t.Errorf("only %d hits", hits)
	}
}

// TestOverlapMatchesCollide: shapes overlap exactly when Collide finds a
// point at or below zero separation.
func TestOverlapMatchesCollide(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	overlaps := 0
	for iter := range 20000 * *soak {
		a, b := randomShape(rng), randomTarget(rng)
		xa, xb := randomPose(rng, 4), randomPose(rng, 4)
		var m Manifold
		Collide(a, xa, b, xb, 1e-9, &m)
		got := Overlap(a, xa, b, xb)
		if got != (m.Count > 0) {
			t.Fatalf("iter %d: Overlap %v, Collide %+v\n%+v %v\n%+v %v", iter, got, m, a, xa, b, xb)
		}
		if got != Overlap(b, xb, a, xa) {
			t.Fatalf("iter %d: Overlap is not symmetric", iter)
		}
		if got {
			overlaps++
		}
	}
	if overlaps < 3000 {
		t.Errorf("only %d overlaps", overlaps)
	}
}

// TestRandomShapePairs checks the manifold invariants for every pair of
// kinds: unit normals, finite values, points on both surfaces, and the
// normal flips when the pair is swapped.
func TestRandomShapePairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 8))
	const margin = 0.02
	contacts := 0
	for iter := range 20000 * *soak {
		a, b := randomShape(rng), randomTarget(rng)
		xa, xb := randomPose(rng, 4), randomPose(rng, 4)
		var m, w Manifold
		Collide(a, xa, b, xb, margin, &m)
		checkManifold(t, &m, margin)
		if m.Count == 0 {
			continue
		}
		contacts++
		deepest := 0
		for i, p := range m.Points[:m.Count] {
			if p.Separation < m.Points[deepest].Separation {
				deepest = i
			}
		}
		for i, p := range m.Points[:m.Count] {
			pa := p.Point.MulAdd(-0.5*p.Separation, m.Normal)
			pb := p.Point.MulAdd(0.5*p.Separation, m.Normal)
			// The deepest point lies on both surfaces. The others of a
			// capsule manifold sit at r along the normal from the core,
			// which a tilted capsule may hold inside; they must not float.
			const tol = 3 * clipSlop
			da, db := signedDistance(a, xa, pa), signedDistance(b, xb, pb)
			if da > tol || db > tol || (i == deepest && (da < -tol || db < -tol)) {
				t.Fatalf("iter %d: %v–%v point %d %+v is %v from A and %v from B\n%+v", iter, a.Kind, b.Kind, i, p, da, db, m)
			}
		}
		Collide(b, xb, a, xa, margin, &w)
		if a.Kind != Box || b.Kind != Box {
			if w.Count != m.Count || !nearVec(w.Normal, m.Normal.Neg(), 1e-9) {
				t.Fatalf("iter %d: swapped %+v, original %+v", iter, w, m)
			}
		}
	}
	if contacts < 3000 {
		t.Errorf("only %d contacts", contacts)
	}
}
