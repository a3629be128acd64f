package collide

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// TestSidesMatchClipAgainst checks what faceContact's shortcut rests on:
// for each side plane, sides reports a corner outside exactly when
// clipAgainst clips the polygon, and every corner outside exactly when the
// clip leaves nothing. Corners sit near the planes (a stack's faces lie
// within a hair of each other) and include NaN.
func TestSidesMatchClipAgainst(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	near := func(limit float64) float64 {
		switch rng.IntN(6) {
		case 0:
			return limit
		case 1:
			return -limit
		case 2:
			return math.NaN()
		}
		return float64(2*rng.Float64()-1) * float64(limit*1.5)
	}
	var cuts, empties, uncut int
	for iter := range 20000 {
		ku, kv := rng.IntN(3), rng.IntN(3)
		for kv == ku {
			kv = rng.IntN(3)
		}
		limU, limV := 0.5+rng.Float64(), 0.5+rng.Float64()
		var poly clipPolygon
		poly.n = 1 + rng.IntN(maxCandidates)
		for i := range poly.n {
			p := vecmath.V3(near(1), near(1), near(1))
			p = setComp(p, ku, near(limU))
			p = setComp(p, kv, near(limV))
			poly.v[i] = clipVertex{p: p, l0: uint8(i), l1: uint8(i + 1)}
		}
		someOut, allOut := poly.sides(ku, kv, limU, limV)
		for plane, c := range [4]sidePlane{{ku, 1, limU}, {ku, -1, limU}, {kv, 1, limV}, {kv, -1, limV}} {
			var out clipPolygon
			in := poly
			cut := clipAgainst(&in, &out, c.axis, c.sign, c.limit, uint8(4+plane))
			if got := someOut&(1<<plane) != 0; got != cut {
				t.Fatalf("iter %d plane %d: sides says a corner outside %v, clipAgainst clipped %v\n%+v", iter, plane, got, cut, poly)
			}
			if got, want := allOut&(1<<plane) != 0, cut && out.n == 0; got != want {
				t.Fatalf("iter %d plane %d: sides says every corner outside %v, clip left nothing %v\n%+v", iter, plane, got, want, poly)
			}
			switch {
			case !cut:
				uncut++
			case out.n == 0:
				empties++
			default:
				cuts++
			}
		}
	}
	if cuts == 0 || empties == 0 || uncut == 0 {
		t.Fatalf("cases not all met: %d clipped, %d emptied, %d untouched", cuts, empties, uncut)
	}
}
