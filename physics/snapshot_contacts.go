package physics

import (
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// A Snapshot holds the contacts in two slabs instead of as contact values
// (about 580 bytes each, most of it the four point slots and their pair
// cache anchors, unused in pairs that hold fewer points or none, as 4,050
// of scene C's 9,450 do): one contactHead per contact, and one
// contactPoint per manifold point in use, in contact order. The copy is
// lossless, field for field, so that Restore puts back the very bits the
// world held and Restore + Step stays bit-identical to the original run.
// Point slots at or beyond a manifold's Count are neither saved nor
// restored: nothing reads them before the narrowphase writes them.

// contactHead is a contact without its per-point arrays.
type contactHead struct {
	key         uint64
	genA, genB  uint32
	friction    float64
	restitution float64
	normal      vecmath.Vec3 // m.Normal
	patch       patchImpulse
	count       int32 // m.Count
	valid       bool  // cache.valid
	relPos      vecmath.Vec3
	relRot      vecmath.Quat
	margin      float64
	cacheNormal vecmath.Vec3
}

// contactPoint is one manifold point in use: the point, its normal
// impulse and its pair cache anchors.
type contactPoint struct {
	p                collide.ContactPoint
	normalImp        float64
	anchorA, anchorB vecmath.Vec3
}

// contactSlabs is one list of contacts, compacted.
type contactSlabs struct {
	heads  []contactHead
	points []contactPoint
}

// save compacts src into s, reusing s's buffers.
func (s *contactSlabs) save(src []contact) {
	heads := reserveSlice(s.heads, len(src))[:len(src)]
	points := reserveSlice(s.points, collide.MaxManifoldPoints*len(src))
	points = points[:cap(points)]
	n := 0
	for i := range src {
		c, h := &src[i], &heads[i]
		h.key, h.genA, h.genB = c.key, c.genA, c.genB
		h.friction, h.restitution = c.friction, c.restitution
		h.normal, h.count, h.patch = c.m.Normal, int32(c.m.Count), c.patch
		pc := &c.cache
		h.valid, h.relPos, h.relRot, h.margin, h.cacheNormal = pc.valid, pc.relPos, pc.relRot, pc.margin, pc.normal
		for k := range c.m.Count {
			p := &points[n+k]
			p.p, p.normalImp = c.m.Points[k], c.normalImp[k]
			p.anchorA, p.anchorB = pc.anchorA[k], pc.anchorB[k]
		}
		n += c.m.Count
	}
	s.heads, s.points = heads, points[:n]
}

// restore expands s into dst, reusing dst's buffer, and returns it.
func (s *contactSlabs) restore(dst []contact) []contact {
	dst = reserveSlice(dst, len(s.heads))[:len(s.heads)]
	points := s.points
	for i := range s.heads {
		h, c := &s.heads[i], &dst[i]
		c.key, c.genA, c.genB = h.key, h.genA, h.genB
		c.a, c.b = pairSlots(h.key)
		c.friction, c.restitution = h.friction, h.restitution
		c.m.Normal, c.m.Count, c.patch = h.normal, int(h.count), h.patch
		pc := &c.cache
		pc.valid, pc.relPos, pc.relRot, pc.margin, pc.normal = h.valid, h.relPos, h.relRot, h.margin, h.cacheNormal
		for k := range int(h.count) {
			p := &points[k]
			c.m.Points[k], c.normalImp[k] = p.p, p.normalImp
			pc.anchorA[k], pc.anchorB[k] = p.anchorA, p.anchorB
		}
		points = points[h.count:]
	}
	return dst
}
