package collide

import (
	"math"

	"github.com/netphys/netphys/vecmath"
)

// RayCast casts the ray origin + t·translation, t in [0, 1], against shape s
// placed at xf. It returns the fraction t of the first entry into the shape
// and the outward unit surface normal there (world). A ray that starts
// inside the shape, or on its surface, does not hit it (Box2D's rule): a
// query from inside a body sees out of it.
func RayCast(s *Shape, xf vecmath.Transform, origin, translation vecmath.Vec3) (fraction float64, normal vecmath.Vec3, ok bool) {
	rot := vecmath.QuatToMat3(xf.Rot)
	o := rot.MulTVec(origin.Sub(xf.Pos))
	d := rot.MulTVec(translation)
	var n vecmath.Vec3
	switch s.Kind {
	case Sphere:
		fraction, n, ok = raySphere(o, d, vecmath.Vec3{}, s.radius())
	case Box:
		fraction, n, ok = rayBox(o, d, s.halfExtents())
	case Capsule:
		hh := s.halfHeight()
		fraction, n, ok = rayCapsule(o, d, vecmath.Vec3{Y: -hh}, vecmath.Vec3{Y: hh}, s.radius())
	case Plane:
		fraction, n, ok = rayPlane(o, d, 0)
	}
	if !ok {
		return 0, vecmath.Vec3{}, false
	}
	return fraction, rot.MulVec(n), true
}

// raySphere intersects o + t·d with the ball of radius r at c.
func raySphere(o, d, c vecmath.Vec3, r float64) (float64, vecmath.Vec3, bool) {
	m := o.Sub(c)
	cc := m.LengthSq() - float64(r*r)
	b := m.Dot(d)
	if !(cc > 0) || !(b < 0) {
		return 0, vecmath.Vec3{}, false // inside, or moving away
	}
	disc := float64(b*b) - float64(d.LengthSq()*cc)
	if disc < 0 {
		return 0, vecmath.Vec3{}, false
	}
	// The smaller root, in the form without cancellation: t1 = c/(a·t2).
	t := cc / (math.Sqrt(disc) - b)
	if !(t <= 1) {
		return 0, vecmath.Vec3{}, false
	}
	n, _ := m.MulAdd(t, d).Normalize()
	return t, n, n != vecmath.Vec3{}
}

// rayBox intersects o + t·d with the box [-h, h] by clipping the ray
// against the three slabs.
func rayBox(o, d, h vecmath.Vec3) (float64, vecmath.Vec3, bool) {
	lower, upper := 0.0, 1.0
	axis := -1
	for i := range 3 {
		oi, di, hi := o.Comp(i), d.Comp(i), h.Comp(i)
		if di == 0 {
			if !(math.Abs(oi) <= hi) {
				return 0, vecmath.Vec3{}, false
			}
			continue
		}
		t1, t2 := (-hi-oi)/di, (hi-oi)/di
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		if t1 > lower {
			lower, axis = t1, i
		}
		upper = math.Min(upper, t2)
		if !(lower <= upper) {
			return 0, vecmath.Vec3{}, false
		}
	}
	if axis < 0 {
		return 0, vecmath.Vec3{}, false // starts inside or on the surface
	}
	return lower, axisVec(axis, -signOf(d.Comp(axis))), true
}

// rayCapsule intersects o + t·d with the points within r of the segment
// p0–p1: the side of the cylinder if the ray enters there, else the nearer
// end cap.
func rayCapsule(o, d, p0, p1 vecmath.Vec3, r float64) (float64, vecmath.Vec3, bool) {
	if c := closestOnSegment(o, p0, p1); !(o.Sub(c).LengthSq() > float64(r*r)) {
		return 0, vecmath.Vec3{}, false
	}
	axis := p1.Sub(p0)
	ll := axis.LengthSq()
	if ll > 0 {
		// Components across the axis: |m⊥ + t·d⊥|² = r².
		m := o.Sub(p0)
		mp := m.MulAdd(-m.Dot(axis)/ll, axis)
		dp := d.MulAdd(-d.Dot(axis)/ll, axis)
		a, b := dp.LengthSq(), mp.Dot(dp)
		cc := mp.LengthSq() - float64(r*r)
		if disc := float64(b*b) - float64(a*cc); a > 0 && cc > 0 && b < 0 && disc >= 0 {
			t := cc / (math.Sqrt(disc) - b)
			if s := m.MulAdd(t, d).Dot(axis) / ll; t <= 1 && s >= 0 && s <= 1 {
				n, _ := mp.MulAdd(t, dp).Normalize()
				if n != (vecmath.Vec3{}) {
					return t, n, true
				}
			}
		}
	}
	t0, n0, ok0 := raySphere(o, d, p0, r)
	t1, n1, ok1 := raySphere(o, d, p1, r)
	if ok1 && (!ok0 || t1 < t0) {
		return t1, n1, true
	}
	return t0, n0, ok0
}

// rayPlane intersects o + t·d with the plane y = offset (plane
// coordinates); the half-space below is solid.
func rayPlane(o, d vecmath.Vec3, offset float64) (float64, vecmath.Vec3, bool) {
	height := o.Y - offset
	if !(height > 0) || !(d.Y < 0) {
		return 0, vecmath.Vec3{}, false
	}
	t := height / -d.Y
	if !(t <= 1) {
		return 0, vecmath.Vec3{}, false
	}
	return t, up, true
}
