package collide

// Box–box contact.
//
// Approach. The separating axis test (SAT) runs over the 15 candidate axes
// of two boxes: the 3 face normals of A, the 3 of B and the 9 cross
// products of an edge direction of A with one of B. Every axis is unit, so
// the separation measured along it is a lower bound of the true distance
// and any axis separated by more than the margin ends the test at once.
// The axis of largest separation names the contact features:
//
//   - A face axis: its box holds the reference face, the other box's face
//     most anti-parallel to it is the incident face. The incident quad is
//     clipped against the four side planes of the reference face
//     (Sutherland–Hodgman), the points below the margin are kept and at
//     most four survive reduce (deepest first, then largest area). This is
//     the "one-shot" manifold of Box2D and Bullet's btBoxBoxDetector: a
//     resting box gets its four corners in a single step.
//   - An edge axis: one point, midway between the closest points of the
//     two support edges. If those closest points fall on an edge end the
//     edges do not really cross (the pair is a vertex–face contact seen
//     along a poor axis) and the best face axis is used instead.
//
// Stability. A face axis beats an edge axis unless the edge separation is
// larger by edgeTolerance, and B's face beats A's only by faceTolerance,
// so that a resting pair does not flip between equivalent axes from one
// step to the next as rounding noise changes the separations. Feature ids
// (layout below) name the reference face, the incident face and, for each
// clipped point, the two lines (incident edges or side planes) it lies on.
// Side planes are widened by clipSlop so that two equal boxes stacked
// exactly keep their four incident corners (ids 0-3) under tiny
// perturbations instead of trading them for clip points every other step.
//
// Rejected alternatives.
//   - GJK/EPA: general for any convex pair, but EPA gives one point per
//     step, so a manifold has to be accumulated over several steps
//     ("persistent" manifolds, as in Bullet's btPersistentManifold). A
//     box dropped on another then rocks for a few frames before its
//     manifold fills, points must be aged out by drift heuristics, and the
//     EPA normal of a resting face wobbles with rounding. For boxes the
//     SAT is exact, cheaper, and gives the full manifold at once.
//   - Persistent manifolds in general: they carry state from step to step,
//     which the world would have to snapshot, checksum and restore for
//     rollback. A one-shot manifold is a pure function of the two poses;
//     warm starting only needs the feature ids to match across steps.

import (
	"math"

	"github.com/netphys/netphys/vecmath"
)

const (
	// faceTolerance is how much larger (m) B's face separation must be
	// before it replaces A's as the reference face.
	faceTolerance = 0.0005
	// edgeTolerance is how much larger (m) an edge separation must be to
	// beat the best face; relEdgeTolerance adds a share of the depth, since
	// deep penetrations make every axis look alike.
	edgeTolerance    = 0.001
	relEdgeTolerance = 0.05
	// minEdgeAxis is the smallest |edgeA × edgeB| kept as an axis: nearly
	// parallel edges give a badly conditioned normal, and their faces are
	// tested anyway.
	minEdgeAxis = 1e-6
	// clipSlop (m) widens the reference face's side planes.
	clipSlop = 0.0005
)

// orientedBox is a box placed in the world.
type orientedBox struct {
	rot *vecmath.Mat3 // columns are the box axes in world coordinates
	pos vecmath.Vec3  // centre, m
	h   vecmath.Vec3  // half extents, m
}

func placeBox(s *Shape, p *Pose) orientedBox {
	return orientedBox{rot: &p.Mat, pos: p.Pos, h: s.halfExtents()}
}

func (b *orientedBox) axis(i int) vecmath.Vec3 {
	switch i {
	case 0:
		return b.rot.C0
	case 1:
		return b.rot.C1
	}
	return b.rot.C2
}

// extent returns the half width (m) of the box's projection on the unit
// axis n.
func (b *orientedBox) extent(n vecmath.Vec3) float64 {
	return float64(b.h.X*math.Abs(b.rot.C0.Dot(n))) + float64(b.h.Y*math.Abs(b.rot.C1.Dot(n))) +
		float64(b.h.Z*math.Abs(b.rot.C2.Dot(n)))
}

// satResult is the best axis of one family (faces of A, faces of B, edges).
type satResult struct {
	sep  float64      // separation along the axis, m
	i, j int          // face axis, or edge axes of A and B
	n    vecmath.Vec3 // the unit axis, world, of either sign
}

// satAxes is what the separating axis test finds: the best axis of each
// family.
type satAxes struct {
	faceA, faceB, edge satResult
}

func collideBoxes(a *Shape, pa *Pose, b *Shape, pb *Pose, margin float64, m *Manifold) {
	ba, bb := placeBox(a, pa), placeBox(b, pb)
	var axes satAxes
	if !separatingAxes(&ba, &bb, margin, &axes) {
		return
	}
	face, refIsB := &axes.faceA, false
	if axes.faceB.sep > axes.faceA.sep+faceTolerance {
		face, refIsB = &axes.faceB, true
	}
	tol := edgeTolerance + float64(relEdgeTolerance*math.Abs(face.sep))
	if axes.edge.sep > face.sep+tol && edgeContact(&ba, &bb, &axes.edge, margin, m) {
		return
	}
	if refIsB {
		faceContact(&bb, &ba, face, margin, true, m)
	} else {
		faceContact(&ba, &bb, face, margin, false, m)
	}
}

// separatingAxes runs the 15-axis test, writes the best face axis of A, of
// B and the best edge axis into out and reports true; it reports false as
// soon as one axis separates the boxes by more than margin (or the input
// holds NaN).
//
// It works in A's frame with r[i][j] = Aᵢ·Bⱼ, so that each projection is a
// few products of r (Gottschalk, Lin and Manocha, "OBBTree", 1996): for
// the edge axis L = Aᵢ×Bⱼ, L·Aₖ and L·Bₖ are entries of r, and
// |L| = √(r[i+1][j]² + r[i+2][j]²).
func separatingAxes(ba, bb *orientedBox, margin float64, out *satAxes) bool {
	d := bb.pos.Sub(ba.pos)
	ha := [3]float64{ba.h.X, ba.h.Y, ba.h.Z}
	hb := [3]float64{bb.h.X, bb.h.Y, bb.h.Z}
	var r, ar [3][3]float64 // r and |r|
	var t [3]float64        // d in A's frame
	for i := range 3 {
		ai := ba.axis(i)
		t[i] = d.Dot(ai)
		r[i] = [3]float64{ai.Dot(bb.rot.C0), ai.Dot(bb.rot.C1), ai.Dot(bb.rot.C2)}
		ar[i] = [3]float64{math.Abs(r[i][0]), math.Abs(r[i][1]), math.Abs(r[i][2])}
	}
	faceA, faceB, edge := &out.faceA, &out.faceB, &out.edge
	faceA.sep, faceA.i = math.Inf(-1), 0
	for i := range 3 {
		rb := float64(hb[0]*ar[i][0]) + float64(hb[1]*ar[i][1]) + float64(hb[2]*ar[i][2])
		s := math.Abs(t[i]) - ha[i] - rb
		if !(s <= margin) {
			return false
		}
		if s > faceA.sep {
			faceA.sep, faceA.i = s, i
		}
	}
	faceB.sep, faceB.i = math.Inf(-1), 0
	for j := range 3 {
		tb := float64(t[0]*r[0][j]) + float64(t[1]*r[1][j]) + float64(t[2]*r[2][j])
		ra := float64(ha[0]*ar[0][j]) + float64(ha[1]*ar[1][j]) + float64(ha[2]*ar[2][j])
		s := math.Abs(tb) - hb[j] - ra
		if !(s <= margin) {
			return false
		}
		if s > faceB.sep {
			faceB.sep, faceB.i = s, j
		}
	}
	// The edge axis Aᵢ×Bⱼ reads B's other two axes, j+1 and j+2 (mod 3):
	// hb1[j] = hb[j+1], hb2[j] = hb[j+2], and the same shift of row i of
	// |r| in ari1 and ari2, so that the inner loop indexes by j alone.
	hb1, hb2 := [3]float64{hb[1], hb[2], hb[0]}, [3]float64{hb[2], hb[0], hb[1]}
	edge.sep, edge.i, edge.j = math.Inf(-1), 0, 0
	for i := range 3 {
		i1, i2 := otherAxes(i)
		r1, r2, ar1, ar2 := &r[i1], &r[i2], &ar[i1], &ar[i2]
		t1, t2, ha1, ha2 := t[i1], t[i2], ha[i1], ha[i2]
		ari := &ar[i]
		ari1, ari2 := [3]float64{ari[1], ari[2], ari[0]}, [3]float64{ari[2], ari[0], ari[1]}
		for j := range 3 {
			l := math.Sqrt(float64(r1[j]*r1[j]) + float64(r2[j]*r2[j]))
			if l < minEdgeAxis {
				continue
			}
			proj := float64(t2*r1[j]) - float64(t1*r2[j])
			ra := float64(ha1*ar2[j]) + float64(ha2*ar1[j])
			rb := float64(hb1[j]*ari2[j]) + float64(hb2[j]*ari1[j])
			s := (math.Abs(proj) - ra - rb) / l
			if !(s <= margin) {
				return false
			}
			if s > edge.sep {
				edge.sep, edge.i, edge.j = s, i, j
			}
		}
	}
	faceA.n, faceB.n = ba.axis(faceA.i), bb.axis(faceB.i)
	edge.n, _ = ba.axis(edge.i).Cross(bb.axis(edge.j)).Normalize()
	return true
}

// edgeContact writes the single point of an edge–edge contact and reports
// whether the two support edges really cross.
func edgeContact(ba, bb *orientedBox, e *satResult, margin float64, m *Manifold) bool {
	n := e.n
	if bb.pos.Sub(ba.pos).Dot(n) < 0 {
		n = n.Neg()
	}
	pa0, pa1, ida := supportEdge(ba, e.i, n)
	pb0, pb1, idb := supportEdge(bb, e.j, n.Neg())
	ca, cb, s, t := closestSegments(pa0, pa1, pb0, pb1)
	if !(s > 0 && s < 1 && t > 0 && t < 1) {
		return false
	}
	sep := cb.Sub(ca).Dot(n)
	if sep < margin {
		m.Normal = n
		m.addPoint(midpoint(ca, n, sep), sep, edgeFlag|ida|idb<<4)
	}
	return true
}

// supportEdge returns the ends of the edge of b that is parallel to axis i
// and farthest along n, and its 4-bit id: i in bits 2-3, then one bit per
// other axis telling whether the edge lies on its positive side.
func supportEdge(b *orientedBox, i int, n vecmath.Vec3) (p0, p1 vecmath.Vec3, id uint32) {
	c := b.pos
	id = uint32(i) << 2
	i1, i2 := otherAxes(i)
	for k, bit := range [2]int{i1, i2} {
		ax := b.axis(bit)
		s := signOf(ax.Dot(n))
		if s > 0 {
			id |= 1 << k
		}
		c = c.MulAdd(float64(s*b.h.Comp(bit)), ax)
	}
	half := b.axis(i).Scale(b.h.Comp(i))
	return c.Sub(half), c.Add(half), id
}

// Feature id layout of box–box points (bit 0 is the least significant):
//
//	face contact:  | 13: 0 | 12: ref is B | 9-11: line 2 | 6-8: line 1 | 3-5: incident face | 0-2: reference face |
//	edge contact:  | 13: 1 | 4-7: edge of B | 0-3: edge of A |
//
// A face is axis*2 + 1 for the positive side. A clipped point lies on two
// lines: incident edges 0-3 or side planes 4-7 (line 1 < line 2); an
// incident corner that survives clipping lies on two incident edges.
const edgeFlag = 1 << 13

func faceID(axis int, sign float64) uint32 {
	id := uint32(axis) << 1
	if sign > 0 {
		id |= 1
	}
	return id
}
