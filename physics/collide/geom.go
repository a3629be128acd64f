package collide

import "github.com/netphys/netphys/vecmath"

// clampBox returns the point of the box [-h, h] closest to p.
func clampBox(p, h vecmath.Vec3) vecmath.Vec3 {
	return vecmath.Vec3{X: clamp(p.X, -h.X, h.X), Y: clamp(p.Y, -h.Y, h.Y), Z: clamp(p.Z, -h.Z, h.Z)}
}

// clamp limits x to [lo, hi]; NaN becomes lo, so that garbage input yields
// garbage numbers rather than out-of-range indices.
func clamp(x, lo, hi float64) float64 {
	if x > hi {
		return hi
	}
	if x >= lo {
		return x
	}
	return lo
}

// signOf returns +1 for x >= 0 and -1 otherwise.
func signOf(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// axisVec returns sign times the unit vector of axis i.
func axisVec(i int, sign float64) vecmath.Vec3 {
	return setComp(vecmath.Vec3{}, i, sign)
}

// otherAxes returns the two axes that follow axis i in cyclic order,
// (i+1)%3 and (i+2)%3, from a table: the box tests ask in their inner loops,
// where two signed remainders cost some twenty instructions.
func otherAxes(i int) (int, int) {
	return nextAxis[i], nextAxis[i+1]
}

var nextAxis = [4]int{1, 2, 0, 1}

// setComp returns v with component i replaced by x.
func setComp(v vecmath.Vec3, i int, x float64) vecmath.Vec3 {
	switch i {
	case 0:
		v.X = x
	case 1:
		v.Y = x
	default:
		v.Z = x
	}
	return v
}

// capsuleEnds returns the world-space ends of a capsule's core segment.
func capsuleEnds(s *Shape, xf vecmath.Transform) (p0, p1 vecmath.Vec3) {
	axis := xf.Rot.Rotate(vecmath.Vec3{Y: s.halfHeight()})
	return xf.Pos.Sub(axis), xf.Pos.Add(axis)
}

// closestOnSegment returns the point of segment p0–p1 closest to q. A
// zero-length segment is its own closest point.
func closestOnSegment(q, p0, p1 vecmath.Vec3) vecmath.Vec3 {
	d := p1.Sub(p0)
	dd := d.LengthSq()
	if !(dd > 0) {
		return p0
	}
	return p0.MulAdd(clamp(q.Sub(p0).Dot(d)/dd, 0, 1), d)
}

// closestSegments returns the closest points of segments p0–p1 and q0–q1
// and their parameters s, t in [0, 1] (Ericson, Real-Time Collision
// Detection, 5.1.9). Parallel segments yield the pair at s = 0 or the
// clamped projection, so the answer is one of the closest pairs.
func closestSegments(p0, p1, q0, q1 vecmath.Vec3) (cp, cq vecmath.Vec3, s, t float64) {
	d1, d2 := p1.Sub(p0), q1.Sub(q0)
	r := p0.Sub(q0)
	a, e, f := d1.LengthSq(), d2.LengthSq(), d2.Dot(r)
	switch {
	case !(a > 0) && !(e > 0):
		return p0, q0, 0, 0
	case !(a > 0):
		t = clamp(f/e, 0, 1)
	default:
		c := d1.Dot(r)
		if !(e > 0) {
			s = clamp(-c/a, 0, 1)
		} else {
			b := d1.Dot(d2)
			denom := float64(a*e) - float64(b*b)
			if denom > float64(1e-12*float64(a*e)) {
				s = clamp((float64(b*f)-float64(c*e))/denom, 0, 1)
			}
			t = (float64(b*s) + f) / e
			if t < 0 {
				t, s = 0, clamp(-c/a, 0, 1)
			} else if t > 1 {
				t, s = 1, clamp((b-c)/a, 0, 1)
			}
		}
	}
	return p0.MulAdd(s, d1), q0.MulAdd(t, d2), s, t
}
