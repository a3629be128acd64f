package physics

import (
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// contact is the persistent state of one pair of touching bodies: all that
// the next step needs of this step's narrowphase, and all that a Snapshot
// copies of it (one block copy of the list, snapshot.go). A pair whose
// manifold has no points has no contact: the narrowphase runs on it afresh
// each step, so nothing of it outlives the step (contact.go, below).
//
// What is left out, and why. The manifold itself (normal, world points,
// separations) is derived: every active contact is recomputed or moved
// with its bodies from the cache below before anything reads it, so it
// lives in a per-step array (touch). The bodies a, b come from the key,
// the generations from the bodies (DestroyBody drops a body's contacts),
// friction and restitution from the bodies' materials. The points' world
// positions, which the warm start matched by when no feature id matches,
// are replaced by their anchors on a. The cache is float32: 0.06 µm at a
// metre from the body's origin, far below the solver's tolerances, and
// half the bytes to copy.
//
// The size is 192 bytes (it was 576 with the manifold and float64 cache).
type contact struct {
	key   uint64                            // pairKey(a, b), a < b: the sort order
	ids   [collide.MaxManifoldPoints]uint16 // feature ids of the points (collide ids fit 14 bits)
	count uint8                             // points, 1..MaxManifoldPoints
	// The impulses the solver accumulated, N·s: along the normal at each
	// point, and the friction of the whole patch (solver.go).
	imp   [collide.MaxManifoldPoints]float32
	patch [3]float32 // patchImpulse t1, t2, twist
	pairCache
}

// pairCache is Jolt's body pair cache: the pose of b in a's frame when the
// manifold was last computed in full, and that manifold anchored on the
// bodies: the normal in a's frame, and each point's ends on the surfaces of
// a and of b in their own frames. While b stays within pairCacheDistance
// and pairCacheAngle of that relative pose, collide rebuilds the manifold
// from the anchors (the points move with the bodies, the separations
// follow, the feature ids and so the warm start are kept) instead of
// running the narrowphase: a resting stack then costs a few rotations per
// pair instead of a 15-axis separating test and a clip. Slots at or beyond
// count are stale and never read.
//
// Rejected: b's ends as the separations along the normal (16 bytes instead
// of 48). b's end is then derived through the cached relative pose, a
// quaternion product and a rotation matrix more per contact in every
// rebuild: 1.2 % more instructions per awake step in scene C and 1.6 % in
// B (callgrind), about 40 µs a step in C against 5 µs saved per Snapshot.
type pairCache struct {
	poseCache
	normal           vec3f // from a to b, in a's frame
	anchorA, anchorB [collide.MaxManifoldPoints]vec3f
}

// poseCache is b's pose in a's frame at the last full narrowphase of a
// pair, and the margin it ran with (rounded up to float32).
type poseCache struct {
	margin float32 // m
	relPos vec3f   // b's origin in a's frame, m
	relRot quatf   // a's rotation conjugated times b's
}

// apartPair is a candidate pair whose manifold had no points at its last
// full narrowphase (40 bytes; scene C has 4,050, diagonal neighbours in
// the stack that clip to nothing). While its pose cache holds, it still
// has none: the same approximation as the contacts' cache, without which
// each would run the separating test and a clip every step. The cache
// changes results, so the list is part of a Snapshot.
type apartPair struct {
	key uint64
	poseCache
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

// loadPatch returns the patch impulse stored for the warm start.
func (c *contact) loadPatch() patchImpulse {
	return patchImpulse{float64(c.patch[0]), float64(c.patch[1]), float64(c.patch[2])}
}

// storePatch stores the patch impulse for the next step's warm start.
func (c *contact) storePatch(p patchImpulse) {
	c.patch = [3]float32{float32(p.t1), float32(p.t2), float32(p.twist)}
}

// Contacts live in two lists of records, each sorted by key. active holds
// the contacts with at least one awake body: the narrowphase and the
// solver run over it every step. resting holds those whose bodies all
// sleep (or are static): they stay untouched, at no cost per step, until
// one of the bodies wakes. Contacts move between the lists only when
// islands fall asleep or wake. Beside the active list, narrowScratch.touch
// holds each active contact's manifold of this step, index for index, from
// updateContacts until the solver is done (rest detection then moves
// records without it).

// narrowScratch holds the narrowphase's per-step arrays; like stepScratch
// it is never part of a Snapshot.
type narrowScratch struct {
	touch, touchNext []touch   // per active contact, and the other buffer
	born             []contact // contacts that got their first points this step
	bornTouch        []touch
	apart            []apartPair // the other buffer of World.apart
	jobs             []pairJob   // per candidate pair
	chunks           []narrowChunk
}

// pairJob is a candidate pair of this step and what it had last step: the
// index of its active contact, or of its apart pair, or neither (-1).
type pairJob struct {
	key          uint64
	old, apartAt int32
}

// narrowChunk is the output of the narrowphase over one block of pairJobs,
// in pair order: concatenated chunk after chunk, the outputs are those of
// one walk over all the pairs, whichever worker ran which chunk.
type narrowChunk struct {
	born      []contact
	bornTouch []touch
	apart     []apartPair
	wake      []int32
	dead      int
}

// touch is the manifold of an active contact in this step, with the
// pair's combined materials, as the solver reads it.
type touch struct {
	m                     collide.Manifold
	friction, restitution float64
}

// updateContacts runs the narrowphase on every candidate pair, walking the
// sorted pair list beside the sorted active contacts of the last step:
//
//   - a pair with a contact updates it in place, matching its points by
//     feature id, or else by position, so that their impulses carry over
//     (warm starting, see collide);
//   - a pair without one runs the narrowphase afresh and becomes a contact
//     if it has points;
//   - a contact that lost its points dies; one whose pair is gone moves to
//     the resting list if neither body is awake (an island just fell
//     asleep), and dies otherwise (the bodies separated).
//
// The list is rewritten only when contacts die (compacted in place) or are
// born (merged into the other buffer): in most steps of a settled or slowly
// moving scene it stays as it is. A sleeping body that an awake dynamic (or
// moving kinematic) body touches is woken with its island after the walk,
// and the resting contacts of the woken bodies rejoin the active list with
// their manifolds rebuilt from their caches.
func (w *World) updateContacts() {
	if w.woken {
		w.activateWoken(false)
	}
	w.loadPoses()
	ns := &w.narrow
	old, pairs, apart := w.contacts, w.broad.pairs, w.apart
	ns.touch = resize(ns.touch, len(old))
	toRest := w.scratch.moved[:0]
	jobs := ns.jobs[:0]
	dead, i, j := 0, 0, 0
	for _, key := range pairs {
		for ; i < len(old) && old[i].key < key; i++ {
			if w.resting(&old[i]) {
				toRest = append(toRest, old[i])
			}
			old[i].count, dead = 0, dead+1
		}
		pj := pairJob{key: key, old: -1, apartAt: -1}
		if i < len(old) && old[i].key == key {
			pj.old = int32(i)
			i++
		} else {
			for ; j < len(apart) && apart[j].key < key; j++ {
			}
			if j < len(apart) && apart[j].key == key {
				pj.apartAt = int32(j)
			}
		}
		jobs = append(jobs, pj)
	}
	for ; i < len(old); i++ {
		if w.resting(&old[i]) {
			toRest = append(toRest, old[i])
		}
		old[i].count, dead = 0, dead+1
	}
	ns.jobs = jobs
	block := max(len(jobs), 1)
	if w.team.workers > 1 {
		block = pairBlock
	}
	ns.reserveChunks((len(jobs)+block-1)/block, block)
	w.parallel(job{kind: jobNarrow, hi: len(jobs), block: block}, block)
	born, bornTouch, wake := ns.born[:0], ns.bornTouch[:0], w.scratch.wake[:0]
	for c := range ns.chunks {
		ch := &ns.chunks[c]
		born, bornTouch = append(born, ch.born...), append(bornTouch, ch.bornTouch...)
		wake, dead = append(wake, ch.wake...), dead+ch.dead
	}
	if len(ns.chunks) == 1 { // the one chunk's list is the new one, and takes the old buffer
		w.apart, ns.chunks[0].apart = ns.chunks[0].apart, w.apart
	} else {
		next := ns.apart[:0]
		for c := range ns.chunks {
			next = append(next, ns.chunks[c].apart...)
		}
		w.apart, ns.apart = next, w.apart
	}
	if dead > 0 {
		w.compactActive()
	}
	if len(born) > 0 {
		w.addActive(born, bornTouch)
	}
	ns.born, ns.bornTouch = born, bornTouch
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
		w.activateWoken(true)
	}
}

// reserveChunks makes n chunks of up to block pairs, each new one with
// the capacity its apart pairs and wakes can reach and a few births, so
// that the steps after warm-up allocate nothing.
func (ns *narrowScratch) reserveChunks(n, block int) {
	for len(ns.chunks) < n {
		ns.chunks = append(ns.chunks, narrowChunk{
			apart: make([]apartPair, 0, block),
			wake:  make([]int32, 0, block),
			born:  make([]contact, 0, min(block, 16)), bornTouch: make([]touch, 0, min(block, 16)),
		})
	}
	ns.chunks = ns.chunks[:n]
}

// narrowChunk runs the narrowphase on pairJobs [lo, hi), chunk c: it
// updates the pairs' active contacts in place and lists in the chunk what
// the walk of updateContacts gathers: contacts born, apart pairs, bodies
// to wake, contacts that died. It reads the world and writes only its
// pairs' contacts and touches and its chunk.
func (w *World) narrowChunk(c, lo, hi int) {
	ns := &w.narrow
	ch := &ns.chunks[c]
	ch.born, ch.bornTouch, ch.apart, ch.wake, ch.dead = ch.born[:0], ch.bornTouch[:0], ch.apart[:0], ch.wake[:0], 0
	var fresh contact
	var freshTouch touch
	var r relPose
	for _, pj := range ns.jobs[lo:hi] {
		a, b := pairSlots(pj.key)
		r.load(w, a, b)
		c, t := &fresh, &freshTouch
		if pj.old >= 0 {
			c, t = &w.contacts[pj.old], &ns.touch[pj.old]
		} else {
			if pj.apartAt >= 0 && w.apart[pj.apartAt].holds(&r) {
				ch.apart = append(ch.apart, w.apart[pj.apartAt])
				continue
			}
			// A whole new record, so that its unused slots do not depend on
			// the pairs the chunk saw before.
			fresh = contact{key: pj.key}
		}
		w.collide(c, t, &r)
		if c.count == 0 {
			if c != &fresh {
				ch.dead++
			}
			ch.apart = append(ch.apart, apartPair{key: pj.key})
			ch.apart[len(ch.apart)-1].set(&r)
			continue
		}
		if c == &fresh {
			ch.born, ch.bornTouch = append(ch.born, fresh), append(ch.bornTouch, freshTouch)
		}
		if w.wakes(b, a) {
			ch.wake = append(ch.wake, a)
		} else if w.wakes(a, b) {
			ch.wake = append(ch.wake, b)
		}
	}
}

// reserveContacts reserves the contact lists and the narrowphase's arrays
// for n bodies (World.reserve): manifoldPerBody contacts and pairsPerBody
// apart pairs per body.
func (w *World) reserveContacts(n int) {
	s, ns := &w.scratch, &w.narrow
	s.contacts = reserveSlice(s.contacts, manifoldPerBody*n)
	s.moved = reserveSlice(s.moved, manifoldPerBody*n)
	w.contacts = reserveSlice(w.contacts, manifoldPerBody*n)
	w.restingContacts = reserveSlice(w.restingContacts, manifoldPerBody*n)
	ns.touch = reserveSlice(ns.touch, manifoldPerBody*n)
	ns.touchNext = reserveSlice(ns.touchNext, manifoldPerBody*n)
	ns.born = reserveSlice(ns.born, manifoldPerBody*n)
	ns.bornTouch = reserveSlice(ns.bornTouch, manifoldPerBody*n)
	w.apart = reserveSlice(w.apart, pairsPerBody*n)
	ns.apart = reserveSlice(ns.apart, pairsPerBody*n)
	ns.jobs = reserveSlice(ns.jobs, pairsPerBody*n)
	// The sequential step's narrowphase is one chunk: its lists are
	// the step's.
	ns.reserveChunks(max(len(ns.chunks), 1), 0)
	ch := &ns.chunks[0]
	ch.born = reserveSlice(ch.born, manifoldPerBody*n)
	ch.bornTouch = reserveSlice(ch.bornTouch, manifoldPerBody*n)
	ch.apart = reserveSlice(ch.apart, pairsPerBody*n)
}

// resize returns s with length n, keeping its capacity when it suffices.
func resize[T any](s []T, n int) []T {
	return reserveSlice(s, n)[:n]
}

// compactActive drops the active contacts marked dead (count 0) and their
// touches, in place.
func (w *World) compactActive() {
	cs, ts := w.contacts, w.narrow.touch
	k := 0
	for j := range cs {
		if cs[j].count == 0 {
			continue
		}
		if k != j {
			cs[k], ts[k] = cs[j], ts[j]
		}
		k++
	}
	w.contacts, w.narrow.touch = cs[:k], ts[:k]
}

// addActive merges the sorted contacts add, with their touches, into the
// active list.
func (w *World) addActive(add []contact, addTouch []touch) {
	ns := &w.narrow
	n := len(w.contacts) + len(add)
	dc, dt := reserveSlice(w.scratch.contacts, n)[:0], reserveSlice(ns.touchNext, n)[:0]
	a, at := w.contacts, ns.touch
	for len(a) > 0 && len(add) > 0 {
		if a[0].key < add[0].key {
			dc, dt = append(dc, a[0]), append(dt, at[0])
			a, at = a[1:], at[1:]
		} else {
			dc, dt = append(dc, add[0]), append(dt, addTouch[0])
			add, addTouch = add[1:], addTouch[1:]
		}
	}
	dc, dt = append(append(dc, a...), add...), append(append(dt, at...), addTouch...)
	w.contacts, w.scratch.contacts = dc, w.contacts
	ns.touch, ns.touchNext = dt, ns.touch
}

// resting reports whether a contact is a resting one: both bodies live and
// neither awake.
func (w *World) resting(c *contact) bool {
	a, b := pairSlots(c.key)
	ia, ib := &w.info[a], &w.info[b]
	return ia.live && ib.live && ia.asleep && ib.asleep
}

// activateWoken moves the resting contacts that now have an awake body to
// the active list. With touches set (the narrowphase has run this step)
// their manifolds are rebuilt from their caches at the bodies' poses, as
// the solver will read them; otherwise the narrowphase is still to come.
func (w *World) activateWoken(touches bool) {
	w.woken = false
	keep := w.restingContacts[:0]
	moved := w.scratch.moved[:0]
	for k := range w.restingContacts {
		c := &w.restingContacts[k]
		a, b := pairSlots(c.key)
		if w.resting(c) {
			keep = append(keep, *c)
		} else if w.info[a].live && w.info[b].live {
			moved = append(moved, *c)
		}
	}
	w.restingContacts = keep
	w.scratch.moved = moved
	if len(moved) == 0 {
		return
	}
	if touches {
		ns := &w.narrow
		ns.bornTouch = resize(ns.bornTouch, len(moved))
		for k := range moved {
			w.rebuild(&moved[k], &ns.bornTouch[k])
		}
		w.addActive(moved, ns.bornTouch)
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

// dropContacts removes every contact and apart pair of slot i.
func (w *World) dropContacts(i int32) {
	w.contacts = dropSlot(w.contacts, i)
	w.restingContacts = dropSlot(w.restingContacts, i)
	w.apart = dropSlot(w.apart, i)
}

// dropSlot removes the entries of slot i from list, in place.
func dropSlot[T interface{ pair() uint64 }](list []T, i int32) []T {
	keep := list[:0]
	for k := range list {
		if a, b := pairSlots(list[k].pair()); a != i && b != i {
			keep = append(keep, list[k])
		}
	}
	return keep
}

func (c contact) pair() uint64   { return c.key }
func (p apartPair) pair() uint64 { return p.key }

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
