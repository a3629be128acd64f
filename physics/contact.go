package physics

import (
	"math"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// contact is the persistent state of one pair of bodies whose bounds
// overlap: the manifold of the last step and the impulses its points
// accumulated, which warm start the solver in the next step.
type contact struct {
	key         uint64 // pairKey(a, b), a < b: the sort order
	a, b        int32
	genA, genB  uint32 // the bodies' generations: a reused slot is a new pair
	friction    float64
	restitution float64
	m           collide.Manifold // normal from a to b
	// The impulses the solver accumulated, N·s: along the normal at each
	// manifold point, and the friction of the whole patch (solver.go).
	normalImp [collide.MaxManifoldPoints]float64
	patch     patchImpulse
	cache     pairCache
}

// pairCache is Jolt's body pair cache: the pose of b in a's frame when the
// manifold was last computed in full, the margin it was computed with, and
// the manifold anchored on the bodies: the normal in a's frame, and each
// point's ends on the surfaces of a and of b in their own frames. While b
// stays within pairCacheDistance and pairCacheAngle of that relative pose,
// collide rebuilds the manifold from the anchors (the points move with the
// bodies, the separations follow, the feature ids and so the warm start are
// kept) instead of running the narrowphase: a resting stack, or the
// diagonal neighbours of a stack that clip to nothing, then cost a few
// rotations per pair instead of a 15-axis separating test and a clip.
type pairCache struct {
	valid            bool
	relPos           vecmath.Vec3 // b's origin in a's frame, m
	relRot           vecmath.Quat // a's rotation conjugated times b's
	margin           float64      // the margin of the full computation, m
	normal           vecmath.Vec3 // in a's frame
	anchorA, anchorB [collide.MaxManifoldPoints]vecmath.Vec3
}

// The pair cache's tolerances: how far, m, and by how much, as the cosine
// of half the angle (0.5°), b may move relative to a before the manifold is
// computed afresh. Jolt uses 1 mm and 2°; half a degree keeps a box's
// corner within 4.4 mm of where a fresh manifold would put it.
const (
	pairCacheDistanceSq = 0.0005 * 0.0005
	pairCacheCosHalf    = 0.99999048221581858 // cos(0.25°)
)

// patchImpulse is the friction of a manifold: linear impulses (N·s) along
// the two tangents of vecmath.Perpendicular(normal) at the centre of the
// points, and the twisting impulse about the normal (N·m·s).
type patchImpulse struct {
	t1, t2, twist float64
}

// Contacts live in two lists, each sorted by key. active holds the
// contacts with at least one awake body: the narrowphase and the solver
// run over it every step. resting holds those whose bodies all sleep (or
// are static): their manifolds and impulses stay untouched, at no cost per
// step, until one of the bodies wakes. Contacts move between the lists only
// when islands fall asleep or wake.

// updateContacts runs the narrowphase on every candidate pair, merging the
// sorted pair list with the sorted active contacts of the last step:
//
//   - a pair in both keeps its contact, whose points are matched by feature
//     id, or else by position, so that their impulses carry over (warm
//     starting, see collide below);
//   - a new pair starts a contact with zero impulses;
//   - a contact whose pair is gone moves to the resting list if neither
//     body is awake (an island just fell asleep), and is dropped otherwise
//     (the bodies separated).
//
// A sleeping body that an awake dynamic (or moving kinematic) body touches
// is woken with its island after the merge, and the resting contacts of
// the woken bodies rejoin the active list with their manifolds as they were.
func (w *World) updateContacts() {
	if w.woken {
		w.activateWoken()
	}
	w.loadRotations()
	if w.samePairs() {
		w.updateContactsInPlace()
		return
	}
	old, pairs := w.contacts, w.broad.pairs
	next := w.scratch.contacts[:0]
	toRest := w.scratch.moved[:0]
	wake := w.scratch.wake[:0]
	i, j := 0, 0
	for i < len(old) || j < len(pairs) {
		switch {
		case j < len(pairs) && (i >= len(old) || pairs[j] < old[i].key):
			next = append(next, w.newContact(pairs[j]))
			j++
		case j >= len(pairs) || old[i].key < pairs[j]:
			if w.resting(&old[i]) {
				toRest = append(toRest, old[i])
			}
			i++
			continue
		default:
			next = append(next, old[i])
			if c := &old[i]; c.genA != w.info[c.a].gen || c.genB != w.info[c.b].gen {
				next[len(next)-1] = w.newContact(pairs[j])
			}
			i++
			j++
		}
		c := &next[len(next)-1]
		w.collide(c)
		if c.m.Count > 0 {
			if w.wakes(c.b, c.a) {
				wake = append(wake, c.a)
			} else if w.wakes(c.a, c.b) {
				wake = append(wake, c.b)
			}
		}
	}
	w.scratch.contacts, w.contacts = old, next
	if len(toRest) > 0 {
		w.scratch.contacts = mergeContacts(w.scratch.contacts[:0], w.restingContacts, toRest)
		w.restingContacts, w.scratch.contacts = w.scratch.contacts, w.restingContacts
	}
	w.scratch.moved = toRest
	for _, s := range wake {
		w.wakeIsland(s)
	}
	w.scratch.wake = wake
	if w.woken {
		w.activateWoken()
	}
}

// loadRotations fills scratch.rot with every live body's rotation matrix,
// which the pair cache (and loadBodies) would otherwise compute once per
// pair.
func (w *World) loadRotations() {
	s := &w.scratch
	s.rot = reserveSlice(s.rot, len(w.info))[:len(w.info)]
	for i := range w.info {
		if w.info[i].live {
			s.rot[i] = vecmath.QuatToMat3(w.rot[i])
		}
	}
}

// samePairs reports whether the candidate pairs are exactly the active
// contacts' pairs, as in most steps of a settled or slowly moving scene.
func (w *World) samePairs() bool {
	if len(w.contacts) != len(w.broad.pairs) {
		return false
	}
	for i, k := range w.broad.pairs {
		if c := &w.contacts[i]; c.key != k || c.genA != w.info[c.a].gen || c.genB != w.info[c.b].gen {
			return false
		}
	}
	return true
}

// updateContactsInPlace is updateContacts when the pairs have not
// changed: no contact is created, dropped or moved, so the narrowphase
// runs on the active list where it lies instead of on a copy (half a
// kilobyte per contact, 5 MB per step in scene C).
func (w *World) updateContactsInPlace() {
	wake := w.scratch.wake[:0]
	for i := range w.contacts {
		c := &w.contacts[i]
		w.collide(c)
		if c.m.Count > 0 {
			if w.wakes(c.b, c.a) {
				wake = append(wake, c.a)
			} else if w.wakes(c.a, c.b) {
				wake = append(wake, c.b)
			}
		}
	}
	for _, s := range wake {
		w.wakeIsland(s)
	}
	w.scratch.wake = wake
	if w.woken {
		w.activateWoken()
	}
}

// resting reports whether a contact is a resting one: both bodies live,
// the same as when it was made, and neither awake.
func (w *World) resting(c *contact) bool {
	ia, ib := &w.info[c.a], &w.info[c.b]
	return ia.live && ib.live && ia.gen == c.genA && ib.gen == c.genB && ia.asleep && ib.asleep
}

// activateWoken moves the resting contacts that now have an awake body to
// the active list.
func (w *World) activateWoken() {
	w.woken = false
	keep := w.restingContacts[:0]
	moved := w.scratch.moved[:0]
	for k := range w.restingContacts {
		c := &w.restingContacts[k]
		if w.resting(c) {
			keep = append(keep, *c)
		} else if w.info[c.a].live && w.info[c.b].live {
			moved = append(moved, *c)
		}
	}
	w.restingContacts = keep
	w.scratch.moved = moved
	if len(moved) == 0 {
		return
	}
	w.scratch.contacts = mergeContacts(w.scratch.contacts[:0], w.contacts, moved)
	w.contacts, w.scratch.contacts = w.scratch.contacts, w.contacts
}

// restActive moves the active contacts whose bodies all sleep now to the
// resting list; called when islands fall asleep.
func (w *World) restActive() {
	keep := w.contacts[:0]
	moved := w.scratch.moved[:0]
	for k := range w.contacts {
		c := &w.contacts[k]
		if w.resting(c) {
			moved = append(moved, *c)
		} else {
			keep = append(keep, *c)
		}
	}
	w.contacts = keep
	w.scratch.moved = moved
	if len(moved) == 0 {
		return
	}
	w.scratch.contacts = mergeContacts(w.scratch.contacts[:0], w.restingContacts, moved)
	w.restingContacts, w.scratch.contacts = w.scratch.contacts, w.restingContacts
}

// dropContacts removes every contact of slot i from both lists.
func (w *World) dropContacts(i int32) {
	for _, list := range []*[]contact{&w.contacts, &w.restingContacts} {
		keep := (*list)[:0]
		for k := range *list {
			if c := &(*list)[k]; c.a != i && c.b != i {
				keep = append(keep, *c)
			}
		}
		*list = keep
	}
}

// mergeContacts appends the union of the sorted lists a and b to dst.
func mergeContacts(dst, a, b []contact) []contact {
	for len(a) > 0 && len(b) > 0 {
		if a[0].key < b[0].key {
			dst, a = append(dst, a[0]), a[1:]
		} else {
			dst, b = append(dst, b[0]), b[1:]
		}
	}
	dst = append(dst, a...)
	return append(dst, b...)
}

// eachContact calls fn for every contact of both lists in key order.
func (w *World) eachContact(fn func(c *contact)) {
	a, b := w.contacts, w.restingContacts
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || (len(a) > 0 && a[0].key < b[0].key) {
			fn(&a[0])
			a = a[1:]
		} else {
			fn(&b[0])
			b = b[1:]
		}
	}
}

// wakes reports whether body m, touching body s, wakes s: s sleeps and m is
// an awake dynamic body or a moving kinematic one.
func (w *World) wakes(m, s int32) bool {
	im, is := &w.info[m], &w.info[s]
	if !is.asleep || is.typ != Dynamic || im.asleep {
		return false
	}
	if im.typ == Kinematic {
		return w.linVel[m] != vecmath.Vec3{} || w.angVel[m] != vecmath.Vec3{}
	}
	return im.typ == Dynamic
}

func (w *World) newContact(key uint64) contact {
	a, b := pairSlots(key)
	ia, ib := &w.info[a], &w.info[b]
	return contact{
		key: key, a: a, b: b, genA: ia.gen, genB: ib.gen,
		friction:    math.Sqrt(float64(ia.friction * ib.friction)),
		restitution: max(ia.restitution, ib.restitution),
	}
}

// matchDistance is how close, m, a new manifold point must be to a point
// of the last step to inherit its impulses when no feature id matches.
const matchDistance = 0.02

// collide recomputes the manifold of c and carries over the impulses of
// the points it still has. A point is the same as last step's if its
// feature id is, or failing that if it lies within matchDistance of an
// unclaimed old point: two boxes face to face within a hair of alignment
// switch clip features (a corner becomes an edge crossing) as they rock,
// and a stack that lost its warm start at every switch would sag and rock.
func (w *World) collide(c *contact) {
	margin := w.cfg.ContactMargin + w.broad.reach[c.a] + w.broad.reach[c.b]
	xa := vecmath.Transform{Pos: w.pos[c.a], Rot: w.rot[c.a]}
	xb := vecmath.Transform{Pos: w.pos[c.b], Rot: w.rot[c.b]}
	qInv := xa.Rot.Conj()
	relPos, relRot := qInv.Rotate(xb.Pos.Sub(xa.Pos)), qInv.Mul(xb.Rot)
	pc := &c.cache
	if pc.valid && margin <= pc.margin && relPos.Sub(pc.relPos).LengthSq() < pairCacheDistanceSq {
		if d := relRot.Dot(pc.relRot); d > pairCacheCosHalf || -d > pairCacheCosHalf {
			w.rebuildManifold(c, xa, xb)
			return
		}
	}
	prev, prevImp := c.m, c.normalImp
	collide.Collide(&w.info[c.a].shape, xa, &w.info[c.b].shape, xb, margin, &c.m)
	w.anchorManifold(c, xa, xb, relPos, relRot, margin)
	if c.m.Count == 0 {
		c.patch = patchImpulse{}
	}
	var claimed [collide.MaxManifoldPoints]bool
	var matched [collide.MaxManifoldPoints]bool
	for k := 0; k < c.m.Count; k++ {
		c.normalImp[k] = 0
		for p := 0; p < prev.Count; p++ {
			if !claimed[p] && prev.Points[p].ID == c.m.Points[k].ID {
				c.normalImp[k], claimed[p], matched[k] = prevImp[p], true, true
				break
			}
		}
	}
	for k := 0; k < c.m.Count; k++ {
		if matched[k] {
			continue
		}
		best, bestD := -1, float64(matchDistance*matchDistance)
		for p := 0; p < prev.Count; p++ {
			if d := c.m.Points[k].Point.Sub(prev.Points[p].Point).LengthSq(); !claimed[p] && d < bestD {
				best, bestD = p, d
			}
		}
		if best >= 0 {
			c.normalImp[k], claimed[best] = prevImp[best], true
		}
	}
}

// anchorManifold fills c's pair cache from its fresh manifold.
func (w *World) anchorManifold(c *contact, xa, xb vecmath.Transform, relPos vecmath.Vec3, relRot vecmath.Quat, margin float64) {
	pc := &c.cache
	pc.valid, pc.relPos, pc.relRot, pc.margin = true, relPos, relRot, margin
	ra, rb := &w.scratch.rot[c.a], &w.scratch.rot[c.b]
	n := c.m.Normal
	pc.normal = ra.MulTVec(n)
	for k := 0; k < c.m.Count; k++ {
		p := &c.m.Points[k]
		half := float64(0.5 * p.Separation)
		pc.anchorA[k] = ra.MulTVec(p.Point.MulAdd(-half, n).Sub(xa.Pos))
		pc.anchorB[k] = rb.MulTVec(p.Point.MulAdd(half, n).Sub(xb.Pos))
	}
}

// rebuildManifold moves c's manifold with the bodies: the normal turns
// with a, each point's ends move with their bodies, the separation is
// their distance along the normal and the point their midpoint. Ids and
// impulses stay.
func (w *World) rebuildManifold(c *contact, xa, xb vecmath.Transform) {
	pc := &c.cache
	ra, rb := &w.scratch.rot[c.a], &w.scratch.rot[c.b]
	n := ra.MulVec(pc.normal)
	c.m.Normal = n
	for k := 0; k < c.m.Count; k++ {
		pa := ra.MulVec(pc.anchorA[k]).Add(xa.Pos)
		pb := rb.MulVec(pc.anchorB[k]).Add(xb.Pos)
		p := &c.m.Points[k]
		p.Separation = pb.Sub(pa).Dot(n)
		p.Point = pa.MulAdd(float64(0.5*p.Separation), n)
	}
}
