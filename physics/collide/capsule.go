package collide

import (
	"math"

	"github.com/netphys/netphys/vecmath"
)

const (
	// parallelSin is the sine of the angle under which a capsule counts as
	// lying along another capsule or a box face, and gets two points so
	// that it does not roll on a single one.
	parallelSin = 0.02
	// minOverlap (m) is the shortest shared length that makes two points.
	minOverlap = 0.001
	// touchDistance (m): core distances at or below it are treated as
	// touching, since a normal built from them would be noise.
	touchDistance = 1e-9
)

// collideCapsules is the contact of capsules A and B: the closest points of
// their core segments, as for two balls, plus a second point when the
// cores are parallel and overlap along their length.
func collideCapsules(a *Shape, xa vecmath.Transform, b *Shape, xb vecmath.Transform, margin float64, m *Manifold) {
	a0, a1 := capsuleEnds(a, xa)
	b0, b1 := capsuleEnds(b, xb)
	ra, rb := a.radius(), b.radius()
	ca, cb, _, _ := closestSegments(a0, a1, b0, b1)
	da, db := a1.Sub(a0), b1.Sub(b0)
	n, dist := cb.Sub(ca).Normalize()
	if dist <= touchDistance {
		n = crossingNormal(da, db, xb.Pos.Sub(xa.Pos))
		dist = 0
	}
	sep := dist - ra - rb
	if !(sep < margin) {
		return
	}
	m.Normal = n
	la, lb := da.Length(), db.Length()
	if la > 0 && lb > 0 && da.Cross(db).Length() < float64(parallelSin*float64(la*lb)) {
		// Project B's ends on A's core and keep the shared interval.
		u0 := b0.Sub(a0).Dot(da) / float64(la*la)
		u1 := b1.Sub(a0).Dot(da) / float64(la*la)
		lo, hi := clamp(math.Min(u0, u1), 0, 1), clamp(math.Max(u0, u1), 0, 1)
		if float64((hi-lo)*la) > minOverlap {
			for k, u := range [2]float64{lo, hi} {
				pa := a0.MulAdd(u, da)
				pb := closestOnSegment(pa, b0, b1)
				s := pb.Sub(pa).Dot(n) - ra - rb
				if s < margin {
					m.addPoint(midpoint(pa.MulAdd(ra, n), n, s), s, uint32(k+1))
				}
			}
			if m.Count > 0 {
				return
			}
		}
	}
	m.addPoint(midpoint(ca.MulAdd(ra, n), n, sep), sep, 0)
}

// crossingNormal picks a unit normal for two core segments that touch:
// perpendicular to both if they cross, else perpendicular to the first;
// of the two signs, the one along towards (A's centre to B's).
func crossingNormal(da, db, towards vecmath.Vec3) vecmath.Vec3 {
	n, l := da.Cross(db).Normalize()
	if l <= touchDistance {
		u, lu := da.Normalize()
		if lu == 0 {
			u = up
		}
		// The component of towards across the segment, if any.
		n, l = towards.MulAdd(-towards.Dot(u), u).Normalize()
		if l <= touchDistance {
			n, _ = vecmath.Perpendicular(u)
		}
	}
	if n.Dot(towards) < 0 {
		n = n.Neg()
	}
	return n
}
