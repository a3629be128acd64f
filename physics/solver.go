package physics

import (
	"math"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// The contact solver: sequential impulses on soft contacts, substepped,
// warm started, with a relax pass — Box2D v3's "soft step" in 3D.
//
// Why sequential impulses. Each contact point gives one non-penetration row
// and each manifold three friction rows (below). Solving them one at a time (projected Gauss-Seidel
// on velocities, Catto 2005) needs no matrix, handles the inequality
// (λn ≥ 0) and the friction cone (|λt| ≤ μλn) by clamping the accumulated
// impulse, and costs O(points·passes). It is what Box2D, Bullet and PhysX
// do; it is also trivially deterministic, because rows are visited in the
// sorted contact order. Rejected: a direct LCP solver (Dantzig, ODE's
// dWorldStep), exact but cubic and slow on a 900-body island; Jacobi
// iterations, parallel but converging too slowly for tall stacks.
//
// Why substeps. Gauss-Seidel converges slowly on a stack: the weight of the
// top box needs about one pass per box to reach the ground. The first
// version of this solver ran 10 passes per 60 Hz step with Baumgarte
// position correction, then with split impulses (Bullet's pseudo
// velocities): a column of nine 1 kg cubes rocked for seconds, and a
// column of 20 sank 8 mm per contact on landing and toppled (measured
// before the warm-start fix described below, which accounts for part of
// it). Spending about the same passes as 4 substeps of (1 solve + 1 relax)
// makes each pass start from positions that include the previous pass's
// correction, which is far stiffer: the 20-cube column now rests after
// about half a second, 2.5 cm below nominal (the sag of the soft contacts,
// below). This matches Erin Catto's Solver2D study (box2d.org, 2024), where
// the soft step gave the best stacks per unit of cost. Collision detection
// still runs once per step: within a step the solver tracks each point's
// separation from the bodies' accumulated displacement (linearized:
// n·Δp + j·Δθ), which is what keeps substeps cheap. Rejected: more
// iterations (cost grows linearly, stacks improve slowly), a block solver
// for the four points of a face (exact for one box, no help for a column),
// nonlinear Gauss-Seidel position passes (a narrowphase-like update per
// pass).
//
// Why soft contacts, and the depenetration cap. Overlap is removed by a
// spring-damper (ContactHertz, ContactDampingRatio) expressed as a velocity
// bias with mass and impulse scaling (Catto, "Soft Step", 2024), instead of
// the Baumgarte factor whose stiffness depends on the time step and the
// iteration count. A spring sags under load: at the default 60 Hz (the
// quarter of the substep rate above which the spring itself goes unstable)
// the bottom contact of a nine-cube column overlaps about 1 mm, and scene C's
// top layer ends 6 mm below nominal. The bias is capped at
// MaxDepenetrationVelocity (1 m/s, as in the VR sample): a state snapped
// by quantization or teleported by the network overlaps its neighbours,
// and uncapped correction would throw them apart; capped, they separate
// calmly over a few steps. Speculative points (separation > 0, within the
// contact margin) instead allow exactly the approach that closes the gap in
// one substep, which stops fast bodies without tunnelling and without a
// continuous-collision pass.
//
// Why patch friction. Friction is solved per manifold, as in PhysX's
// default patch model: two tangent rows at the centre of the points,
// bounded by the Coulomb circle of radius μ·Σλn (so the friction force does
// not depend on the direction of sliding), and a twist row about the
// normal bounded by μ·Σλn·r, r the mean distance of the points from their
// centre. Per-point friction (Box2D's) takes two rows per point, eight for
// a face instead of three, and those rows and their setup were a large
// share of the solver's cost in the profiles; the sliding, slope and
// stacking tests pass either way.
//
// Why relax. The bias velocity is not physical: left in the bodies it turns
// into bounce and jitter. After the positions are integrated, a pass
// without bias removes it. Restitution is applied at the end of the step
// from the approach speeds recorded before the solve, so bounce does not
// depend on the pass count.
//
// Why warm starting. Each point remembers its accumulated normal impulse
// (matched across steps by feature id, or failing that by position:
// contact.go), each manifold its friction impulses, and the solver
// applies them at the start of every substep, so a resting stack starts at
// last step's solution and two passes per substep hold it. Without the
// position fallback, nearly aligned faces that switch clip features lost
// their impulses every few steps and a 20-cube tower drifted 15 cm.
//
// Stages, in the order Step drives them (step.go): PrepareContacts, then
// per substep IntegrateVelocities, WarmStart, Solve, IntegratePositions,
// Relax; then Restitution, StoreImpulses, FinalizePositions.

// solverBody is the state the solver iterates on. Index 0 of the solver's
// body array is a fixed dummy that stands for every static or sleeping
// body, so rows never branch on body type. The world-frame inverse inertia
// is read only where rows are built (finish) and by integrateVelocities,
// so it lives beside the array (stepScratch.invI), index for index: every
// pass reads the 112 bytes here instead of 184.
type solverBody struct {
	v, w    vecmath.Vec3 // m/s, rad/s
	dp, dq  vecmath.Vec3 // displacement (m) and rotation vector (rad) so far this step
	invMass float64
	// dqSum is |dq.X|+|dq.Y|+|dq.Z|, which the apart test reads for every
	// manifold and pass; set with dq, once per substep.
	dqSum float64
}

// row is one constraint direction at one point: the angular Jacobians
// j = r×dir of each body, the angular response i = I⁻¹·j, and the
// effective mass along dir.
type row struct {
	jA, jB, iA, iB vecmath.Vec3
	mass           float64
}

// constraintPoint is one non-penetration row, laid out in the order the
// solver reads it. What only restitution reads is in the constraint's
// cold end.
type constraintPoint struct {
	separation float64 // m at the start of the step, negative when overlapping
	imp        float64 // accumulated normal impulse, N·s
	n          row
}

// constraintHead is what every pass reads of a manifold first: all that
// apart and the passes' dispatch need, in one 64-byte record. The heads
// are an array of their own (stepScratch.heads, index for index with the
// constraints), so that a pass over mostly apart manifolds (four fifths of
// scene C's) streams 64 bytes per manifold instead of touching one or two
// cache lines of a kilobyte each.
type constraintHead struct {
	a, b  int32 // solver body indices
	count int32
	// held is false when no point holds a normal impulse and the patch no
	// friction; ready says that finish has completed the rows.
	held, ready bool
	normal      vecmath.Vec3
	// For skipping manifolds that stay apart (apartMargin): the least separation
	// of the points at the start of the step, m, and the largest component
	// of any point's angular Jacobians on a and on b, m.
	minSeparation, maxJA, maxJB float64
}

// constraint is the rest of a manifold: a non-penetration row per point,
// and patch friction at the centre of the points: two tangent rows and a
// twist row about the normal.
type constraint struct {
	// pushed has bit p set once a pass has raised point p's impulse
	// above zero this step: restitution acts only on those points.
	pushed      uint8
	contact     int32 // index in w.contacts
	t1, t2      vecmath.Vec3
	friction    float64
	restitution float64
	twistRadius float64 // mean distance of the points from their centre, m
	// rA and rB lead from the bodies' centres to the centre of the points,
	// m.
	rA, rB   vecmath.Vec3
	points   [4]constraintPoint
	ft1, ft2 row // at the centre of the points
	twist    row // angular only: j = normal for both bodies
	fimp     patchImpulse
	// approach is each point's normal relative velocity before the solve,
	// m/s, set only when restitution is not zero (its one reader).
	approach [collide.MaxManifoldPoints]float64
}

// softness is a spring-damper contact written as the coefficients of a
// velocity-level row (Catto, "Solver2D: soft step"): the row asks for
// bias = biasRate·separation, and scales the mass and the accumulated
// impulse.
type softness struct {
	biasRate, massScale, impulseScale float64
}

func makeSoftness(hertz, zeta, h float64) softness {
	omega := float64(2*math.Pi) * hertz
	a1 := float64(2*zeta) + float64(h*omega)
	a2 := float64(float64(h*omega) * a1)
	a3 := 1 / (1 + a2)
	return softness{biasRate: omega / a1, massScale: float64(a2 * a3), impulseScale: a3}
}

func makeRow(dir, rA, rB vecmath.Vec3, m *pairMass) row {
	r := row{jA: rA.Cross(dir), jB: rB.Cross(dir)}
	r.finish(m)
	return r
}

// pairMass is the inverse mass and world-frame inverse inertia of a
// constraint's two bodies, which finishing its rows needs.
type pairMass struct {
	mA, mB     float64
	invA, invB *vecmath.Mat3
}

// finish computes the angular responses and the effective mass of a row
// whose Jacobians are set.
func (r *row) finish(m *pairMass) {
	r.iA, r.iB = m.invA.MulVec(r.jA), m.invB.MulVec(r.jB)
	r.mass = 0
	if k := m.mA + m.mB + r.jA.Dot(r.iA) + r.jB.Dot(r.iB); k > 0 {
		r.mass = 1 / k
	}
}

// velocity returns the relative velocity of the points along the row.
func (r *row) velocity(dir vecmath.Vec3, a, b *solverBody) float64 {
	return r.vel(dir, a.v, a.w, b.v, b.w)
}

// vel is velocity for body velocities held in locals: the solver loops
// keep a constraint's two bodies in registers rather than writing them
// back after every row.
func (r *row) vel(dir, va, wa, vb, wb vecmath.Vec3) float64 {
	return dir.Dot(vb.Sub(va)) + r.jB.Dot(wb) - r.jA.Dot(wa)
}

// bodyPair holds the velocities of a constraint's two bodies while the
// solver works on it.
type bodyPair struct {
	va, wa, vb, wb vecmath.Vec3
	mA, mB         float64
}

func loadPair(a, b *solverBody) bodyPair {
	return bodyPair{a.v, a.w, b.v, b.w, a.invMass, b.invMass}
}

// store writes the velocities back. The static dummy (index 0) is left
// alone: its terms are zero, and in the parallel step workers solving
// constraints on it at the same time must not write it.
func (p *bodyPair) store(h *constraintHead, a, b *solverBody) {
	if h.a != 0 {
		a.v, a.w = p.va, p.wa
	}
	if h.b != 0 {
		b.v, b.w = p.vb, p.wb
	}
}

// apply adds the impulse λ along the row (to b, minus to a).
func (r *row) apply(dir vecmath.Vec3, lambda float64, p *bodyPair) {
	p.va = p.va.MulAdd(-float64(lambda*p.mA), dir)
	p.wa = p.wa.MulAdd(-lambda, r.iA)
	p.vb = p.vb.MulAdd(float64(lambda*p.mB), dir)
	p.wb = p.wb.MulAdd(lambda, r.iB)
}

// prepareContacts builds the constraints of active contacts [lo, hi),
// in the slots colourConstraints gave them, as far as the apart test
// (apartMargin) needs them: the heads (the bodies, the normal, the bounds
// on separation and angular Jacobians, and whether any impulse is held).
// The rest waits for finish, which a manifold that stays apart for the
// whole step (four fifths of scene C's) never needs.
func (w *World) prepareContacts(lo, hi int) {
	s := &w.scratch
	bodies := s.bodies
	for ci := lo; ci < hi; ci++ {
		slot := s.colouring.slot[ci]
		if slot < 0 {
			continue
		}
		c, t := &w.contacts[ci], &w.narrow.touch[ci] // the contact and its manifold this step
		ca, cb := pairSlots(c.key)
		ia, ib := s.index[ca], s.index[cb]
		h, k := &s.heads[slot], &s.constraints[slot]
		h.a, h.b, h.count, h.normal = ia, ib, int32(t.m.Count), t.m.Normal
		k.contact, k.friction, k.restitution = int32(ci), t.friction, t.restitution
		// The loop keeps the bounds in locals and computes the Jacobians
		// inline: it runs for every point of every manifold, and a call
		// and a row copy per point were three quarters of its cost.
		normal, pa, pb := t.m.Normal, w.pos[ca], w.pos[cb]
		minSeparation, maxJA, maxJB := math.Inf(1), 0.0, 0.0
		held := c.patch != [3]float32{}
		for p := range t.m.Points[:t.m.Count] {
			cp := &t.m.Points[p]
			jA, jB := cp.Point.Sub(pa).Cross(normal), cp.Point.Sub(pb).Cross(normal)
			if k.restitution != 0 {
				n := row{jA: jA, jB: jB}
				k.approach[p] = n.velocity(normal, &bodies[ia], &bodies[ib])
			}
			if cp.Separation < minSeparation {
				minSeparation = cp.Separation
			}
			maxJA, maxJB = raiseToMaxAbs(maxJA, jA), raiseToMaxAbs(maxJB, jB)
			held = held || c.imp[p] != 0
		}
		h.minSeparation, h.maxJA, h.maxJB = minSeparation, maxJA, maxJB
		h.held, h.ready, k.pushed = held, false, 0
	}
}

// finish completes constraint k, once per step, when a stage first
// applies an impulse to it: the points' rows with their angular responses
// and masses, the friction and twist rows at the centre of the points,
// and the impulses to warm start from. It reads what prepareContacts
// read, unchanged until the step ends (the manifold, the poses, the
// contact's impulses), so the rows are those an eager prepare would have
// built.
func (w *World) finish(h *constraintHead, k *constraint) {
	s := &w.scratch
	c, t := &w.contacts[k.contact], &w.narrow.touch[k.contact]
	ca, cb := pairSlots(c.key)
	k.t1, k.t2 = vecmath.Perpendicular(h.normal)
	pa, pb := w.pos[ca], w.pos[cb]
	var centre vecmath.Vec3
	for p := 0; p < t.m.Count; p++ {
		cp := &t.m.Points[p]
		pt := &k.points[p]
		pt.separation = cp.Separation
		pt.imp = float64(c.imp[p])
		// The Jacobians as prepareContacts computed them; row.finish below
		// sets the rest of the row.
		pt.n.jA, pt.n.jB = cp.Point.Sub(pa).Cross(h.normal), cp.Point.Sub(pb).Cross(h.normal)
		centre = centre.Add(cp.Point)
	}
	centre = centre.Scale(1 / float64(t.m.Count))
	radius := 0.0
	for p := 0; p < t.m.Count; p++ {
		radius += t.m.Points[p].Point.Sub(centre).Length()
	}
	k.twistRadius = radius / float64(t.m.Count)
	k.rA, k.rB = centre.Sub(pa), centre.Sub(pb)
	k.fimp = c.loadPatch()
	m := pairMass{s.bodies[h.a].invMass, s.bodies[h.b].invMass, &s.invI[h.a], &s.invI[h.b]}
	for p := range k.points[:h.count] {
		k.points[p].n.finish(&m)
	}
	k.ft1 = makeRow(k.t1, k.rA, k.rB, &m)
	k.ft2 = makeRow(k.t2, k.rA, k.rB, &m)
	k.twist = row{jA: h.normal, jB: h.normal}
	k.twist.iA, k.twist.iB = m.invA.MulVec(h.normal), m.invB.MulVec(h.normal)
	if m := h.normal.Dot(k.twist.iA) + h.normal.Dot(k.twist.iB); m > 0 {
		k.twist.mass = 1 / m
	} else {
		k.twist.mass = 0
	}
	h.ready = true
}

// raiseToMaxAbs returns the largest of m >= 0 and the magnitudes of v's
// components: a magnitude is the larger of a component and its negation.
// Written with comparisons so that it is inlined (math.Abs or the builtin
// max would put it over the inlining budget), and keeping m on ties so
// that the result is never a negative zero.
func raiseToMaxAbs(m float64, v vecmath.Vec3) float64 {
	return larger(larger(larger(larger(larger(larger(m, v.X), -v.X), v.Y), -v.Y), v.Z), -v.Z)
}

// larger returns y if y > x, else x.
func larger(x, y float64) float64 {
	if y > x {
		return y
	}
	return x
}

func sumAbs(v vecmath.Vec3) float64 { return math.Abs(v.X) + math.Abs(v.Y) + math.Abs(v.Z) }

// apartMargin is the least bound, m and m/s, that the apart test accepts:
// far above the rounding of the exact computation it stands for.
//
// The apart test (solveContacts, first thing for each manifold): a pass
// leaves a manifold untouched when every point is and stays apart: no
// point holds an impulse, the patch no friction, and bounds on the
// separation and the approach speed show that every point's impulse would
// be clamped to zero. The bounds hold for every point at once:
// |j·ω| ≤ max|jᵢ|·Σ|ωᵢ|. Four fifths of scene C's manifolds are such
// speculative side contacts between the columns of the stack; the test
// costs a tenth of solving their points.
const apartMargin = 1e-9

// warmStart applies the impulses of the last substep (or step) again, for
// constraints [lo, hi).
func (w *World) warmStart(lo, hi int) {
	bodies := w.scratch.bodies
	for ki := lo; ki < hi; ki++ {
		h := &w.scratch.heads[ki]
		if !h.held {
			continue
		}
		k := &w.scratch.constraints[ki]
		a, b := &bodies[h.a], &bodies[h.b]
		if !h.ready {
			w.finish(h, k)
		}
		if h.a == 0 {
			k.warmStartOnStatic(h, b)
			continue
		}
		bp := loadPair(a, b)
		for p := range k.points[:h.count] {
			if pt := &k.points[p]; pt.imp != 0 {
				pt.n.apply(h.normal, pt.imp, &bp)
			}
		}
		if (k.fimp != patchImpulse{}) {
			k.ft1.apply(k.t1, k.fimp.t1, &bp)
			k.ft2.apply(k.t2, k.fimp.t2, &bp)
			k.twist.apply(vecmath.Vec3{}, k.fimp.twist, &bp)
		}
		bp.store(h, a, b)
	}
}

// warmStartOnStatic is warmStart for a manifold whose body a is the static
// dummy (see solveOnStatic): row.apply's terms of b only, written out.
func (k *constraint) warmStartOnStatic(h *constraintHead, b *solverBody) {
	vb, wb, mB := b.v, b.w, b.invMass
	for p := range k.points[:h.count] {
		if pt := &k.points[p]; pt.imp != 0 {
			vb = vb.MulAdd(float64(pt.imp*mB), h.normal)
			wb = wb.MulAdd(pt.imp, pt.n.iB)
		}
	}
	if (k.fimp != patchImpulse{}) {
		f := &k.fimp
		vb = vb.MulAdd(float64(f.t1*mB), k.t1)
		wb = wb.MulAdd(f.t1, k.ft1.iB)
		vb = vb.MulAdd(float64(f.t2*mB), k.t2)
		wb = wb.MulAdd(f.t2, k.ft2.iB)
		vb = vb.MulAdd(float64(f.twist*mB), vecmath.Vec3{}) // as row.apply: the twist row's zero linear part
		wb = wb.MulAdd(f.twist, k.twist.iB)
	}
	b.v, b.w = vb, wb
}

// solveContacts runs one Gauss-Seidel pass over the rows of constraints
// [lo, hi): non-penetration
// first, then friction, which is bounded by the normal impulse just found.
// useBias selects Solve (soft position correction) over Relax.
//
// This is the hottest loop of the step. row.vel and row.apply are written
// out by hand here (the same operations in the same order, so the same
// bits): the compiler does not inline them, and the calls, each passing
// five vectors, cost a fifth of the pass. Clamps are explicit comparisons:
// the builtin float max and min handle NaN and signed zeros with extra
// instructions on the critical path; each comparison below is written to
// give the builtin's result for every non-NaN input, signed zeros included.
func (w *World) solveContacts(lo, hi int, useBias bool, soft softness, invH float64) {
	bodies, heads, constraints := w.scratch.bodies, w.scratch.heads, w.scratch.constraints
	maxPush := -w.cfg.MaxDepenetrationVelocity
	for ki := lo; ki < hi; ki++ {
		h := &heads[ki]
		a, b := &bodies[h.a], &bodies[h.b]
		n := h.normal
		// How far the points moved apart along the normal since the start
		// of the step: the bodies' relative displacement, the same for every
		// point, plus each point's share of their rotations.
		moved := n.Dot(b.dp.Sub(a.dp))
		if !h.held { // the apart test (apartMargin)
			s := h.minSeparation + moved - float64(h.maxJB*b.dqSum) - float64(h.maxJA*a.dqSum)
			if s > apartMargin {
				vn := n.Dot(b.v.Sub(a.v)) - float64(h.maxJB*sumAbs(b.w)) - float64(h.maxJA*sumAbs(a.w))
				if vn+float64(s*invH) > apartMargin {
					continue
				}
			}
		}
		k := &constraints[ki]
		if !h.ready {
			w.finish(h, k)
		}
		if h.a == 0 {
			k.solveOnStatic(h, b, moved, useBias, soft, invH, maxPush)
			continue
		}
		va, wa, vb, wb := a.v, a.w, b.v, b.w
		mA, mB := a.invMass, b.invMass
		total := 0.0 // normal impulse of the manifold
		dqA, dqB := a.dq, b.dq
		for p := range k.points[:h.count] {
			pt := &k.points[p]
			s := pt.separation + moved + pt.n.jB.Dot(dqB) - pt.n.jA.Dot(dqA)
			bias, massScale, impulseScale := pointBias(s, useBias, soft, invH, maxPush)
			vn := n.Dot(vb.Sub(va)) + pt.n.jB.Dot(wb) - pt.n.jA.Dot(wa)
			impulse := -float64(float64(pt.n.mass*massScale)*(vn+bias)) - float64(impulseScale*pt.imp)
			acc := pt.imp + impulse
			if !(acc > 0) { // max(acc, 0)
				acc = 0
			}
			total += acc
			if acc == pt.imp {
				continue // typically a speculative point that stays apart
			}
			d := acc - pt.imp
			va = va.MulAdd(-float64(d*mA), n)
			wa = wa.MulAdd(-d, pt.n.iA)
			vb = vb.MulAdd(float64(d*mB), n)
			wb = wb.MulAdd(d, pt.n.iB)
			pt.imp = acc
			if acc > 0 {
				k.pushed |= 1 << p
			}
		}
		// Patch friction: the tangent impulse stays inside the Coulomb
		// circle of radius μ·Σλn, the twist within μ·Σλn·radius. A manifold
		// without load and without friction to undo (a speculative one,
		// typically) has nothing to do.
		limit := float64(k.friction * total)
		if limit == 0 && (k.fimp == patchImpulse{}) {
			a.v, a.w = va, wa // h.a is not the dummy here
			if h.b != 0 {
				b.v, b.w = vb, wb
			}
			h.held = total != 0
			continue
		}
		dv := vb.Sub(va)
		v1 := k.t1.Dot(dv) + k.ft1.jB.Dot(wb) - k.ft1.jA.Dot(wa)
		v2 := k.t2.Dot(dv) + k.ft2.jB.Dot(wb) - k.ft2.jA.Dot(wa)
		n1, n2 := k.patchFriction(v1, v2, limit)
		d1, d2 := n1-k.fimp.t1, n2-k.fimp.t2
		va = va.MulAdd(-float64(d1*mA), k.t1)
		wa = wa.MulAdd(-d1, k.ft1.iA)
		vb = vb.MulAdd(float64(d1*mB), k.t1)
		wb = wb.MulAdd(d1, k.ft1.iB)
		va = va.MulAdd(-float64(d2*mA), k.t2)
		wa = wa.MulAdd(-d2, k.ft2.iA)
		vb = vb.MulAdd(float64(d2*mB), k.t2)
		wb = wb.MulAdd(d2, k.ft2.iB)
		k.fimp.t1, k.fimp.t2 = n1, n2
		twistLimit := float64(limit * k.twistRadius)
		vt := k.twist.jB.Dot(wb) - k.twist.jA.Dot(wa)
		nt := k.fimp.twist - float64(k.twist.mass*vt)
		if nt > twistLimit { // min(nt, twistLimit), twistLimit >= +0
			nt = twistLimit
		}
		if nt < -twistLimit { // max(-twistLimit, nt)
			nt = -twistLimit
		}
		// The twist row is angular only: its linear part is the zero vector.
		dt := nt - k.fimp.twist
		va = va.MulAdd(-float64(dt*mA), vecmath.Vec3{})
		wa = wa.MulAdd(-dt, k.twist.iA)
		vb = vb.MulAdd(float64(dt*mB), vecmath.Vec3{})
		wb = wb.MulAdd(dt, k.twist.iB)
		k.fimp.twist = nt
		h.held = total != 0 || k.fimp != (patchImpulse{})
		a.v, a.w = va, wa
		if h.b != 0 { // as bodyPair.store
			b.v, b.w = vb, wb
		}
	}
}

// pointBias is the bias of a contact point's normal row at separation s,
// and the scales of its mass and of its accumulated impulse: a speculative
// point (s > 0) closes its gap, no more; a touching one, with useBias, is
// pushed out softly, no faster than maxPush (negative).
func pointBias(s float64, useBias bool, soft softness, invH, maxPush float64) (bias, massScale, impulseScale float64) {
	massScale = 1
	if s > 0 {
		bias = float64(s * invH)
	} else if useBias {
		bias = float64(soft.biasRate * s)
		if !(bias >= maxPush) { // max(bias, maxPush)
			bias = maxPush
		}
		massScale, impulseScale = soft.massScale, soft.impulseScale
	}
	return bias, massScale, impulseScale
}

// patchFriction is the patch's accumulated tangent impulse after a pass
// at tangent velocities v1 and v2, kept inside the Coulomb circle of
// radius limit.
func (k *constraint) patchFriction(v1, v2, limit float64) (n1, n2 float64) {
	n1 = k.fimp.t1 - float64(k.ft1.mass*v1)
	n2 = k.fimp.t2 - float64(k.ft2.mass*v2)
	if l2 := float64(n1*n1) + float64(n2*n2); l2 > float64(limit*limit) {
		f := 0.0
		if l2 > 0 {
			f = limit / math.Sqrt(l2)
		}
		n1, n2 = float64(n1*f), float64(n2*f)
	}
	return n1, n2
}

// solveOnStatic is solveContacts' pass over a manifold whose body a is the
// static dummy (the ground, a sleeping or static body; a is the lower slot
// of the pair, and the ground is usually slot 0): the same rows without
// the terms of a, whose velocities and displacements are zero and stay
// so. Half of the pass's arithmetic and a third of its live registers go,
// and ground contacts are every manifold of a grid of boxes on the floor.
func (k *constraint) solveOnStatic(h *constraintHead, b *solverBody, moved float64, useBias bool, soft softness, invH, maxPush float64) {
	vb, wb, mB, dqB, n := b.v, b.w, b.invMass, b.dq, h.normal
	total := 0.0
	for p := range k.points[:h.count] {
		pt := &k.points[p]
		s := pt.separation + moved + pt.n.jB.Dot(dqB)
		bias, massScale, impulseScale := pointBias(s, useBias, soft, invH, maxPush)
		vn := n.Dot(vb) + pt.n.jB.Dot(wb)
		impulse := -float64(float64(pt.n.mass*massScale)*(vn+bias)) - float64(impulseScale*pt.imp)
		acc := pt.imp + impulse
		if !(acc > 0) {
			acc = 0
		}
		total += acc
		if acc == pt.imp {
			continue
		}
		d := acc - pt.imp
		vb = vb.MulAdd(float64(d*mB), n)
		wb = wb.MulAdd(d, pt.n.iB)
		pt.imp = acc
		if acc > 0 {
			k.pushed |= 1 << p
		}
	}
	limit := float64(k.friction * total)
	if limit == 0 && (k.fimp == patchImpulse{}) {
		b.v, b.w = vb, wb
		h.held = total != 0
		return
	}
	v1 := k.t1.Dot(vb) + k.ft1.jB.Dot(wb)
	v2 := k.t2.Dot(vb) + k.ft2.jB.Dot(wb)
	n1, n2 := k.patchFriction(v1, v2, limit)
	d1, d2 := n1-k.fimp.t1, n2-k.fimp.t2
	vb = vb.MulAdd(float64(d1*mB), k.t1)
	wb = wb.MulAdd(d1, k.ft1.iB)
	vb = vb.MulAdd(float64(d2*mB), k.t2)
	wb = wb.MulAdd(d2, k.ft2.iB)
	k.fimp.t1, k.fimp.t2 = n1, n2
	twistLimit := float64(limit * k.twistRadius)
	nt := k.fimp.twist - float64(k.twist.mass*k.twist.jB.Dot(wb))
	if nt > twistLimit {
		nt = twistLimit
	}
	if nt < -twistLimit {
		nt = -twistLimit
	}
	wb = wb.MulAdd(nt-k.fimp.twist, k.twist.iB)
	k.fimp.twist = nt
	h.held = total != 0 || k.fimp != (patchImpulse{})
	b.v, b.w = vb, wb
}

// applyRestitution makes the points of constraints [lo, hi) that
// approached faster than the threshold bounce with the pair's restitution.
func (w *World) applyRestitution(lo, hi int) {
	bodies := w.scratch.bodies
	threshold := w.cfg.RestitutionThreshold
	for ki := lo; ki < hi; ki++ {
		h := &w.scratch.heads[ki]
		if !h.ready { // no impulse this step
			continue
		}
		k := &w.scratch.constraints[ki]
		if k.restitution == 0 {
			continue
		}
		a, b := &bodies[h.a], &bodies[h.b]
		bp := loadPair(a, b)
		for p := range k.points[:h.count] {
			pt := &k.points[p]
			if k.approach[p] > -threshold || k.pushed&(1<<p) == 0 {
				continue
			}
			vn := pt.n.vel(h.normal, bp.va, bp.wa, bp.vb, bp.wb)
			acc := max(pt.imp-float64(pt.n.mass*(vn+float64(k.restitution*k.approach[p]))), 0)
			pt.n.apply(h.normal, acc-pt.imp, &bp)
			pt.imp = acc
		}
		bp.store(h, a, b)
	}
}

// storeImpulses keeps the accumulated impulses of constraints [lo, hi)
// for the next step's warm start. A constraint never finished took no
// impulse: its contact holds them already.
func (w *World) storeImpulses(lo, hi int) {
	for ki := lo; ki < hi; ki++ {
		h := &w.scratch.heads[ki]
		if !h.ready {
			continue
		}
		k := &w.scratch.constraints[ki]
		c := &w.contacts[k.contact]
		for p := range k.points[:h.count] {
			c.imp[p] = float32(k.points[p].imp)
		}
		c.storePatch(k.fimp)
	}
}
