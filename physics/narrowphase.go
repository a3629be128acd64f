package physics

import (
	"math"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// loadPoses fills scratch.pose with every live body's pose and rotation
// matrix, which the narrowphase, the pair cache and loadBodies would
// otherwise compute once per pair.
func (w *World) loadPoses() {
	s := &w.scratch
	s.pose = resize(s.pose, len(w.info))
	for i := range w.info {
		if w.info[i].live {
			p := &s.pose[i]
			p.Pos, p.Rot, p.Mat = w.pos[i], w.rot[i], vecmath.QuatToMat3(w.rot[i])
		}
	}
}

// matchDistance is how close, m, a new point's end on body a must be to
// that of a point of the last full manifold (both in a's frame) to inherit
// its impulse when no feature id matches.
const matchDistance = 0.02

// collide computes this step's manifold of the pair of c into t and
// updates c: from the pair cache if b barely moved relative to a, else
// with the narrowphase, after which c's cache is refilled and the impulses
// of the points it still has carry over. A point is the same as last
// step's if its feature id is, or failing that if its end on a lies within
// matchDistance of an unclaimed old point's: two boxes face to face within
// a hair of alignment switch clip features (a corner becomes an edge
// crossing) as they rock, and a stack that lost its warm start at every
// switch would sag and rock. c.count is 0 afterwards if the pair has no
// points: a new pair (count 0 on entry) then stays no contact, and a
// contact dies. Nothing of t is read: every field the solver reads is
// written.
func (w *World) collide(c *contact, t *touch, r *relPose) {
	a, b := pairSlots(c.key)
	if c.count > 0 && c.holds(r) {
		w.rebuild(c, t)
		return
	}
	pa, pb := &w.scratch.pose[a], &w.scratch.pose[b]
	collide.CollidePoses(&w.info[a].shape, pa, &w.info[b].shape, pb, r.margin, &t.m)
	if t.m.Count == 0 {
		c.count = 0
		return
	}
	w.materials(c, t)
	prevCount, prevIDs, prevAnchor, prevImp := int(c.count), c.ids, c.anchorA, c.imp
	c.fill(&t.m, &pa.Mat, &pb.Mat, pa.Pos, pb.Pos, r)
	if prevCount == 0 {
		c.patch = [3]float32{}
	}
	var claimed [collide.MaxManifoldPoints]bool
	var matched [collide.MaxManifoldPoints]bool
	for k := range int(c.count) {
		c.imp[k] = 0
		for p := range prevCount {
			if !claimed[p] && prevIDs[p] == c.ids[k] {
				c.imp[k], claimed[p], matched[k] = prevImp[p], true, true
				break
			}
		}
	}
	for k := range int(c.count) {
		if matched[k] {
			continue
		}
		best, bestD := -1, float64(matchDistance*matchDistance)
		pk := c.anchorA[k].vec()
		for p := range prevCount {
			if d := pk.Sub(prevAnchor[p].vec()).LengthSq(); !claimed[p] && d < bestD {
				best, bestD = p, d
			}
		}
		if best >= 0 {
			c.imp[k], claimed[best] = prevImp[best], true
		}
	}
}

// materials writes the pair's friction and restitution into t.
func (w *World) materials(c *contact, t *touch) {
	a, b := pairSlots(c.key)
	ia, ib := &w.info[a], &w.info[b]
	t.friction = math.Sqrt(float64(ia.friction * ib.friction))
	t.restitution = max(ia.restitution, ib.restitution)
}

// fill stores the fresh manifold m in c: its ids and count, and the pair
// cache. ra and rb are the bodies' rotation matrices, pa and pb their
// positions.
func (c *contact) fill(m *collide.Manifold, ra, rb *vecmath.Mat3, pa, pb vecmath.Vec3, r *relPose) {
	c.count = uint8(m.Count)
	c.set(r)
	n := m.Normal
	c.normal.set(ra.MulTVec(n))
	for k := range m.Count {
		p := &m.Points[k]
		half := float64(0.5 * p.Separation)
		c.ids[k] = uint16(p.ID)
		c.anchorA[k].set(ra.MulTVec(p.Point.MulAdd(-half, n).Sub(pa)))
		c.anchorB[k].set(rb.MulTVec(p.Point.MulAdd(half, n).Sub(pb)))
	}
}

// rebuild writes into t c's manifold moved with the bodies: the normal
// turns with a, each point's ends move with their bodies, the separation is
// their distance along the normal and the point their midpoint. Ids, count
// and impulses stay.
func (w *World) rebuild(c *contact, t *touch) {
	a, b := pairSlots(c.key)
	w.materials(c, t)
	ra, rb := &w.scratch.pose[a].Mat, &w.scratch.pose[b].Mat
	pa, pb := w.pos[a], w.pos[b]
	n := ra.MulVec(c.normal.vec())
	t.m.Normal = n
	t.m.Count = int(c.count)
	for k := range int(c.count) {
		endA := ra.MulVec(c.anchorA[k].vec()).Add(pa)
		endB := rb.MulVec(c.anchorB[k].vec()).Add(pb)
		sep := endB.Sub(endA).Dot(n)
		p := &t.m.Points[k] // field by field: a composite literal is built aside and copied
		p.Point, p.Separation, p.ID = endA.MulAdd(float64(0.5*sep), n), sep, uint32(c.ids[k])
	}
}

// relPose is b's pose in a's frame and the contact margin of a pair this
// step: what its pose cache is checked against.
type relPose struct {
	pos    vecmath.Vec3
	rot    vecmath.Quat
	margin float64 // the configured margin widened by both bodies' reach, m
}

// load sets r to the pose of the pair a, b this step; loadPoses must
// have run. It writes r in place: a returned value is assembled on the
// stack and copied, some 40 instructions per candidate pair.
func (r *relPose) load(w *World, a, b int32) {
	r.pos = w.scratch.pose[a].Mat.MulTVec(w.pos[b].Sub(w.pos[a]))
	r.rot = w.rot[a].Conj().Mul(w.rot[b])
	r.margin = w.cfg.ContactMargin + w.broad.reach[a] + w.broad.reach[b]
}

// holds reports whether the cached result still stands for the pair at r:
// the margin has not grown and b has moved less than the tolerances.
func (p *poseCache) holds(r *relPose) bool {
	if !(r.margin <= float64(p.margin)) || r.pos.Sub(p.relPos.vec()).LengthSq() >= pairCacheDistanceSq {
		return false
	}
	d := r.rot.Dot(p.relRot.quat())
	return d > pairCacheCosHalf || -d > pairCacheCosHalf
}

// set caches r.
func (p *poseCache) set(r *relPose) {
	p.margin = roundUp32(r.margin)
	p.relPos.set(r.pos)
	p.relRot.set(r.rot)
}

// roundUp32 returns the least float32 at or above x, so that a margin
// compared with its cached copy is never refused by the rounding alone.
func roundUp32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// vec3f and quatf are the float32 vectors of the pair cache. Their
// conversions take pointers so that they load the fields in place instead
// of copying the array first.
type (
	vec3f [3]float32
	quatf [4]float32
)

func (v *vec3f) set(u vecmath.Vec3) { *v = vec3f{float32(u.X), float32(u.Y), float32(u.Z)} }

func (v *vec3f) vec() vecmath.Vec3 {
	return vecmath.Vec3{X: float64(v[0]), Y: float64(v[1]), Z: float64(v[2])}
}

func (q *quatf) set(r vecmath.Quat) {
	*q = quatf{float32(r.X), float32(r.Y), float32(r.Z), float32(r.W)}
}

func (q *quatf) quat() vecmath.Quat {
	return vecmath.Quat{X: float64(q[0]), Y: float64(q[1]), Z: float64(q[2]), W: float64(q[3])}
}
