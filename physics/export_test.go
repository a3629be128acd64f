package physics

import (
	"fmt"
	"slices"

	"github.com/netphys/netphys/physics/collide"
)

// Quantize is the test helper quantize, for the external tests over the
// benchmark scenes (scenes_test.go), which cannot live in package physics:
// internal/benchscene imports it.
var Quantize = quantize

// CheckBroadphase runs the broadphase as the next step will (the pairs are
// recomputed then, from the same state) and compares its pairs with those
// of a test of every pair of live bodies, for the external tests over the
// benchmark scenes. It returns the number of pairs.
func CheckBroadphase(w *World) (int, error) {
	w.collectAwake()
	w.updatePairs()
	want := referencePairs(w)
	// A pair may be reported more than once (broadphase copies); the
	// goldens check how many times.
	got := slices.Compact(slices.Clone(w.broad.pairs))
	if !slices.Equal(got, want) {
		return 0, fmt.Errorf("broadphase: %d pairs, a test of every pair finds %d (first difference at %d)",
			len(got), len(want), firstDifference(got, want))
	}
	return len(got), nil
}

// referencePairs tests every pair of live bodies, one of them awake, with
// the bounds updatePairs computed: the pairs a lookup of every awake body
// in the grids finds.
func referencePairs(w *World) []uint64 {
	awake := make([]bool, len(w.info))
	for _, s := range w.scratch.awake {
		awake[s] = true
	}
	var pairs []uint64
	for a := range int32(len(w.info)) {
		for c := a + 1; c < int32(len(w.info)); c++ {
			if !w.info[a].live || !w.info[c].live || (!awake[a] && !awake[c]) || !w.mayCollide(a, c) {
				continue
			}
			var touch bool
			switch {
			case w.info[a].shape.Kind == collide.Plane:
				touch = w.touchesLargePair(a, c)
			case w.info[c].shape.Kind == collide.Plane:
				touch = w.touchesLargePair(c, a)
			default:
				touch = w.broad.overlaps(a, c)
			}
			if touch {
				pairs = append(pairs, pairKey(a, c))
			}
		}
	}
	return pairs
}

func firstDifference(a, b []uint64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
