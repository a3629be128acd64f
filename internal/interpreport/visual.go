package interpreport

import (
	"math"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire/snapshot"
)

// The visual error, as the report and the demo (match) measure
// it: a client's drawn objects against the server's real positions at the
// fractional tick the client shows, for the objects that move then.

// History keeps the server's real positions of the last ticks, to measure
// a view against the state at the (fractional) tick it shows. Its memory
// is fixed when it is made: positions only, ticks × objects of them.
type History struct {
	ticks []histTick
}

type histTick struct {
	tick int64
	pos  []vecmath.Vec3
}

// NewHistory returns a history of the last ticks ticks of objects
// objects.
func NewHistory(ticks, objects int) *History {
	h := &History{ticks: make([]histTick, ticks)}
	for i := range h.ticks {
		h.ticks[i] = histTick{tick: -1, pos: make([]vecmath.Vec3, objects)}
	}
	return h
}

// Put records the real state of tick (its positions), in place of the
// tick len(ticks) older.
func (h *History) Put(tick int64, state []snapshot.Cube) {
	e := &h.ticks[tick%int64(len(h.ticks))]
	e.tick = tick
	for i := range e.pos {
		e.pos[i] = state[i].Position
	}
}

func (h *History) at(tick int64) []vecmath.Vec3 {
	if tick < 0 {
		return nil
	}
	e := &h.ticks[tick%int64(len(h.ticks))]
	if e.tick != tick {
		return nil
	}
	return e.pos
}

// Between returns the real positions at the ticks either side of the
// fractional tick r and r's fraction u from a to b; ok is false when the
// history does not hold both (too old, or not yet simulated).
func (h *History) Between(r float64) (a, b []vecmath.Vec3, u float64, ok bool) {
	t0 := int64(math.Floor(r))
	a, b = h.at(t0), h.at(t0+1)
	if a == nil || b == nil {
		return nil, nil, 0, false
	}
	return a, b, r - float64(t0), true
}

// ViewErrors calls f with the visual error, m, of every object of view
// that moves between a and b: the distance from where it is drawn to its
// real position at u. Resting objects do not count: drawn exactly, they
// would only dilute the figures with zeros.
func ViewErrors(view []snapshot.Cube, a, b []vecmath.Vec3, u float64, f func(e float64)) {
	for i := range view {
		if a[i] != b[i] {
			f(view[i].Position.Sub(a[i].Lerp(b[i], u)).Length())
		}
	}
}

// ErrorStats accumulates visual errors, m, into 0.05 mm bins up to 2 m
// for their quantiles.
type ErrorStats struct {
	bins     []int
	sum, max float64
	n        int
}

const (
	errBin  = 0.00005 // m
	errBins = 40000
)

// NewErrorStats returns empty statistics.
func NewErrorStats() *ErrorStats { return &ErrorStats{bins: make([]int, errBins+1)} }

// Add counts one error.
func (s *ErrorStats) Add(e float64) {
	s.sum += e
	s.n++
	s.max = max(s.max, e)
	s.bins[min(int(e/errBin), errBins)]++
}

// N returns the number of errors counted.
func (s *ErrorStats) N() int { return s.n }

// Mean returns the mean error, 0 without errors.
func (s *ErrorStats) Mean() float64 {
	if s.n == 0 {
		return 0
	}
	return s.sum / float64(s.n)
}

// Quantile returns the upper edge of the bin holding the q-quantile.
func (s *ErrorStats) Quantile(q float64) float64 {
	return float64(quantile(s.bins, s.n, q)+1) * errBin
}

// Max returns the largest error.
func (s *ErrorStats) Max() float64 { return s.max }

// Reset empties the statistics, keeping their memory.
func (s *ErrorStats) Reset() {
	clear(s.bins)
	s.sum, s.max, s.n = 0, 0, 0
}
