// Package sim is a small game's simulation step, written with one mistake
// of each kind the determinism check reports.
package sim

import (
	"math"
	"time"
)

// Body is a point mass on a line.
type Body struct{ X, V float64 }

// Step advances every body by dt seconds.
func Step(bodies map[int]*Body, dt float64) float64 {
	for _, b := range bodies {
		b.X = b.V*dt + b.X
	}
	_ = time.Now()
	return math.Sin(dt)
}

// Energy is right in the source, but the compiler still fuses the product
// of one statement into the sum of the next: only CheckFMA sees it.
func Energy(m, v, e0 float64) float64 {
	k := float64(m*v) * v
	return k + e0
}

// Blend is a deliberate exception.
func Blend(a, b, t float64) float64 {
	return a*t + b //netphys:nondeterministic rendering only, never stepped
}
