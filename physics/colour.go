package physics

// Graph colouring of the contact constraints, as in Box2D v3
// (solver_set.c, constraint_graph.c): the parallel step (Config.Workers
// >= 1) gives each constraint the first of maxColours colours in which
// neither of its bodies has a constraint yet. The static dummy (static and
// sleeping bodies, solver index 0) does not count: the solver never writes
// it. Within a colour no two constraints share a body, so a pass may solve
// them in any order, on any worker, and every body still receives its
// impulses in the same order: colour by colour. A constraint that finds no
// free colour goes to the overflow, which one worker solves after the
// colours, in contact order. The constraints are stored colour after
// colour (in contact order within each), so that a pass sweeps them in
// memory order.
//
// The visiting order is not the sequential step's (Workers = 0, contact
// order), so the two modes give different, each deterministic, results.
// With the few passes of the soft step the order matters: scene C's stack
// stays livelier in colour order, its pair caches hold less often, and
// one worker takes 43 % longer than the sequential step
// (docs/physics.md, "The parallel step").
//
// Rejected: colouring bodies instead of constraints (Jacobi between
// colours converges slower), and recolouring incrementally as Box2D v3
// does when contacts begin and end (the colouring here is a cheap
// sequential pass over the active contacts, bitsets in L1, and a
// persistent colouring would have to be part of a Snapshot).

// maxColours is the number of graph colours; the rest is overflow. Box2D
// v3 uses 24 (B2_GRAPH_COLOR_COUNT); a 9-high stack like scene C's takes
// 23, the last ones small.
const maxColours = 24

// colouring is the per-step layout of the constraints.
type colouring struct {
	slot   []int32 // per active contact: its index in constraints, -1 if it has none
	colour []uint8 // per active contact: colour, maxColours for the overflow
	// start[c] is the first constraint of colour c; colour c ends at
	// start[c+1]; the overflow runs from start[maxColours] to the end.
	start [maxColours + 2]int32
	used  [maxColours][]uint64 // per colour: bitset of the solver bodies it holds
	// bounce says that a constraint has restitution: otherwise the
	// restitution pass is skipped (it would change nothing).
	bounce bool
}

// reserve reserves the per-contact arrays and the bitsets for n bodies
// (World.reserve).
func (g *colouring) reserve(n int) {
	g.slot = reserveSlice(g.slot, manifoldPerBody*n)
	g.colour = reserveSlice(g.colour, manifoldPerBody*n)
	for c := range g.used {
		g.used[c] = reserveSlice(g.used[c], (n+1+63)/64)
	}
}

// colourConstraints decides which active contacts become constraints and
// where each is stored: in contact order for the sequential step, colour
// by colour for the parallel one. prepareContacts then fills them.
func (w *World) colourConstraints() {
	s, g := &w.scratch, &w.scratch.colouring
	g.slot = resize(g.slot, len(w.contacts))
	g.colour = resize(g.colour, len(w.contacts))
	parallel := w.cfg.Workers > 0
	words := (len(s.bodies) + 63) / 64
	if parallel {
		for c := range g.used {
			g.used[c] = resize(g.used[c], words)
			clear(g.used[c])
		}
	}
	var count [maxColours + 1]int32
	g.bounce = false
	for ci := range w.contacts {
		ca, cb := pairSlots(w.contacts[ci].key)
		ia, ib := s.index[ca], s.index[cb]
		if s.bodies[ia].invMass == 0 && s.bodies[ib].invMass == 0 {
			g.slot[ci] = -1
			continue
		}
		g.slot[ci] = 0
		g.bounce = g.bounce || w.narrow.touch[ci].restitution != 0
		c := maxColours
		if parallel {
			c = g.pick(ia, ib)
		}
		g.colour[ci] = uint8(c)
		count[c]++
	}
	g.start[0] = 0
	for c := range maxColours + 1 {
		g.start[c+1] = g.start[c] + count[c]
	}
	next := g.start
	for ci := range w.contacts {
		if g.slot[ci] < 0 {
			continue
		}
		c := g.colour[ci]
		g.slot[ci] = next[c]
		next[c]++
	}
	n := int(g.start[maxColours+1])
	// prepareContacts writes every field that is read: nothing to clear.
	s.heads = resize(s.heads, n)
	s.constraints = resize(s.constraints, n)
}

// pick returns the first colour free for solver bodies a and b and takes
// it for them, or maxColours (the overflow) if none is.
func (g *colouring) pick(a, b int32) int {
	for c := range maxColours {
		u := g.used[c]
		if (a != 0 && u[a/64]&(1<<(a%64)) != 0) || (b != 0 && u[b/64]&(1<<(b%64)) != 0) {
			continue
		}
		if a != 0 {
			u[a/64] |= 1 << (a % 64)
		}
		if b != 0 {
			u[b/64] |= 1 << (b % 64)
		}
		return c
	}
	return maxColours
}

// constraintPass runs j (a warm start, solve, relax or restitution pass)
// over the constraints: colour by colour in parallel, then the overflow on
// the calling worker.
func (w *World) constraintPass(j job) {
	g := &w.scratch.colouring
	for c := range maxColours {
		if g.start[c] == g.start[c+1] {
			continue
		}
		j.lo, j.hi = int(g.start[c]), int(g.start[c+1])
		w.parallel(j, constraintBlock)
	}
	if lo, hi := int(g.start[maxColours]), int(g.start[maxColours+1]); lo < hi {
		w.runJob(&j, lo, hi)
	}
}
