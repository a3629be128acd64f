package statesync

import "slices"

// accumulator is the VR sample's priority accumulator for one link. Every
// step each object's priority factor is added to its accumulator; a
// negative factor means "do not send" and pins the accumulator at -1.
// A packet takes objects in decreasing accumulator order (ties by id) and
// serializes them while they fit in its budget; the objects sent go back
// to 0, so that the others get their turn. Lowering the priority of
// objects at rest made the sample worse (they drift apart and are not
// corrected soon enough), so every object the link may send starts from a
// factor of 1.
type accumulator struct {
	acc   []float64
	order []int
}

func newAccumulator(objects int) accumulator {
	return accumulator{acc: make([]float64, objects), order: make([]int, 0, objects)}
}

// accumulate adds one step of factors.
func (a *accumulator) accumulate(factor func(i int) float64) {
	for i := range a.acc {
		f := factor(i)
		if f < 0 {
			a.acc[i] = -1
			continue
		}
		a.acc[i] += f
	}
}

// candidates returns the objects worth sending, highest accumulator
// first. The slice is valid until the next call.
func (a *accumulator) candidates() []int {
	a.order = a.order[:0]
	for i, v := range a.acc {
		if v >= 0 {
			a.order = append(a.order, i)
		}
	}
	slices.SortFunc(a.order, func(x, y int) int {
		switch {
		case a.acc[x] > a.acc[y]:
			return -1
		case a.acc[x] < a.acc[y]:
			return 1
		}
		return x - y
	})
	return a.order
}

// sent resets object i after a packet carried it.
func (a *accumulator) sent(i int) { a.acc[i] = 0 }
