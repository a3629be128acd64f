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
//   - the awake grid holds the moving bodies and is rebuilt every step by a
//     counting sort, O(awake bodies).
//
// Every awake body is looked up in both grids. Bodies that would cover
// more than maxCells cells (a huge floor box) and planes, which are
// unbounded, go to "large" lists tested against every awake body instead.
// A pair met in several cells is kept only in the cell where the overlap of
// the two boxes begins, so no pair is reported twice, and the final pair
// list is sorted by slot: the order never depends on hashing.
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

	// Per slot: fattened bounds, their cell range, and how far the body can
	// travel in this step (m), which widens its contact margin.
	lo, hi     []vecmath.Vec3
	cmin, cmax [][3]int32
	reach      []float64

	pairs []uint64 // sorted keys, pairKey(a, b) with a < b
	// Scratch of updatePairs: the pairs found from their higher slot, and
	// the other buffer of pairs for the merge.
	back, merged []uint64
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
		b.cmin = append(b.cmin, [3]int32{})
		b.cmax = append(b.cmax, [3]int32{})
		b.reach = append(b.reach, 0)
	}
}

func (b *broadphase) cell(x float64) int32 {
	c := math.Floor(x * b.invCell)
	return int32(max(-cellLimit, min(cellLimit, c)))
}

// setBounds stores the bounds of slot i grown by pad on every side and
// returns whether the body fits the grid.
func (b *broadphase) setBounds(i int32, s *collide.Shape, xf vecmath.Transform, pad float64) bool {
	lo, hi, ok := s.Bounds(xf)
	if !ok {
		return false
	}
	p := vecmath.V3(pad, pad, pad)
	b.lo[i], b.hi[i] = lo.Sub(p), hi.Add(p)
	b.cmin[i] = [3]int32{b.cell(b.lo[i].X), b.cell(b.lo[i].Y), b.cell(b.lo[i].Z)}
	b.cmax[i] = [3]int32{b.cell(b.hi[i].X), b.cell(b.hi[i].Y), b.cell(b.hi[i].Z)}
	n := int64(1)
	for k := range 3 {
		n *= int64(b.cmax[i][k]-b.cmin[i][k]) + 1
	}
	return n <= maxCells
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
	size := 16
	for size < 2*len(g.slot) {
		size *= 2
	}
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

// overlaps reports whether the stored bounds of slots a and b overlap.
func (b *broadphase) overlaps(a, c int32) bool {
	la, ha, lc, hc := b.lo[a], b.hi[a], b.lo[c], b.hi[c]
	return la.X <= hc.X && lc.X <= ha.X && la.Y <= hc.Y && lc.Y <= ha.Y && la.Z <= hc.Z && lc.Z <= ha.Z
}

// queryGrid appends the pairs of awake slot a with the bodies of g; with
// above set, only with slots above a (the awake grid, seen from both sides).
// a's bounds and first cell are held in locals: the compiler cannot keep
// them in registers across addPair's appends otherwise.
func (w *World) queryGrid(g *grid, a int32, above bool) {
	b := &w.broad
	c0, c1 := b.cmin[a], b.cmax[a]
	la, ha := b.lo[a], b.hi[a]
	for x := c0[0]; x <= c1[0]; x++ {
		for y := c0[1]; y <= c1[1]; y++ {
			for z := c0[2]; z <= c1[2]; z++ {
				h := cellHash(x, y, z) & g.mask
				for _, c := range g.items[g.start[h]:g.start[h+1]] {
					if (above && c <= a) || c == a {
						continue
					}
					lc, hc := &b.lo[c], &b.hi[c]
					if !(la.X <= hc.X && lc.X <= ha.X && la.Y <= hc.Y && lc.Y <= ha.Y && la.Z <= hc.Z && lc.Z <= ha.Z) {
						continue
					}
					// Keep the pair only in the cell where the overlap of
					// the two cell ranges begins, so it is found once.
					mc := &b.cmin[c]
					if x != max(c0[0], mc[0]) || y != max(c0[1], mc[1]) || z != max(c0[2], mc[2]) {
						continue
					}
					w.addPair(a, c)
				}
			}
		}
	}
}

// addPair appends the pair if the bodies may collide at all: to pairs if
// a, the body being queried, is the lower slot, else to back.
func (w *World) addPair(a, c int32) {
	ia, ic := &w.info[a], &w.info[c]
	if ia.typ != Dynamic && ic.typ != Dynamic {
		return
	}
	if ia.layers&ic.mask == 0 || ic.layers&ia.mask == 0 {
		return
	}
	b := &w.broad
	if a < c {
		b.pairs = append(b.pairs, pairKey(a, c))
	} else {
		b.back = append(b.back, pairKey(c, a))
	}
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

// updatePairs refreshes the grids and fills broad.pairs with every
// candidate pair that has at least one awake body, sorted.
func (w *World) updatePairs() {
	b := &w.broad
	b.grow(len(w.info))
	h := w.cfg.TimeStep
	half := float64(w.cfg.ContactMargin * 0.5)
	fall := float64(w.cfg.Gravity.Length() * h)
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
			if b.setBounds(s, &in.shape, vecmath.Transform{Pos: w.pos[s], Rot: w.rot[s]}, half) {
				b.restSlots = append(b.restSlots, s)
			} else {
				b.restLarge = append(b.restLarge, s)
			}
		}
		b.rest.build(b, b.restSlots)
	}
	b.awakeSlots, b.awakeLarge = b.awakeSlots[:0], b.awakeLarge[:0]
	for _, s := range w.scratch.awake {
		in := &w.info[s]
		speed := w.linVel[s].Length() + float64(w.angVel[s].Length()*in.radius)
		if in.typ == Dynamic {
			speed += fall
		}
		b.reach[s] = float64(speed * h)
		if b.setBounds(s, &in.shape, vecmath.Transform{Pos: w.pos[s], Rot: w.rot[s]}, half+b.reach[s]) {
			b.awakeSlots = append(b.awakeSlots, s)
		} else {
			b.awakeLarge = append(b.awakeLarge, s)
		}
	}
	b.awake.build(b, b.awakeSlots)
	// The awake bodies are queried in slot order, so the pairs in which
	// the queried body is the lower slot come out sorted but for the order
	// within one body's few pairs; the others (with a sleeping or static
	// body of lower slot, the ground first of all) go to back, sorted
	// apart and merged: a full sort of every pair took 8 % of an awake step.
	b.pairs, b.back = b.pairs[:0], b.back[:0]
	for _, a := range b.awakeSlots {
		first := len(b.pairs)
		w.queryGrid(&b.awake, a, true)
		w.queryGrid(&b.rest, a, false)
		for _, l := range b.restLarge {
			if w.touchesLarge(a, l) {
				w.addPair(a, l)
			}
		}
		for _, l := range b.awakeLarge {
			if w.touchesLarge(a, l) {
				w.addPair(a, l)
			}
		}
		insertionSort(b.pairs[first:])
	}
	// Pairs of large awake bodies (rare) go to back whatever their order.
	forward := len(b.pairs)
	// Large awake bodies (rare) meet the rest of the world by brute force.
	for k, a := range b.awakeLarge {
		for _, lists := range [][]int32{b.restSlots, b.restLarge, b.awakeLarge[k+1:]} {
			for _, c := range lists {
				if w.touchesLargePair(a, c) {
					w.addPair(a, c)
				}
			}
		}
	}
	b.back = append(b.back, b.pairs[forward:]...)
	slices.Sort(b.back)
	b.merged = mergePairs(b.merged[:0], b.pairs[:forward], b.back)
	b.pairs, b.merged = b.merged, b.pairs
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
