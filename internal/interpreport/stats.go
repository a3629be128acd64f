package interpreport

import "time"

// stats accumulates one client's figures; errors and delays go into
// histograms for their quantiles.
type stats struct {
	frames, dryFrames  int
	steps, slow        int   // frames after the first; of those, slowed (SlowPercent)
	delays             []int // by whole millisecond, 0 to 4 s
	delaySum, delayMax time.Duration
	delayN             int
	errs               *ErrorStats
	penSum, penMax     float64
	penN               int
}

const delayMax = 4000 // ms

func newStats() *stats {
	return &stats{delays: make([]int, delayMax+1), errs: NewErrorStats()}
}

func (s *stats) delay(d time.Duration) {
	s.delaySum += d
	s.delayMax = max(s.delayMax, d)
	s.delayN++
	s.delays[min(max(int(d/time.Millisecond), 0), delayMax)]++
}

func (s *stats) pen(d float64) {
	s.penSum += d
	s.penN++
	s.penMax = max(s.penMax, d)
}

func (s *stats) delayMean() time.Duration {
	if s.delayN == 0 {
		return 0
	}
	return s.delaySum / time.Duration(s.delayN)
}

func (s *stats) delayQuantile(q float64) time.Duration {
	return time.Duration(quantile(s.delays, s.delayN, q)) * time.Millisecond
}

func (s *stats) penMean() float64 {
	if s.penN == 0 {
		return 0
	}
	return s.penSum / float64(s.penN)
}

// quantile returns the bin holding the q-quantile of n samples.
func quantile(bins []int, n int, q float64) int {
	want := int(q * float64(n))
	seen := 0
	for i, c := range bins {
		seen += c
		if seen > want {
			return i
		}
	}
	return len(bins) - 1
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
