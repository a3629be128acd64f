package collide

import "github.com/netphys/netphys/vecmath"

// collideBoxPlane is the contact of a box (A) with a plane (B): the (at
// most four) deepest vertices below the margin. A vertex's feature id is
// its index (bit 0: +X, bit 1: +Y, bit 2: +Z), which stays put while the
// box rests.
func collideBoxPlane(a *Shape, pa *Pose, xp vecmath.Transform, margin float64, m *Manifold) {
	n := xp.Rot.Rotate(up)
	rot, xa := &pa.Mat, &pa.Transform
	h := a.halfExtents()
	// Heights of the box centre and of each half axis above the plane.
	c := xa.Pos.Sub(xp.Pos).Dot(n)
	ex := float64(rot.C0.Dot(n) * h.X)
	ey := float64(rot.C1.Dot(n) * h.Y)
	ez := float64(rot.C2.Dot(n) * h.Z)
	var cands [8]candidate
	count := 0
	for i := range 8 {
		sx, sy, sz := vertexSigns(i)
		sep := c + float64(sx*ex) + float64(sy*ey) + float64(sz*ez)
		if !(sep < margin) {
			continue
		}
		v := rot.MulVec(vecmath.Vec3{X: float64(sx * h.X), Y: float64(sy * h.Y), Z: float64(sz * h.Z)}).Add(xa.Pos)
		cands[count] = candidate{p: v.MulAdd(-0.5*sep, n), sep: sep, id: uint32(i)}
		count++
	}
	if count == 0 {
		return
	}
	m.Normal = n.Neg()
	v := cands[:count]
	if count > MaxManifoldPoints {
		v = deepestVertices(v)
	}
	for _, p := range v {
		m.addPoint(p.p, p.sep, p.id)
	}
}

// deepestVertices returns the (at most four) deepest of more than four
// qualifying vertices, in vertex order. That many only qualify for a thin
// plate or a deep penetration, and the deepest are then the face that
// supports the box. Ties go to the lower vertex index, and vertices that
// coincide (a box of zero thickness) count once.
func deepestVertices(v []candidate) []candidate {
	var order [8]int // indices into v, deepest first
	for i := range v {
		order[i] = i
		for k := i; k > 0 && v[order[k]].sep < v[order[k-1]].sep; k-- {
			order[k], order[k-1] = order[k-1], order[k]
		}
	}
	var chosen [8]bool
	n := 0
	for _, i := range order[:len(v)] {
		if n == MaxManifoldPoints {
			break
		}
		dup := false
		for k := range v {
			dup = dup || chosen[k] && !(v[i].p.Sub(v[k].p).LengthSq() > float64(reduceTolerance*reduceTolerance))
		}
		if !dup {
			chosen[i] = true
			n++
		}
	}
	out := v[:0]
	for i := range v {
		if chosen[i] {
			out = append(out, v[i])
		}
	}
	return out
}

// vertexSigns returns the signs of box vertex i along X, Y and Z.
func vertexSigns(i int) (sx, sy, sz float64) {
	sx, sy, sz = -1, -1, -1
	if i&1 != 0 {
		sx = 1
	}
	if i&2 != 0 {
		sy = 1
	}
	if i&4 != 0 {
		sz = 1
	}
	return sx, sy, sz
}
