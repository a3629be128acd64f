package collide

import "github.com/netphys/netphys/vecmath"

const (
	// castTolerance (m) is how close conservative advancement brings a
	// capsule to the target before it reports the hit.
	castTolerance = 1e-6
	// maxCastIterations bounds conservative advancement. Each step is a
	// Newton step on a convex function, so it converges quadratically on a
	// head-on approach and halves the gap per step on a grazing one.
	maxCastIterations = 64
)

// ShapeCast sweeps the shape moving (Sphere or Capsule, orientation fixed)
// from start along translation against target (any kind) placed at xf. It
// returns the fraction in [0, 1] of translation at the first time of
// impact, the contact point (on the target's surface, world) and the unit
// normal pointing from target to moving. Shapes that overlap at the start
// give fraction 0 and ok true, with the normal and deepest point of their
// contact. Other kinds of moving shape never hit.
//
// Method. A sphere cast is exact: it is a ray cast of the sphere's centre
// against the target grown by the sphere's radius (a ball, a capsule, a
// raised plane, or a rounded box: the union of three slabs and twelve edge
// capsules). A capsule cast uses conservative advancement on the distance
// between the capsule's core segment and the target's core (segment–point,
// segment–segment, the exact segment–box distance of segmentBoxClosest, or
// segment–plane): that distance is convex in the fraction under pure
// translation, so stepping by gap / closing speed never passes the impact,
// and the sweep stops within castTolerance (1e-6 m) of it.
func ShapeCast(moving *Shape, start vecmath.Transform, translation vecmath.Vec3, target *Shape, xf vecmath.Transform) (fraction float64, point, normal vecmath.Vec3, ok bool) {
	if moving.Kind != Sphere && moving.Kind != Capsule {
		return 0, vecmath.Vec3{}, vecmath.Vec3{}, false
	}
	if Overlap(moving, start, target, xf) {
		point, normal = overlapContact(moving, start, target, xf, translation)
		return 0, point, normal, true
	}
	if moving.Kind == Sphere {
		return sphereCast(moving.radius(), start.Pos, translation, target, xf)
	}
	return capsuleCast(moving, start, translation, target, xf)
}

// overlapContact returns the deepest contact point of two overlapping
// shapes and the normal from target to moving.
func overlapContact(moving *Shape, start vecmath.Transform, target *Shape, xf vecmath.Transform, translation vecmath.Vec3) (point, normal vecmath.Vec3) {
	var m Manifold
	Collide(target, xf, moving, start, 0, &m)
	if m.Count == 0 {
		// Touching exactly: no point is strictly below a zero margin.
		Collide(target, xf, moving, start, castTolerance, &m)
	}
	if m.Count == 0 {
		// Only rounding gets here; push back against the motion.
		n, l := translation.Normalize()
		if l <= touchDistance {
			n = up.Neg()
		}
		return start.Pos, n.Neg()
	}
	deepest := 0
	for i := 1; i < m.Count; i++ {
		if m.Points[i].Separation < m.Points[deepest].Separation {
			deepest = i
		}
	}
	return m.Points[deepest].Point, m.Normal
}

// sphereCast ray casts the centre c of a ball of radius r against target
// grown by r.
func sphereCast(r float64, c, translation vecmath.Vec3, target *Shape, xf vecmath.Transform) (float64, vecmath.Vec3, vecmath.Vec3, bool) {
	rot := vecmath.QuatToMat3(xf.Rot)
	o := rot.MulTVec(c.Sub(xf.Pos))
	d := rot.MulTVec(translation)
	var t float64
	var n vecmath.Vec3
	var ok bool
	switch target.Kind {
	case Sphere:
		t, n, ok = raySphere(o, d, vecmath.Vec3{}, target.radius()+r)
	case Capsule:
		hh := target.halfHeight()
		t, n, ok = rayCapsule(o, d, vecmath.Vec3{Y: -hh}, vecmath.Vec3{Y: hh}, target.radius()+r)
	case Box:
		t, n, ok = rayRoundedBox(o, d, target.halfExtents(), r)
	case Plane:
		t, n, ok = rayPlane(o, d, r)
	}
	if !ok {
		return 0, vecmath.Vec3{}, vecmath.Vec3{}, false
	}
	// The centre at impact, moved back onto the target's surface.
	hit := o.MulAdd(t, d).MulAdd(-r, n)
	return t, rot.MulVec(hit).Add(xf.Pos), rot.MulVec(n), true
}

// rayRoundedBox intersects o + t·d with the box [-h, h] grown by r: the
// union of the box grown by r along each axis and the capsules of radius r
// around its twelve edges. The first entry into the union is the entry
// into the rounded box.
func rayRoundedBox(o, d, h vecmath.Vec3, r float64) (float64, vecmath.Vec3, bool) {
	// Fast path through the box grown by r on every axis, which holds the
	// rounded box: a ray from outside it that misses it misses, and one that
	// enters it through the flat part of a face has its answer.
	grown := h.Add(vecmath.Vec3{X: r, Y: r, Z: r})
	if q := o.Abs(); q.X > grown.X || q.Y > grown.Y || q.Z > grown.Z {
		t, n, ok := rayBox(o, d, grown)
		if !ok {
			return 0, vecmath.Vec3{}, false
		}
		if p := o.MulAdd(t, d).Abs(); n.X != 0 && p.Y <= h.Y && p.Z <= h.Z ||
			n.Y != 0 && p.X <= h.X && p.Z <= h.Z || n.Z != 0 && p.X <= h.X && p.Y <= h.Y {
			return t, n, true
		}
	}
	best, bestN, hit := 0.0, vecmath.Vec3{}, false
	take := func(t float64, n vecmath.Vec3, ok bool) {
		if ok && (!hit || t < best) {
			best, bestN, hit = t, n, true
		}
	}
	for i := range 3 {
		take(rayBox(o, d, setComp(h, i, h.Comp(i)+r)))
		j, k := otherAxes(i)
		for _, sj := range [2]float64{-1, 1} {
			for _, sk := range [2]float64{-1, 1} {
				c := setComp(setComp(vecmath.Vec3{}, j, float64(sj*h.Comp(j))), k, float64(sk*h.Comp(k)))
				p0, p1 := setComp(c, i, -h.Comp(i)), setComp(c, i, h.Comp(i))
				take(rayCapsule(o, d, p0, p1, r))
			}
		}
	}
	return best, bestN, hit
}

// capsuleCast sweeps a capsule by conservative advancement (see ShapeCast).
func capsuleCast(moving *Shape, start vecmath.Transform, translation vecmath.Vec3, target *Shape, xf vecmath.Transform) (float64, vecmath.Vec3, vecmath.Vec3, bool) {
	p0, p1 := capsuleEnds(moving, start)
	radii := moving.radius() + target.coreRadius()
	rt := target.coreRadius()
	t := 0.0
	var n vecmath.Vec3
	for range maxCastIterations {
		_, ct, normal, dist := segmentCoreClosest(p0.MulAdd(t, translation), p1.MulAdd(t, translation), target, xf)
		if normal != (vecmath.Vec3{}) {
			n = normal // else keep the last direction: the cores are about to touch
		}
		if n == (vecmath.Vec3{}) {
			// Touching cores at the start, which Overlap reports first:
			// only rounding gets here.
			return 0, vecmath.Vec3{}, vecmath.Vec3{}, false
		}
		gap := dist - radii
		if gap <= castTolerance {
			return t, ct.MulAdd(rt, n), n, true
		}
		closing := -translation.Dot(n)
		if !(closing > 0) {
			return 0, vecmath.Vec3{}, vecmath.Vec3{}, false // moving apart: the gap only grows
		}
		t += gap / closing
		if !(t <= 1) {
			return 0, vecmath.Vec3{}, vecmath.Vec3{}, false
		}
	}
	return 0, vecmath.Vec3{}, vecmath.Vec3{}, false
}
