package collide

import "github.com/netphys/netphys/vecmath"

// up is the fallback normal for coincident centres: any unit vector is a
// valid answer there, and a fixed one keeps the result deterministic.
var up = vecmath.Vec3{Y: 1}

// collideSpheres is the contact of a ball of radius ra at ca with a ball of
// radius rb at cb; capsule pairs reduce to it through closest points on
// their core segments.
func collideSpheres(ca vecmath.Vec3, ra float64, cb vecmath.Vec3, rb float64, margin float64, m *Manifold) {
	n, dist := cb.Sub(ca).Normalize()
	if dist <= touchDistance {
		n = up // also where rounding leaves Normalize short of unit length
	}
	sep := dist - ra - rb
	if !(sep < margin) {
		return
	}
	m.Normal = n
	m.addPoint(midpoint(ca.MulAdd(ra, n), n, sep), sep, 0)
}

// collideSpherePlane adds the contact of a ball of radius r at c with the
// plane placed at xp (normal = its +Y axis). Capsule–plane calls it once per
// end cap, with the cap's index as feature id.
func collideSpherePlane(c vecmath.Vec3, r float64, xp vecmath.Transform, margin float64, id uint32, m *Manifold) {
	n := xp.Rot.Rotate(up)
	sep := c.Sub(xp.Pos).Dot(n) - r
	if !(sep < margin) {
		return
	}
	// The normal points from the ball (A) into the plane (B).
	m.Normal = n.Neg()
	m.addPoint(midpoint(c.MulAdd(-r, n), m.Normal, sep), sep, id)
}

// collideSphereBox is the contact of a ball (A) with a box (B). Outside the
// box the normal joins the closest box point to the centre; a centre inside
// the box is pushed out through the nearest face.
func collideSphereBox(a *Shape, centre vecmath.Vec3, b *Shape, pb *Pose, margin float64, m *Manifold) {
	r := a.radius()
	h := b.halfExtents()
	rot, xb := &pb.Mat, &pb.Transform
	c := rot.MulTVec(centre.Sub(xb.Pos)) // centre in box coordinates
	q := clampBox(c, h)
	d := c.Sub(q)
	nBox, dist := d.Normalize() // outward box normal (box coordinates), distance
	if dist <= touchDistance {
		// On or inside the box.
		axis, depth := shallowestFace(c, h)
		sign := signOf(c.Comp(axis))
		nBox = axisVec(axis, sign)
		q = setComp(c, axis, float64(sign*h.Comp(axis)))
		dist = -depth
	}
	if !nBox.IsFinite() || nBox.LengthSq() == 0 {
		nBox = up
	}
	sep := dist - r
	if !(sep < margin) {
		return
	}
	n := rot.MulVec(nBox) // box to ball
	m.Normal = n.Neg()
	onBox := rot.MulVec(q).Add(xb.Pos)
	m.addPoint(midpoint(onBox, n, sep), sep, 0)
}

// shallowestFace returns the axis of the box face nearest to the interior
// point c, and c's depth below it (m).
func shallowestFace(c, h vecmath.Vec3) (axis int, depth float64) {
	a := c.Abs()
	depth = h.X - a.X
	if d := h.Y - a.Y; d < depth {
		axis, depth = 1, d
	}
	if d := h.Z - a.Z; d < depth {
		axis, depth = 2, d
	}
	return axis, depth
}
