package physics

import "github.com/netphys/netphys/vecmath"

// Coming to rest, as in the VR sample (seed 000): every awake dynamic body
// records its pose in a ring of the last SleepFrames steps. A body whose
// ring is full and whose every recorded pose lies within
// SleepLinearTolerance and SleepAngularTolerance of its current pose is
// quiet. Bodies joined by touching contacts form an island (found afresh
// each step by union-find over the awake bodies only); an island whose
// bodies are all quiet goes to sleep as one: velocities zeroed, AtRest set,
// out of the solver and the awake grid. Its bodies are linked in a circular
// list (bodyInfo.sleepNext) so that whatever wakes one of them — an awake
// body touching it, a force, an impulse, a moving SetState — wakes them all,
// and a tower never wakes half-way.
//
// Rejected: Box2D's velocity-threshold timer. A velocity can be small while
// a body creeps (a box sliding slowly off a ledge), and under
// quantize-both-sides the snapped velocities jitter around the threshold;
// the pose ring measures what the player would see move.

type islandScratch struct {
	parent []int32 // union-find over awake indices
	quiet  []bool  // per root: every member is quiet
	head   []int32 // per root: first and last member slot, for linking
	tail   []int32
}

func (s *islandScratch) reset(n int) {
	grow := func(v []int32) []int32 {
		if cap(v) < n {
			return make([]int32, n)
		}
		return v[:n]
	}
	s.parent, s.head, s.tail = grow(s.parent), grow(s.head), grow(s.tail)
	if cap(s.quiet) < n {
		s.quiet = make([]bool, n)
	}
	s.quiet = s.quiet[:n]
	for k := range n {
		s.parent[k], s.quiet[k], s.head[k] = int32(k), true, -1
	}
}

func (s *islandScratch) find(k int32) int32 {
	for s.parent[k] != k {
		s.parent[k] = s.parent[s.parent[k]]
		k = s.parent[k]
	}
	return k
}

// updateRest records the poses of the awake bodies, finds their islands
// and puts the quiet ones to sleep.
func (w *World) updateRest() {
	s := &w.scratch
	frames := w.cfg.SleepFrames
	if frames == 0 {
		return
	}
	r := int(w.tick % Tick(frames))
	is := &s.island
	is.reset(len(s.awake))
	for k, i := range s.awake {
		if w.info[i].typ != Dynamic {
			continue
		}
		w.restRing[int(i)*frames+r] = pose{w.pos[i], w.rot[i]}
		if int(w.restCount[i]) < frames {
			w.restCount[i]++
		}
		if !w.quiet(i) {
			is.quiet[k] = false
		}
	}
	for ci := range w.contacts {
		a, b := pairSlots(w.contacts[ci].key)
		ka, kb := s.index[a]-1, s.index[b]-1
		if ka < 0 || kb < 0 || w.info[a].typ != Dynamic || w.info[b].typ != Dynamic {
			continue
		}
		ra, rb := is.find(ka), is.find(kb)
		if ra != rb {
			is.parent[rb] = ra
			is.quiet[ra] = is.quiet[ra] && is.quiet[rb]
		}
	}
	slept := false
	for k, i := range s.awake {
		if w.info[i].typ != Dynamic {
			continue
		}
		root := is.find(int32(k))
		if !is.quiet[root] {
			continue
		}
		in := &w.info[i]
		in.asleep, in.sleepNext = true, i
		w.linVel[i], w.angVel[i] = vecmath.Vec3{}, vecmath.Vec3{}
		if is.head[root] < 0 {
			is.head[root] = i
		} else {
			w.info[is.tail[root]].sleepNext = i
			in.sleepNext = is.head[root]
		}
		is.tail[root] = i
		slept = true
	}
	if slept {
		w.broad.restDirty = true
		w.restActive()
	}
}

// quiet reports whether slot i's ring is full and every recorded pose is
// within the sleep tolerances of the current one.
func (w *World) quiet(i int32) bool {
	frames := w.cfg.SleepFrames
	if int(w.restCount[i]) < frames {
		return false
	}
	p, q := w.pos[i], w.rot[i]
	tol2 := float64(w.cfg.SleepLinearTolerance * w.cfg.SleepLinearTolerance)
	ring := w.restRing[int(i)*frames : int(i+1)*frames]
	// Start with the oldest pose, the likeliest to have drifted.
	start := int((w.tick + 1) % Tick(frames))
	for n := range frames {
		e := &ring[(start+n)%frames]
		if e.P.Sub(p).LengthSq() > tol2 {
			return false
		}
		if d := e.Q.Dot(q); d < w.cosHalfSleepAngle && -d < w.cosHalfSleepAngle {
			return false
		}
	}
	return true
}

// copyRings copies into dst, sized like src, the rest rings that later
// steps can read: those of the awake dynamic bodies with poses recorded
// (info and restCount describe the world the rings belong to). The ring of
// a sleeping body is dead: waking clears its count, and quiet reads a ring
// only once it is full again. A settled scene's snapshot then skips the
// rings (16 poses, 896 bytes per body by default) altogether.
func copyRings(dst, src []pose, info []bodyInfo, restCount []uint8, frames int) []pose {
	dst = resize(dst, len(src))
	for i := range info {
		if ringLive(&info[i], restCount[i]) {
			copy(dst[i*frames:(i+1)*frames], src[i*frames:(i+1)*frames])
		}
	}
	return dst
}

// ringLive reports whether a body's rest ring holds poses a later step
// reads: the restCount most recent ones, the last at tick % SleepFrames.
func ringLive(in *bodyInfo, n uint8) bool {
	return in.live && !in.asleep && in.typ == Dynamic && n > 0
}
