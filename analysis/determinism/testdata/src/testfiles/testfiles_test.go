package testfiles

import (
	"math"
	"time"
)

// Test files are not simulation code: nothing here is reported.
func reference(start time.Time) (float64, time.Duration) {
	return math.Sin(1)*2 + Step(2, 3, 1), time.Since(start)
}
