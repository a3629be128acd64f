package physics

import (
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// A Snapshot holds the contacts in two slabs instead of as contact values
// (576 bytes each, two thirds of it the four point slots with their
// impulses and pair cache anchors, which 4,050 of scene C's 9,450 pairs
// leave unused): one contactHead per contact, and one contactPoints per
// contact that has manifold points, in contact order. The copy is lossless,
// field for field, so that Restore puts back the very bits the world held
// and Restore + Step stays bit-identical to the original run. A contact
// without points gets its point slots neither saved nor restored: nothing
// reads them before the narrowphase writes them.

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

// contactPoints are the point slots of a contact with points: the
// manifold's, their normal impulses and their pair cache anchors, copied
// whole (slots at or beyond Count included) since fixed-size arrays copy
// faster than a loop over the points in use.
type contactPoints struct {
	points           [collide.MaxManifoldPoints]collide.ContactPoint
	normalImp        [collide.MaxManifoldPoints]float64
	anchorA, anchorB [collide.MaxManifoldPoints]vecmath.Vec3
}

// contactSlabs is one list of contacts, compacted.
type contactSlabs struct {
	heads  []contactHead
	points []contactPoints // one per head with count > 0, in order
}

// save compacts src into s, reusing s's buffers.
func (s *contactSlabs) save(src []contact) {
	heads := reserveSlice(s.heads, len(src))[:len(src)]
	points := reserveSlice(s.points, len(src))
	points = points[:cap(points)]
	n := 0
	for i := range src {
		c, h := &src[i], &heads[i]
		h.key, h.genA, h.genB = c.key, c.genA, c.genB
		h.friction, h.restitution = c.friction, c.restitution
		h.normal, h.count, h.patch = c.m.Normal, int32(c.m.Count), c.patch
		pc := &c.cache
		h.valid, h.relPos, h.relRot, h.margin, h.cacheNormal = pc.valid, pc.relPos, pc.relRot, pc.margin, pc.normal
		if c.m.Count > 0 {
			p := &points[n]
			p.points, p.normalImp, p.anchorA, p.anchorB = c.m.Points, c.normalImp, pc.anchorA, pc.anchorB
			n++
		}
	}
	s.heads, s.points = heads, points[:n]
}

// restore expands s into dst, reusing dst's buffer, and returns it.
func (s *contactSlabs) restore(dst []contact) []contact {
	dst = reserveSlice(dst, len(s.heads))[:len(s.heads)]
	n := 0
	for i := range s.heads {
		h, c := &s.heads[i], &dst[i]
		c.key, c.genA, c.genB = h.key, h.genA, h.genB
		c.a, c.b = pairSlots(h.key)
		c.friction, c.restitution = h.friction, h.restitution
		c.m.Normal, c.m.Count, c.patch = h.normal, int(h.count), h.patch
		pc := &c.cache
		pc.valid, pc.relPos, pc.relRot, pc.margin, pc.normal = h.valid, h.relPos, h.relRot, h.margin, h.cacheNormal
		if h.count > 0 {
			p := &s.points[n]
			c.m.Points, c.normalImp, pc.anchorA, pc.anchorB = p.points, p.normalImp, p.anchorA, p.anchorB
			n++
		}
	}
	return dst
}
