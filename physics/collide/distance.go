package collide

import "github.com/netphys/netphys/vecmath"

// A shape is its core grown by coreRadius: a sphere is a point, a capsule a
// segment, a box and a plane are their own cores with radius 0. The sweeps
// and overlap tests of spheres and capsules measure distances between
// cores and subtract the radii.

// coreRadius returns how far the shape extends beyond its core, m.
func (s *Shape) coreRadius() float64 {
	if s.Kind == Sphere || s.Kind == Capsule {
		return s.radius()
	}
	return 0
}

// segmentCoreClosest returns the closest points between the segment p0–p1
// (world) and the core of target placed at xf, their distance, and the unit
// normal from the target's core to the segment, or zero when the distance
// is too small to give it a direction. When the segment touches or enters
// a box or plane core the distance is 0, and the points are a point of
// contact.
func segmentCoreClosest(p0, p1 vecmath.Vec3, target *Shape, xf vecmath.Transform) (onSeg, onTarget, normal vecmath.Vec3, dist float64) {
	switch target.Kind {
	case Sphere:
		onSeg = closestOnSegment(xf.Pos, p0, p1)
		onTarget = xf.Pos
	case Capsule:
		c0, c1 := capsuleEnds(target, xf)
		onSeg, onTarget, _, _ = closestSegments(p0, p1, c0, c1)
	case Box:
		rot := vecmath.QuatToMat3(xf.Rot)
		q0, q1 := rot.MulTVec(p0.Sub(xf.Pos)), rot.MulTVec(p1.Sub(xf.Pos))
		s, b, _ := segmentBoxClosest(q0, q1, target.halfExtents())
		onSeg, onTarget = rot.MulVec(s).Add(xf.Pos), rot.MulVec(b).Add(xf.Pos)
	case Plane:
		n := xf.Rot.Rotate(up)
		h0, h1 := p0.Sub(xf.Pos).Dot(n), p1.Sub(xf.Pos).Dot(n)
		onSeg = p0
		if h1 < h0 {
			onSeg, h0 = p1, h1
		} else if h1 == h0 {
			onSeg = p0.Lerp(p1, 0.5)
		}
		if h0 <= 0 {
			return onSeg, onSeg, n, 0
		}
		return onSeg, onSeg.MulAdd(-h0, n), n, h0
	}
	normal, dist = onSeg.Sub(onTarget).Normalize()
	if dist <= touchDistance {
		normal = vecmath.Vec3{}
	}
	return onSeg, onTarget, normal, dist
}

// Overlap reports whether the query shape a (Sphere, Box or Capsule) placed
// at xa intersects shape b placed at xb. Touching counts as overlapping.
// Two planes never overlap.
func Overlap(a *Shape, xa vecmath.Transform, b *Shape, xb vecmath.Transform) bool {
	if a.Kind > b.Kind {
		a, xa, b, xb = b, xb, a, xa
	}
	switch a.Kind {
	case Sphere, Capsule:
		p0, p1 := capsuleEnds(a, xa) // a sphere's core is a point
		_, _, _, d := segmentCoreClosest(p0, p1, b, xb)
		return d <= a.coreRadius()+b.coreRadius()
	case Box:
		pa := NewPose(xa)
		ba := placeBox(a, &pa)
		switch b.Kind {
		case Box:
			pb := NewPose(xb)
			bb := placeBox(b, &pb)
			var axes satAxes
			return separatingAxes(&ba, &bb, 0, &axes)
		case Capsule:
			p0, p1 := capsuleEnds(b, xb)
			_, _, _, d := segmentCoreClosest(p0, p1, a, xa)
			return d <= b.radius()
		case Plane:
			n := xb.Rot.Rotate(up)
			return ba.pos.Sub(xb.Pos).Dot(n)-ba.extent(n) <= 0
		}
	}
	return false
}
