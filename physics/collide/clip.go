package collide

import (
	"math"

	"github.com/netphys/netphys/vecmath"
)

// clipVertex is a vertex of the incident polygon during clipping, in the
// reference box's coordinates, with the two lines it lies on (see the id
// layout in boxbox.go).
type clipVertex struct {
	p      vecmath.Vec3
	l0, l1 uint8
}

type clipPolygon struct {
	v [maxCandidates]clipVertex
	n int
}

// faceContact clips the incident face of inc against the side planes of the
// reference face of ref (axis f.i, facing inc) and writes the points below
// the margin. flip is true when ref is shape B, so the manifold normal is
// the reference normal negated.
func faceContact(ref, inc *orientedBox, f *satResult, margin float64, flip bool, m *Manifold) {
	k := f.i
	sRef := signOf(inc.pos.Sub(ref.pos).Dot(f.n))
	nRef := f.n.Scale(sRef) // outward normal of the reference face

	// Incident face: the face of inc most anti-parallel to nRef.
	j, best := 0, -1.0
	for c := range 3 {
		if d := math.Abs(inc.axis(c).Dot(nRef)); d > best {
			j, best = c, d
		}
	}
	sInc := -signOf(inc.axis(j).Dot(nRef))
	ju, jv := otherAxes(j)
	centre := inc.pos.MulAdd(float64(sInc*inc.h.Comp(j)), inc.axis(j))
	eu := inc.axis(ju).Scale(inc.h.Comp(ju))
	ev := inc.axis(jv).Scale(inc.h.Comp(jv))

	// Corners in cyclic order; corner c lies on incident edges c-1 and c.
	var poly clipPolygon
	corners := [4]vecmath.Vec3{centre.Add(eu).Add(ev), centre.Sub(eu).Add(ev), centre.Sub(eu).Sub(ev), centre.Add(eu).Sub(ev)}
	for c, w := range corners {
		poly.v[c] = clipVertex{p: ref.rot.MulTVec(w.Sub(ref.pos)), l0: uint8((c + 3) % 4), l1: uint8(c)}
	}
	poly.n = 4

	ku, kv := otherAxes(k)
	limU, limV := ref.h.Comp(ku)+clipSlop, ref.h.Comp(kv)+clipSlop
	// Planes that leave every vertex inside are skipped: a box resting
	// inside a larger face, the common case, needs no clip at all. A plane
	// that leaves every vertex outside ends the test: the incident face
	// lies beside the reference face, as for the diagonal neighbours in a
	// stack, three pairs in four of a fresh one. Both are read off one
	// pass over the corners until a plane cuts; from there on the polygon
	// is clipped plane by plane.
	planes := [4]sidePlane{{ku, 1, limU}, {ku, -1, limU}, {kv, 1, limV}, {kv, -1, limV}}
	someOut, allOut := poly.sides(ku, kv, limU, limV)
	first := 0 // the first plane with a corner outside
	for first < len(planes) && someOut&(1<<first) == 0 {
		first++
	}
	if first < len(planes) && allOut&(1<<first) != 0 {
		return
	}
	var tmp clipPolygon
	cur, next := &poly, &tmp
	for plane := first; plane < len(planes); plane++ {
		c := &planes[plane]
		if clipAgainst(cur, next, c.axis, c.sign, c.limit, uint8(4+plane)) {
			if next.n == 0 {
				return
			}
			cur, next = next, cur
		}
	}

	normal := nRef
	var idBase uint32 = faceID(k, sRef) | faceID(j, sInc)<<3
	if flip {
		normal = nRef.Neg()
		idBase |= 1 << 12
	}
	var cands [maxCandidates]candidate
	count := 0
	hk := ref.h.Comp(k)
	for _, v := range cur.v[:cur.n] {
		sep := float64(sRef*v.p.Comp(k)) - hk
		if !(sep < margin) {
			continue
		}
		// Widened clipping may leave a point up to clipSlop outside the
		// reference face; put it back on the face's rim.
		p := setComp(v.p, ku, clamp(v.p.Comp(ku), -ref.h.Comp(ku), ref.h.Comp(ku)))
		p = setComp(p, kv, clamp(p.Comp(kv), -ref.h.Comp(kv), ref.h.Comp(kv)))
		w := ref.rot.MulVec(p).Add(ref.pos)
		lo, hi := v.l0, v.l1
		if lo > hi {
			lo, hi = hi, lo
		}
		cands[count] = candidate{p: w.MulAdd(-0.5*sep, nRef), sep: sep, id: idBase | uint32(lo)<<6 | uint32(hi)<<9}
		count++
	}
	if count == 0 {
		return
	}
	m.Normal = normal
	reduce(cands[:count], normal, m)
}

// sidePlane is the side plane sign·p[axis] <= limit of a reference face.
type sidePlane struct {
	axis  int
	sign  float64
	limit float64
}

// sides reports which of the side planes +ku, -ku, +kv, -kv (limits limU
// and limV; bit k for plane k) have a vertex of p outside, and which have
// every vertex outside, by clipAgainst's arithmetic.
func (p *clipPolygon) sides(ku, kv int, limU, limV float64) (someOut, allOut uint8) {
	allOut = 0b1111
	for i := range p.n {
		u, v := p.v[i].p.Comp(ku), p.v[i].p.Comp(kv)
		var out uint8
		if !(u-limU <= 0) {
			out |= 1
		}
		if !(-u-limU <= 0) {
			out |= 2
		}
		if !(v-limV <= 0) {
			out |= 4
		}
		if !(-v-limV <= 0) {
			out |= 8
		}
		someOut |= out
		allOut &= out
	}
	return someOut, allOut
}

// clipAgainst clips polygon in by the plane sign·p[axis] <= limit into out
// (Sutherland–Hodgman) and reports whether it wrote out; it does not when
// no vertex lies outside, and in stands as it is. A new vertex lies on the
// plane (label) and on the line of the edge it cut. The output never
// exceeds its capacity, even for NaN input.
func clipAgainst(in, out *clipPolygon, axis int, sign, limit float64, label uint8) bool {
	var dist [maxCandidates]float64
	cuts := false
	for i := range in.n {
		dist[i] = float64(sign*in.v[i].p.Comp(axis)) - limit
		cuts = cuts || !(dist[i] <= 0)
	}
	if !cuts {
		return false
	}
	out.n = 0
	for i := range in.n {
		j := i + 1 // the next vertex, cyclically, without a division
		if j == in.n {
			j = 0
		}
		a, b := in.v[i], in.v[j]
		da, db := dist[i], dist[j]
		if da <= 0 && out.n < maxCandidates {
			out.v[out.n] = a
			out.n++
		}
		if (da <= 0) != (db <= 0) && out.n < maxCandidates {
			t := da / (da - db)
			out.v[out.n] = clipVertex{p: a.p.Lerp(b.p, t), l0: sharedLine(a, b), l1: label}
			out.n++
		}
	}
	return true
}

// sharedLine returns the line that consecutive vertices a and b both lie on.
func sharedLine(a, b clipVertex) uint8 {
	if a.l0 == b.l0 || a.l0 == b.l1 {
		return a.l0
	}
	return a.l1
}
