package physics

import (
	"math"
	"slices"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// The broadphase finds the pairs of bodies whose fattened bounding boxes
// overlap, in a deterministic order, with two uniform grids hashed into
// flat tables:
//
//   - the rest grid holds static and sleeping bodies. They do not move, so
//     it is rebuilt only when one of them is added, removed, moved, put to
//     sleep or woken (restDirty): resting bodies cost nothing per step;
//   - the awake grid holds the moving bodies, each by an enlarged box that
//     it keeps while its bounds stay inside (Box2D's fat AABBs), and is
//     rebuilt by a counting sort, O(awake bodies), in the steps where a
//     body left its box.
//
// Only the awake bodies that left their box are looked up in both grids;
// the pairs of overlapping boxes they find are kept (potential), and each
// step those whose bounds overlap are the candidate pairs. Bodies that
// would cover more than maxCells cells (a huge floor box) and planes,
// which are unbounded, go to "large" lists tested against every awake body
// instead. A pair met in several cells is kept only in the cell where the
// overlap of the two boxes begins, and the final pair list is sorted by
// slot: the order never depends on hashing.
//
// A uniform grid beats sort-and-sweep for the scenes netphys is made for
// (grids and stacks of similar boxes, where one sweep axis sees dozens of
// false overlaps per body) and, unlike a dynamic tree, needs no balancing
// whose shape would depend on insertion history.
type broadphase struct {
	cellSize, invCell float64
	restDirty         bool

	rest, awake           grid
	restLarge, awakeLarge []int32
	restSlots, awakeSlots []int32

	// Per slot: fattened bounds and how far the body can travel in this
	// step (m), which widens its contact margin.
	lo, hi []vecmath.Vec3
	reach  []float64
	// Per slot: the cell range of the bounds, and whether two of those
	// cells share a bucket of the body's grid (see copies).
	boundsMin, boundsMax [][3]int32
	twin                 []bool
	awakeMask            uint32 // of the awake grid a lookup of the bounds would build

	// Per slot: the enlarged box the grids hold (for a resting body, its
	// bounds) and its cell range. An awake body keeps its box while its
	// bounds stay inside; requeried marks the bodies that got a new one
	// this step.
	boxLo, boxHi []vecmath.Vec3
	cmin, cmax   [][3]int32
	requeried    []bool

	// potential holds the sorted pairs of the grids whose enlarged boxes
	// overlap; the candidate pairs are those of them whose bounds overlap.
	// gridSlots is awakeSlots of the step that built it.
	potential []uint64
	gridSlots []int32
	// Scratch of updatePairs: the bodies given a new box, the pairs found
	// from their lower slot (pairs, kept sorted) and from their higher slot
	// (back), and the other buffer of a merge.
	moved               []int32
	pairs, back, merged []uint64
}

// maxCells is the most grid cells a body may cover before it is treated
// as large.
const maxCells = 64

// cellLimit keeps cell coordinates far from int32 overflow.
const cellLimit = 1 << 24

type grid struct {
	mask  uint32
	start []int32 // items of bucket h are items[start[h]:start[h+1]]
	items []int32
	hash  []uint32 // scratch: bucket of each (hash, slot) entry
	slot  []int32
}

func (b *broadphase) init(cellSize float64) {
	b.cellSize, b.invCell = cellSize, 1/cellSize
	b.restDirty = true
}

func pairKey(a, b int32) uint64 { return uint64(a)<<32 | uint64(b) }

func pairSlots(k uint64) (a, b int32) { return int32(k >> 32), int32(uint32(k)) }

func cellHash(x, y, z int32) uint32 {
	return uint32(x)*73856093 ^ uint32(y)*19349663 ^ uint32(z)*83492791
}

func (b *broadphase) grow(n int) {
	for len(b.lo) < n {
		b.lo = append(b.lo, vecmath.Vec3{})
		b.hi = append(b.hi, vecmath.Vec3{})
		b.boxLo = append(b.boxLo, vecmath.Vec3{})
		b.boxHi = append(b.boxHi, vecmath.Vec3{})
		b.cmin = append(b.cmin, [3]int32{})
		b.cmax = append(b.cmax, [3]int32{})
		b.requeried = append(b.requeried, false)
		b.boundsMin = append(b.boundsMin, [3]int32{})
		b.boundsMax = append(b.boundsMax, [3]int32{})
		b.twin = append(b.twin, false)
		b.reach = append(b.reach, 0)
	}
}

func (b *broadphase) cell(x float64) int32 {
	c := math.Floor(x * b.invCell)
	return int32(max(-cellLimit, min(cellLimit, c)))
}

// setBounds stores the bounds of slot i grown by pad on every side and
// their cell range, and returns the number of cells and whether the body
// fits the grid.
func (b *broadphase) setBounds(i int32, s *collide.Shape, xf vecmath.Transform, pad float64) (int, bool) {
	lo, hi, ok := s.Bounds(xf)
	if !ok {
		return 0, false
	}
	p := vecmath.V3(pad, pad, pad)
	lo, hi = lo.Sub(p), hi.Add(p)
	b.lo[i], b.hi[i] = lo, hi
	c0 := [3]int32{b.cell(lo.X), b.cell(lo.Y), b.cell(lo.Z)}
	c1 := [3]int32{b.cell(hi.X), b.cell(hi.Y), b.cell(hi.Z)}
	b.boundsMin[i], b.boundsMax[i] = c0, c1
	n := int64(1)
	for k := range 3 {
		n *= int64(c1[k]-c0[k]) + 1
	}
	return int(n), n <= maxCells
}

// bucketCount is the number of buckets of a grid of n entries.
func bucketCount(n int) int {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return size
}

// twinCells reports whether two cells of slot i's bounds fall in the same
// bucket of a grid with the mask.
func (b *broadphase) twinCells(i int32, mask uint32) bool {
	c0, c1 := b.boundsMin[i], b.boundsMax[i]
	var seen [maxCells]uint32
	n := 0
	for x := c0[0]; x <= c1[0]; x++ {
		for y := c0[1]; y <= c1[1]; y++ {
			for z := c0[2]; z <= c1[2]; z++ {
				h := cellHash(x, y, z) & mask
				if slices.Contains(seen[:n], h) {
					return true
				}
				seen[n], n = h, n+1
			}
		}
	}
	return false
}

// copies is how many times a lookup of every awake body's bounds cell by
// cell in the grids meets the pair of queried body a and grid body c: in
// the cell where the overlap of their cell ranges begins, once per cell
// of c in that cell's bucket. It is more than once when two of c's cells
// share a bucket; the broadphase reported such pairs that many times
// before it kept boxes, and the contacts, hence the results, depend on it.
func (b *broadphase) copies(a, c int32, mask uint32) int {
	m, c0, c1 := b.boundsMin[a], b.boundsMin[c], b.boundsMax[c]
	begin := cellHash(max(m[0], c0[0]), max(m[1], c0[1]), max(m[2], c0[2])) & mask
	n := 0
	for x := c0[0]; x <= c1[0]; x++ {
		for y := c0[1]; y <= c1[1]; y++ {
			for z := c0[2]; z <= c1[2]; z++ {
				if cellHash(x, y, z)&mask == begin {
					n++
				}
			}
		}
	}
	return n
}

// appendCopies appends the further copies of candidate pair k (copies).
func (w *World) appendCopies(k uint64) {
	b := &w.broad
	a, c := pairSlots(k)
	mask := b.awakeMask
	switch {
	case w.info[a].asleep:
		a, c, mask = c, a, b.rest.mask
	case w.info[c].asleep:
		mask = b.rest.mask
	}
	for range b.copies(a, c, mask) - 1 {
		b.pairs = append(b.pairs, k)
	}
}

// setBox gives slot i the box of its bounds grown by margin on every side.
func (b *broadphase) setBox(i int32, margin float64) {
	p := vecmath.V3(margin, margin, margin)
	lo, hi := b.lo[i].Sub(p), b.hi[i].Add(p)
	b.boxLo[i], b.boxHi[i] = lo, hi
	b.cmin[i] = [3]int32{b.cell(lo.X), b.cell(lo.Y), b.cell(lo.Z)}
	b.cmax[i] = [3]int32{b.cell(hi.X), b.cell(hi.Y), b.cell(hi.Z)}
}

// inBox reports whether slot i's bounds lie within its box.
func (b *broadphase) inBox(i int32) bool {
	lo, hi, bl, bh := b.lo[i], b.hi[i], b.boxLo[i], b.boxHi[i]
	return bl.X <= lo.X && bl.Y <= lo.Y && bl.Z <= lo.Z && hi.X <= bh.X && hi.Y <= bh.Y && hi.Z <= bh.Z
}

// build fills g with the slots, each in every cell its bounds cover.
func (g *grid) build(b *broadphase, slots []int32) {
	g.hash, g.slot = g.hash[:0], g.slot[:0]
	for _, s := range slots {
		c0, c1 := b.cmin[s], b.cmax[s]
		for x := c0[0]; x <= c1[0]; x++ {
			for y := c0[1]; y <= c1[1]; y++ {
				for z := c0[2]; z <= c1[2]; z++ {
					g.hash = append(g.hash, cellHash(x, y, z))
					g.slot = append(g.slot, s)
				}
			}
		}
	}
	size := bucketCount(len(g.slot))
	g.mask = uint32(size - 1)
	g.start = slices.Grow(g.start[:0], size+1)[:size+1]
	clear(g.start)
	for k := range g.hash {
		g.hash[k] &= g.mask
		g.start[g.hash[k]+1]++
	}
	for h := 1; h <= size; h++ {
		g.start[h] += g.start[h-1]
	}
	g.items = slices.Grow(g.items[:0], len(g.slot))[:len(g.slot)]
	// Fill back to front so that each bucket keeps slot order.
	for k := len(g.slot) - 1; k >= 0; k-- {
		h := g.hash[k] + 1
		g.start[h]--
		g.items[g.start[h]] = g.slot[k]
	}
	// start[h+1] now points at bucket h's first item; shift back.
	copy(g.start, g.start[1:])
	g.start[size] = int32(len(g.items))
}

// overlaps reports whether the bounds of slots a and c overlap.
func (b *broadphase) overlaps(a, c int32) bool {
	la, ha, lc, hc := b.lo[a], b.hi[a], b.lo[c], b.hi[c]
	return la.X <= hc.X && lc.X <= ha.X && la.Y <= hc.Y && lc.Y <= ha.Y && la.Z <= hc.Z && lc.Z <= ha.Z
}

// queryGrid adds the pairs of awake slot a with the bodies of g whose
// boxes overlap a's, but those with another requeried body of lower slot,
// which that body's query finds. a's box and first cell are held in
// locals: the compiler cannot keep them in registers across the appends
// otherwise.
func (w *World) queryGrid(g *grid, a int32) {
	b := &w.broad
	c0, c1 := b.cmin[a], b.cmax[a]
	la, ha := b.boxLo[a], b.boxHi[a]
	for x := c0[0]; x <= c1[0]; x++ {
		for y := c0[1]; y <= c1[1]; y++ {
			for z := c0[2]; z <= c1[2]; z++ {
				h := cellHash(x, y, z) & g.mask
				for _, c := range g.items[g.start[h]:g.start[h+1]] {
					if c == a || (c < a && b.requeried[c]) {
						continue
					}
					lc, hc := &b.boxLo[c], &b.boxHi[c]
					if !(la.X <= hc.X && lc.X <= ha.X && la.Y <= hc.Y && lc.Y <= ha.Y && la.Z <= hc.Z && lc.Z <= ha.Z) {
						continue
					}
					// Keep the pair only in the cell where the overlap of
					// the two cell ranges begins, so it is found once.
					mc := &b.cmin[c]
					if x != max(c0[0], mc[0]) || y != max(c0[1], mc[1]) || z != max(c0[2], mc[2]) {
						continue
					}
					if !w.mayCollide(a, c) {
						continue
					}
					// From the lower slot the pairs come out in order but
					// for the few of one body; the others are sorted apart.
					if a < c {
						b.pairs = append(b.pairs, pairKey(a, c))
					} else {
						b.back = append(b.back, pairKey(c, a))
					}
				}
			}
		}
	}
}

// mayCollide reports whether the bodies in slots a and c may collide at
// all: one of them dynamic, and each in a layer the other's mask accepts.
func (w *World) mayCollide(a, c int32) bool {
	ia, ic := &w.info[a], &w.info[c]
	if ia.typ != Dynamic && ic.typ != Dynamic {
		return false
	}
	return ia.layers&ic.mask != 0 && ic.layers&ia.mask != 0
}

// addLargePair appends the pair of a and large body l to back if they
// touch and may collide.
func (w *World) addLargePair(a, l int32, touches bool) {
	if !touches || !w.mayCollide(a, l) {
		return
	}
	b := &w.broad
	b.back = append(b.back, pairKey(min(a, l), max(a, l)))
}

// insertionSort sorts the few pairs of one awake body.
func insertionSort(s []uint64) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// touchesLarge reports whether slot a's bounds meet large body l.
func (w *World) touchesLarge(a, l int32) bool {
	b := &w.broad
	if w.info[l].shape.Kind != collide.Plane {
		return b.overlaps(a, l)
	}
	n := w.rot[l].Rotate(vecmath.Vec3{Y: 1})
	c := b.lo[a].Add(b.hi[a]).Scale(0.5)
	e := b.hi[a].Sub(b.lo[a]).Scale(0.5)
	an := n.Abs()
	return n.Dot(c.Sub(w.pos[l])) < an.Dot(e)
}

// boxMargin (m) and boxReach (steps of travel) size the box of an awake
// body: the larger, the fewer steps in which a body leaves its box and is
// queried again, and the more pairs of boxes to test each step.
const (
	boxMargin = 0.05
	boxReach  = 4
)

// updatePairs refreshes the bounds and fills broad.pairs with every
// candidate pair that has at least one awake body, sorted.
//
// Only the awake bodies whose bounds left their box are looked up in the
// grids (Box2D's enlarged AABBs); each step the potential pairs of the
// boxes are filtered with the bounds, which gives the pairs a lookup of
// every body would: the boxes hold the bounds, so two overlapping bounds
// have overlapping boxes, and every such pair of boxes is in potential
// since the later of the two boxes was made. Any change to the resting
// bodies or to the set of awake bodies (creation, destruction, sleep,
// wake, SetState, Restore) queries every awake body again.
func (w *World) updatePairs() {
	b := &w.broad
	b.grow(len(w.info))
	h := w.cfg.TimeStep
	half := float64(w.cfg.ContactMargin * 0.5)
	fall := float64(w.cfg.Gravity.Length() * h)
	rebuild := b.restDirty
	if b.restDirty {
		b.restDirty = false
		b.restSlots, b.restLarge = b.restSlots[:0], b.restLarge[:0]
		for i := range w.info {
			in := &w.info[i]
			if !in.live || !in.asleep {
				continue
			}
			s := int32(i)
			b.reach[s] = 0
			if _, ok := b.setBounds(s, &in.shape, vecmath.Transform{Pos: w.pos[s], Rot: w.rot[s]}, half); ok {
				b.setBox(s, 0)
				b.restSlots = append(b.restSlots, s)
			} else {
				b.restLarge = append(b.restLarge, s)
			}
		}
		b.rest.build(b, b.restSlots)
		for _, s := range b.restSlots {
			b.twin[s] = b.twinCells(s, b.rest.mask)
		}
	}
	b.awakeSlots, b.awakeLarge = b.awakeSlots[:0], b.awakeLarge[:0]
	cells := 0
	for _, s := range w.scratch.awake {
		in := &w.info[s]
		speed := w.linVel[s].Length() + float64(w.angVel[s].Length()*in.radius)
		if in.typ == Dynamic {
			speed += fall
		}
		b.reach[s] = float64(speed * h)
		if n, ok := b.setBounds(s, &in.shape, vecmath.Transform{Pos: w.pos[s], Rot: w.rot[s]}, half+b.reach[s]); ok {
			b.awakeSlots = append(b.awakeSlots, s)
			cells += n
		} else {
			b.awakeLarge = append(b.awakeLarge, s)
		}
	}
	b.awakeMask = uint32(bucketCount(cells) - 1)
	for _, s := range b.awakeSlots {
		b.twin[s] = b.twinCells(s, b.awakeMask)
	}
	if rebuild || !slices.Equal(b.awakeSlots, b.gridSlots) {
		rebuild = true
		b.gridSlots = append(b.gridSlots[:0], b.awakeSlots...)
		b.potential = b.potential[:0]
	}
	b.moved = b.moved[:0]
	for _, s := range b.awakeSlots {
		if rebuild || !b.inBox(s) {
			b.setBox(s, boxMargin+float64(boxReach*b.reach[s]))
			b.requeried[s] = true
			b.moved = append(b.moved, s)
		}
	}
	if len(b.moved) > 0 {
		w.requery()
	}
	b.pairs, b.back = b.pairs[:0], b.back[:0]
	for _, k := range b.potential {
		a, c := pairSlots(k)
		if !b.overlaps(a, c) {
			continue
		}
		b.pairs = append(b.pairs, k)
		if b.twin[a] || b.twin[c] {
			w.appendCopies(k)
		}
	}
	if len(b.restLarge) == 0 && len(b.awakeLarge) == 0 {
		return
	}
	for _, a := range b.awakeSlots {
		for _, l := range b.restLarge {
			w.addLargePair(a, l, w.touchesLarge(a, l))
		}
		for _, l := range b.awakeLarge {
			w.addLargePair(a, l, w.touchesLarge(a, l))
		}
	}
	// Large awake bodies (rare) meet the rest of the world by brute force.
	for k, a := range b.awakeLarge {
		for _, lists := range [][]int32{b.restSlots, b.restLarge, b.awakeLarge[k+1:]} {
			for _, c := range lists {
				w.addLargePair(a, c, w.touchesLargePair(a, c))
			}
		}
	}
	slices.Sort(b.back)
	b.merged = mergePairs(b.merged[:0], b.pairs, b.back)
	b.pairs, b.merged = b.merged, b.pairs
}

// requery rebuilds the awake grid with the new boxes, looks the moved
// bodies up in both grids and replaces their potential pairs with those
// found. The bodies are queried in slot order, so the pairs in which the
// queried body is the lower slot come out sorted but for the order within
// one body's few pairs; the others (with a resting body of lower slot,
// the ground first of all) are sorted apart and merged: a full sort of
// every pair took 8 % of an awake step.
func (w *World) requery() {
	b := &w.broad
	b.awake.build(b, b.awakeSlots)
	b.pairs, b.back = b.pairs[:0], b.back[:0]
	for _, a := range b.moved {
		first := len(b.pairs)
		w.queryGrid(&b.awake, a)
		w.queryGrid(&b.rest, a)
		insertionSort(b.pairs[first:])
	}
	slices.Sort(b.back)
	found := mergePairs(b.merged[:0], b.pairs, b.back)
	// Two cells of a box may share a hash bucket, where the query meets
	// the body twice.
	found = slices.Compact(found)
	kept := b.potential[:0]
	for _, k := range b.potential {
		if a, c := pairSlots(k); !b.requeried[a] && !b.requeried[c] {
			kept = append(kept, k)
		}
	}
	b.pairs, b.potential = b.potential, mergePairs(b.pairs[:0], kept, found)
	b.merged = found
	for _, a := range b.moved {
		b.requeried[a] = false
	}
}

// mergePairs appends the union of the sorted lists a and c to dst.
func mergePairs(dst, a, c []uint64) []uint64 {
	for len(a) > 0 && len(c) > 0 {
		if a[0] < c[0] {
			dst, a = append(dst, a[0]), a[1:]
		} else {
			dst, c = append(dst, c[0]), c[1:]
		}
	}
	dst = append(dst, a...)
	return append(dst, c...)
}

// touchesLargePair tests two bodies of which at least the first is large.
func (w *World) touchesLargePair(a, c int32) bool {
	pa, pc := w.info[a].shape.Kind == collide.Plane, w.info[c].shape.Kind == collide.Plane
	switch {
	case pa && pc:
		return false
	case pa:
		return w.touchesLarge(c, a)
	default:
		return w.touchesLarge(a, c)
	}
}
