package collide

import (
	"math"

	"github.com/netphys/netphys/vecmath"
)

// segmentBoxClosest returns the closest points of the segment q0–q1 and the
// solid box [-h, h], both in box coordinates, and the squared distance
// between them.
//
// The squared distance from q(t) = q0 + t·(q1-q0) to the box is
// Σᵢ max(|qᵢ(t)| - hᵢ, 0)², a convex function of t that is quadratic
// between the (at most six) parameters where the segment crosses a slab
// boundary. Minimizing each quadratic piece in closed form gives the exact
// answer in a few dozen flops, with no iteration and no tolerance.
func segmentBoxClosest(q0, q1, h vecmath.Vec3) (segPt, boxPt vecmath.Vec3, distSq float64) {
	d := q1.Sub(q0)
	var ts [8]float64
	ts[0], ts[1] = 0, 1
	n := 2
	for i := range 3 {
		di, qi, hx := d.Comp(i), q0.Comp(i), h.Comp(i)
		if di == 0 {
			continue
		}
		for _, bound := range [2]float64{-hx, hx} {
			if c := (bound - qi) / di; c > 0 && c < 1 {
				ts[n] = c
				n++
			}
		}
	}
	// Insertion sort: at most eight values.
	for i := 1; i < n; i++ {
		for k := i; k > 0 && ts[k] < ts[k-1]; k-- {
			ts[k], ts[k-1] = ts[k-1], ts[k]
		}
	}
	distSq = math.Inf(1)
	for k := range n - 1 {
		lo, hi := ts[k], ts[k+1]
		mid := q0.MulAdd(0.5*(lo+hi), d)
		// On this piece each axis is above, below or inside its slab; the
		// active axes contribute (aᵢ + t·dᵢ)².
		var num, den float64
		for i := range 3 {
			di, hx := d.Comp(i), h.Comp(i)
			var a float64
			switch p := mid.Comp(i); {
			case p > hx:
				a = q0.Comp(i) - hx
			case p < -hx:
				a = q0.Comp(i) + hx
			default:
				continue
			}
			num += float64(a * di)
			den += float64(di * di)
		}
		tt := lo
		if den > 0 {
			tt = clamp(-num/den, lo, hi)
		}
		p := q0.MulAdd(tt, d)
		c := clampBox(p, h)
		if ds := p.Sub(c).LengthSq(); ds < distSq {
			segPt, boxPt, distSq = p, c, ds
		}
	}
	return segPt, boxPt, distSq
}
