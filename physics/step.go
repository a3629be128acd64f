package physics

import (
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// stepScratch holds the per-step working arrays. They are rebuilt every
// step from the world state (never part of a Snapshot) and keep their
// capacity, so a steady-state step allocates nothing.
type stepScratch struct {
	awake       []int32   // live bodies that are not asleep, by slot
	contacts    []contact // the other buffer of the contact lists
	moved       []contact // contacts changing lists
	wake        []int32
	bodies      []solverBody     // [0] is the static dummy, then one per awake body
	invI        []vecmath.Mat3   // per entry of bodies: world-frame inverse inertia, fixed for the step
	accel       []bodyAccel      // per awake body (bodies[1:])
	index       []int32          // per slot: index in bodies, 0 if not awake
	pose        []collide.Pose   // per slot: pose and rotation matrix of the live bodies this step
	heads       []constraintHead // per constraint, index for index
	constraints []constraint
	colouring   colouring
	island      islandScratch
}

// Capacities reserved per body for the per-step arrays (reserve). Scene C
// of the benchmarks, a 9-high stack of 900 boxes, has 10.5 candidate pairs
// and 6 touching manifolds per body.
const (
	pairsPerBody    = 12
	manifoldPerBody = 8
)

// reserve grows the per-step arrays, the contact lists and the pose
// history to the capacity that len(w.info) bodies typically need, and
// touches the new memory, so that the first steps of a new world neither
// grow arrays nor fault pages in, and the collector has nothing new to
// chase: otherwise the first step of a 900-box stack took 7 times the mean.
// It doubles the reservation when the bodies outgrow it, so creating n
// bodies costs O(n) in all.
func (w *World) reserve() {
	n := len(w.info)
	if n <= w.reserved {
		return
	}
	n = max(2*w.reserved, n, 16)
	w.reserved = n
	s, b := &w.scratch, &w.broad
	s.awake = reserveSlice(s.awake, n)
	s.wake = reserveSlice(s.wake, n)
	s.bodies = reserveSlice(s.bodies, n+1)
	s.invI = reserveSlice(s.invI, n+1)
	s.accel = reserveSlice(s.accel, n)
	s.index = reserveSlice(s.index, n)
	s.pose = reserveSlice(s.pose, n)
	s.heads = reserveSlice(s.heads, manifoldPerBody*n)
	s.constraints = reserveSlice(s.constraints, manifoldPerBody*n)
	s.colouring.reserve(n)
	w.reserveContacts(n)
	b.pairs = reserveSlice(b.pairs, pairsPerBody*n)
	b.merged = reserveSlice(b.merged, pairsPerBody*n)
	b.potential = reserveSlice(b.potential, pairsPerBody*n)
	b.back = reserveSlice(b.back, 2*n)
	for _, g := range []*grid{&b.rest, &b.awake} {
		g.hash = reserveSlice(g.hash, 8*n)
		g.slot = reserveSlice(g.slot, 8*n)
		g.items = reserveSlice(g.items, 8*n)
		g.start = reserveSlice(g.start, 32*n+1) // buckets: a power of two >= 2 entries
	}
	b.awakeSlots = reserveSlice(b.awakeSlots, n)
	b.restSlots = reserveSlice(b.restSlots, n)
	b.gridSlots = reserveSlice(b.gridSlots, n)
	b.moved = reserveSlice(b.moved, n)
	b.lo, b.hi = reserveSlice(b.lo, n), reserveSlice(b.hi, n)
	b.boxLo, b.boxHi = reserveSlice(b.boxLo, n), reserveSlice(b.boxHi, n)
	b.cmin, b.cmax = reserveSlice(b.cmin, n), reserveSlice(b.cmax, n)
	b.boundsMin, b.boundsMax = reserveSlice(b.boundsMin, n), reserveSlice(b.boundsMax, n)
	b.reach, b.requeried, b.twin = reserveSlice(b.reach, n), reserveSlice(b.requeried, n), reserveSlice(b.twin, n)
	for i := range w.history.frames {
		f := &w.history.frames[i]
		f.pos = reserveSlice(f.pos, n)
		f.rot = reserveSlice(f.rot, n)
		f.gen = reserveSlice(f.gen, n)
	}
}

// reserveSlice returns s with capacity of at least n, the new part of the
// backing array written once so that its pages are in memory.
func reserveSlice[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s
	}
	t := make([]T, len(s), n)
	copy(t, s)
	clear(t[len(s):n])
	return t
}

// Step advances the world by one TimeStep. The stages, in order:
//
//  1. the pre-step hook (quantization by the network layer);
//  2. broadphase: candidate pairs with at least one awake body;
//  3. narrowphase: manifolds, warm-start matching, waking what awake
//     bodies touch;
//  4. solver (solver.go): PrepareContacts; Substeps times IntegrateVelocities,
//     WarmStart, Solve, IntegratePositions, Relax; then Restitution,
//     StoreImpulses, FinalizePositions;
//  5. rest detection: pose rings, islands, sleep;
//  6. history of poses for lag-compensated queries.
//
// With Config.Workers >= 1 the stages that can run in parallel do so
// (team.go), and the constraint passes go colour by colour (colour.go).
func (w *World) Step() {
	if w.preStep != nil {
		w.preStep(w)
	}
	if w.team.workers > 1 {
		w.team.start(w)
		defer w.team.release()
	}
	w.collectAwake()
	w.updatePairs()
	w.updateContacts()
	if len(w.scratch.wake) > 0 {
		w.collectAwake()
	}
	h := w.cfg.TimeStep / float64(w.cfg.Substeps)
	w.loadBodies(h)
	w.colourConstraints()
	w.parallel(job{kind: jobPrepare, hi: len(w.contacts)}, contactBlock)
	hz := min(w.cfg.ContactHertz, float64(0.25/h))
	pass := job{h: h, invH: 1 / h, softness: makeSoftness(hz, w.cfg.ContactDampingRatio, h)}
	bodies := len(w.scratch.awake)
	for range w.cfg.Substeps {
		w.parallel(job{kind: jobIntegrateVelocities, hi: bodies, h: h}, bodyBlock)
		pass.kind = jobWarmStart
		w.constraintPass(pass)
		pass.kind = jobSolve
		for range w.cfg.VelocityIterations {
			w.constraintPass(pass)
		}
		w.parallel(job{kind: jobIntegratePositions, hi: bodies, h: h}, bodyBlock)
		pass.kind = jobRelax
		for range w.cfg.RelaxIterations {
			w.constraintPass(pass)
		}
	}
	if w.scratch.colouring.bounce {
		pass.kind = jobRestitution
		w.constraintPass(pass)
	}
	w.parallel(job{kind: jobStoreImpulses, hi: len(w.scratch.constraints)}, constraintBlock)
	w.parallel(job{kind: jobFinishBodies, hi: bodies}, bodyBlock)
	w.tick++
	w.updateRest()
	w.history.record(w)
}

// Least items per block of a parallel job: some 10 to 50 µs of work, far
// above the cost of a claim and of the cache lines a block shares with
// the next. A colour of fewer than two constraint blocks runs on the
// caller alone, without waking anyone. Chosen over 64 bodies and 32
// constraints on one noisy comparison (`netphys bench physics --nosleep
// --workers 2`, scene A 0.93-1.41 against 1.49-1.75 ms); not tuned further.
const (
	bodyBlock       = 256
	contactBlock    = 64
	constraintBlock = 128
	pairBlock       = 128
)

// runJob runs items [lo, hi) of j on the calling worker.
func (w *World) runJob(j *job, lo, hi int) {
	switch j.kind {
	case jobNarrow:
		w.narrowChunk(int((lo-j.lo)/j.block), lo, hi)
	case jobPrepare:
		w.prepareContacts(lo, hi)
	case jobIntegrateVelocities:
		w.integrateVelocities(lo, hi, j.h)
	case jobWarmStart:
		w.warmStart(lo, hi)
	case jobSolve, jobRelax:
		w.solveContacts(lo, hi, j.kind == jobSolve, j.softness, j.invH)
	case jobIntegratePositions:
		w.integratePositions(lo, hi, j.h)
	case jobRestitution:
		w.applyRestitution(lo, hi)
	case jobStoreImpulses:
		w.storeImpulses(lo, hi)
	case jobFinishBodies:
		w.finishBodies(lo, hi)
	}
}

// collectAwake lists the live bodies that move this step.
func (w *World) collectAwake() {
	s := &w.scratch
	s.awake = s.awake[:0]
	for i := range w.info {
		if in := &w.info[i]; in.live && !in.asleep {
			s.awake = append(s.awake, int32(i))
		}
	}
}

// loadBodies builds the solver's body array for substeps of h seconds:
// the static dummy, then the awake bodies with their world-frame inverse
// inertia and what integrateVelocities adds in each substep.
func (w *World) loadBodies(h float64) {
	s := &w.scratch
	if len(s.index) < len(w.info) {
		s.index = append(s.index, make([]int32, len(w.info)-len(s.index))...)
	}
	clear(s.index)
	s.bodies = append(s.bodies[:0], solverBody{})
	s.invI = append(s.invI[:0], vecmath.Mat3{})
	s.accel = s.accel[:0]
	g := w.cfg.Gravity
	for _, i := range s.awake {
		in := &w.info[i]
		var invI vecmath.Mat3
		a := bodyAccel{dynamic: in.typ == Dynamic}
		if a.dynamic {
			invI = vecmath.RotateInertia(s.pose[i].Mat, in.invI) // loadPoses ran this step
			a.lin = g.MulAdd(in.invMass, w.force[i])
			a.ang = invI.MulVec(w.torque[i]).Scale(h)
			if in.linDamping > 0 {
				a.linScale = 1 / (1 + float64(h*in.linDamping))
			}
			if in.angDamping > 0 {
				a.angScale = 1 / (1 + float64(h*in.angDamping))
			}
		}
		s.index[i] = int32(len(s.bodies))
		s.bodies = append(s.bodies, solverBody{v: w.linVel[i], w: w.angVel[i], invMass: in.invMass})
		s.invI = append(s.invI, invI)
		s.accel = append(s.accel, a)
	}
}

// bodyAccel is what integrateVelocities does to one awake body in every
// substep, computed once per step: the substeps would otherwise read the
// body's bookkeeping, force and torque again each time.
type bodyAccel struct {
	lin                vecmath.Vec3 // gravity plus force over mass, m/s²
	ang                vecmath.Vec3 // h·I⁻¹·torque, rad/s
	linScale, angScale float64      // implicit damping factors; 0: no damping
	dynamic            bool         // only dynamic bodies accelerate
}

// integrateVelocities applies gravity, forces and damping to awake bodies
// [lo, hi) (the dynamic ones) for one substep of h seconds (semi-implicit
// Euler). Damping is the implicit form v/(1 + h·c), stable for any c.
// Forces are cleared after the step.
func (w *World) integrateVelocities(lo, hi int, h float64) {
	bodies := w.scratch.bodies[1:]
	for k := lo; k < hi; k++ {
		a := &w.scratch.accel[k]
		if !a.dynamic {
			continue
		}
		b := &bodies[k]
		v := b.v.MulAdd(h, a.lin)
		av := b.w.Add(a.ang)
		if a.linScale != 0 {
			v = v.Scale(a.linScale)
		}
		if a.angScale != 0 {
			av = av.Scale(a.angScale)
		}
		b.v, b.w = v, av
	}
}

// integratePositions accumulates one substep of motion of awake bodies
// [lo, hi). The poses themselves change once, in finishBodies: the solver
// only needs the displacement, and the inertia stays that of the start of
// the step.
func (w *World) integratePositions(lo, hi int, h float64) {
	bodies := w.scratch.bodies[1:]
	for k := lo; k < hi; k++ {
		b := &bodies[k]
		b.dp = b.dp.MulAdd(h, b.v)
		b.dq = b.dq.MulAdd(h, b.w)
		b.dqSum = sumAbs(b.dq)
	}
}

// finishBodies (FinalizePositions) applies the step's displacement to the
// poses of awake bodies [lo, hi), stores the solved velocities and clears
// the forces.
func (w *World) finishBodies(lo, hi int) {
	for k := lo; k < hi; k++ {
		i, b := w.scratch.awake[k], &w.scratch.bodies[k+1]
		w.pos[i] = w.pos[i].Add(b.dp)
		if (b.dq != vecmath.Vec3{}) {
			w.rot[i] = w.rot[i].Integrate(b.dq, 1)
		}
		w.linVel[i], w.angVel[i] = b.v, b.w
		w.force[i], w.torque[i] = vecmath.Vec3{}, vecmath.Vec3{}
	}
}
