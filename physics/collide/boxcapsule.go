package collide

import (
	"math"

	"github.com/netphys/netphys/vecmath"
)

// Feature ids of box–capsule points: a point on a box face is the face id
// (axis*2 + positive side) with bit 3 naming the end of the clipped core
// (0: towards the capsule's -Y end); a single point elsewhere is
// boxCapsuleSingle.
const boxCapsuleSingle = 1 << 4

// faceCos is the cosine matching parallelSin.
var faceCos = math.Sqrt(1 - float64(parallelSin*parallelSin))

// collideBoxCapsule is the contact of a box (A) with a capsule (B), in box
// coordinates. When the core segment is outside the box the exact closest
// points give the normal and distance; when it pierces the box a separating
// axis test over the 3 face normals and the 3 crosses of the core with the
// box edges gives the axis of least penetration. A face normal then clips
// the core to the face, giving two points when the capsule lies on it.
func collideBoxCapsule(a *Shape, pa *Pose, b *Shape, xb vecmath.Transform, margin float64, m *Manifold) {
	bx := placeBox(a, pa)
	p0, p1 := capsuleEnds(b, xb)
	q0, q1 := bx.rot.MulTVec(p0.Sub(bx.pos)), bx.rot.MulTVec(p1.Sub(bx.pos))
	r := b.radius()
	segPt, boxPt, distSq := segmentBoxClosest(q0, q1, bx.h)
	dist := math.Sqrt(distSq)
	var n vecmath.Vec3 // box to capsule, box coordinates
	var sep float64
	face := -1 // axis of the face the normal leaves through, if any
	if dist > touchDistance {
		n = segPt.Sub(boxPt).Scale(1 / dist)
		sep = dist - r
		face = faceOfNormal(n)
	} else {
		n, sep, face = segmentBoxSAT(q0, q1, bx.h)
		sep -= r
	}
	if !(sep < margin) {
		return
	}
	m.Normal = bx.rot.MulVec(n)
	if face >= 0 {
		// Two points when the core lies along the face; one, the deepest
		// clipped end, when it pierces the face at an angle.
		u, _ := q1.Sub(q0).Normalize()
		both := u != (vecmath.Vec3{}) && math.Abs(u.Comp(face)) < parallelSin
		if (both || dist <= touchDistance) && boxFaceCapsule(&bx, q0, q1, r, face, n, margin, both, m) {
			return
		}
	}
	if dist <= touchDistance {
		// Edge axis: the closest points of the core and the support edge.
		e0, e1 := boxEdgeAlong(bx.h, q1.Sub(q0), n)
		_, boxPt, _, _ = closestSegments(q0, q1, e0, e1)
	}
	pb := bx.rot.MulVec(boxPt).Add(bx.pos)
	m.addPoint(midpoint(pb, m.Normal, sep), sep, boxCapsuleSingle)
}

// faceOfNormal returns the axis of the box face whose normal is within
// parallelSin of n, or -1. Exact closest points give an exact face normal
// when the closest box point lies inside a face; the tolerance keeps a
// capsule that lies on a face and pokes past its rim, slightly tilted, on
// two points instead of one on the rim.
func faceOfNormal(n vecmath.Vec3) int {
	a := n.Abs()
	k := 0
	if a.Y > a.Comp(k) {
		k = 1
	}
	if a.Z > a.Comp(k) {
		k = 2
	}
	if a.Comp(k) < faceCos {
		return -1
	}
	return k
}

// segmentBoxSAT returns the axis of least penetration of the segment q0–q1
// into the box [-h, h], oriented from the box to the segment, the
// separation along it (negative) and its face axis, or -1 for an edge axis.
// Face axes win ties within edgeTolerance.
func segmentBoxSAT(q0, q1, h vecmath.Vec3) (n vecmath.Vec3, sep float64, face int) {
	c := q0.Add(q1).Scale(0.5)
	half := q1.Sub(q0).Scale(0.5)
	sep, face = math.Inf(-1), -1
	for i := range 3 {
		if s := math.Abs(c.Comp(i)) - math.Abs(half.Comp(i)) - h.Comp(i); s > sep {
			sep, face = s, i
		}
	}
	n = axisVec(face, signOf(c.Comp(face)))
	bestEdge := math.Inf(-1)
	var edgeN vecmath.Vec3
	for i := range 3 {
		axis, l := half.Cross(axisVec(i, 1)).Normalize()
		if l < minEdgeAxis {
			continue
		}
		s := math.Abs(c.Dot(axis)) - math.Abs(half.Dot(axis)) - h.Dot(axis.Abs())
		if s > bestEdge {
			bestEdge, edgeN = s, axis
		}
	}
	if bestEdge > sep+edgeTolerance {
		return edgeN.Scale(signOf(c.Dot(edgeN))), bestEdge, -1
	}
	return n, sep, face
}

// boxFaceCapsule clips the core q0–q1 (box coordinates) to the box face
// on axis k that n leaves through, and adds both clipped ends, or only the
// deeper one, if they are below the margin. It reports whether it added
// any.
func boxFaceCapsule(bx *orientedBox, q0, q1 vecmath.Vec3, r float64, k int, n vecmath.Vec3, margin float64, both bool, m *Manifold) bool {
	s := signOf(n.Comp(k))
	lo, hi := 0.0, 1.0
	d := q1.Sub(q0)
	ku, kv := otherAxes(k)
	for _, i := range [2]int{ku, kv} {
		lim := bx.h.Comp(i) + clipSlop
		lo, hi = clipInterval(q0.Comp(i), d.Comp(i), -lim, lim, lo, hi)
	}
	if !(lo <= hi) {
		return false
	}
	hk := bx.h.Comp(k)
	ends := [2]float64{lo, hi}
	seps := [2]float64{}
	for e, t := range ends {
		seps[e] = float64(s*q0.MulAdd(t, d).Comp(k)) - hk - r
	}
	first, last := 0, 1
	switch {
	case hi == lo:
		last = 0
	case !both && seps[1] < seps[0]:
		first = 1
	case !both:
		last = 0
	}
	nw := bx.axis(k).Scale(s)
	added := false
	for e := first; e <= last; e++ {
		if !(seps[e] < margin) {
			continue
		}
		// The point on the face under the clipped end (back inside the
		// face's rim if the widened clip left it outside), moved halfway
		// to the capsule.
		q := q0.MulAdd(ends[e], d)
		onFace := setComp(q, k, float64(s*hk))
		onFace = setComp(onFace, ku, clamp(q.Comp(ku), -bx.h.Comp(ku), bx.h.Comp(ku)))
		onFace = setComp(onFace, kv, clamp(q.Comp(kv), -bx.h.Comp(kv), bx.h.Comp(kv)))
		w := bx.rot.MulVec(onFace).Add(bx.pos)
		m.addPoint(midpoint(w, nw, seps[e]), seps[e], faceID(k, s)|uint32(e)<<3)
		added = true
	}
	if added {
		m.Normal = nw
	}
	return added
}

// clipInterval narrows [lo, hi] to the parameters t where p + t·d lies in
// [min, max]; the result is empty (lo > hi) when no t does.
func clipInterval(p, d, minV, maxV, lo, hi float64) (float64, float64) {
	if d == 0 {
		if p < minV || p > maxV {
			return 1, 0
		}
		return lo, hi
	}
	t0, t1 := (minV-p)/d, (maxV-p)/d
	if t0 > t1 {
		t0, t1 = t1, t0
	}
	return math.Max(lo, t0), math.Min(hi, t1)
}

// boxEdgeAlong returns the ends of the box edge that crosses the direction
// d and lies farthest along n: of the edges perpendicular to both d and n
// the most, the one on n's side.
func boxEdgeAlong(h, d, n vecmath.Vec3) (e0, e1 vecmath.Vec3) {
	// The edge axis is the box axis whose cross with d is most aligned
	// with n.
	best, axis := -1.0, 0
	for i := range 3 {
		c, _ := d.Cross(axisVec(i, 1)).Normalize()
		if v := math.Abs(c.Dot(n)); v > best {
			best, axis = v, i
		}
	}
	c := vecmath.Vec3{X: float64(signOf(n.X) * h.X), Y: float64(signOf(n.Y) * h.Y), Z: float64(signOf(n.Z) * h.Z)}
	e0 = setComp(c, axis, -h.Comp(axis))
	e1 = setComp(c, axis, h.Comp(axis))
	return e0, e1
}
