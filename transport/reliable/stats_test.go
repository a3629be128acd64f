package reliable

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// naiveRTT is the RTT figures summed over the whole history every time:
// the reference the running figures must match.
func naiveRTT(history []float64) (n int, lo, hi, avg, excess, stddev float64) {
	var sum float64
	for _, ms := range history {
		if ms < 0 {
			continue
		}
		if n == 0 {
			lo, hi = ms, ms
		}
		lo, hi = min(lo, ms), max(hi, ms)
		sum += ms
		n++
	}
	if n == 0 {
		return 0, 0, 0, 0, 0, 0
	}
	avg = sum / float64(n)
	var sq float64
	for _, ms := range history {
		if ms >= 0 {
			excess += ms - lo
			d := ms - avg
			sq += float64(d * d)
		}
	}
	return n, lo, hi, avg, excess / float64(n), math.Sqrt(sq / float64(n))
}

// TestRTTStatsMatchTheWholeHistory: after every sample, the minimum and
// maximum are the history's exactly, and the mean and jitters within a
// few nanoseconds of two passes over it, through history wraps, links
// whose RTT drifts and jumps, sequence gaps and resets, over many times
// the history's length (so the drift of the running sums is exercised).
func TestRTTStatsMatchTheWholeHistory(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RTTHistorySize = 64
	e := newEndpoint(t, cfg)
	rng := rand.New(rand.NewPCG(5, 6))
	now := t0
	seq := Sequence(0)
	base := 100.0
	for i := range 20000 {
		switch x := rng.IntN(1000); {
		case x == 0:
			e.rtt.reset()
		case x < 20:
			base = 1 + rng.Float64()*2000 // the link changes
		case x < 60:
			seq += Sequence(rng.IntN(40)) // lost packets: no samples
		}
		ms := base + rng.NormFloat64()*base/10
		if i%7 == 0 {
			ms = base // repeated values: ties for lo and hi
		}
		e.rtt.sample(seq, max(ms, 0), cfg.RTTSmoothingFactor)
		seq++
		now = now.Add(time.Millisecond)
		e.Update(now)
		st := e.Stats()
		n, lo, hi, avg, excess, stddev := naiveRTT(e.rtt.history)
		if n != e.rtt.n || st.RTTMin != millis(lo) || st.RTTMax != millis(hi) || st.JitterMaxVsMin != millis(hi-lo) {
			t.Fatalf("sample %d: %d samples, min %v max %v jitter max %v; the history has %d, %v, %v, %v",
				i, e.rtt.n, st.RTTMin, st.RTTMax, st.JitterMaxVsMin, n, millis(lo), millis(hi), millis(hi-lo))
		}
		near := func(got time.Duration, want float64, tol time.Duration) bool {
			d := got - millis(want)
			return d <= tol && d >= -tol
		}
		if !near(st.RTTAvg, avg, 2) || !near(st.JitterAvgVsMin, excess, 2) || !near(st.JitterStdDevVsAvg, stddev, time.Microsecond) {
			t.Fatalf("sample %d: avg %v, jitter avg %v, std dev %v; the history gives %v, %v, %v",
				i, st.RTTAvg, st.JitterAvgVsMin, st.JitterStdDevVsAvg, millis(avg), millis(excess), millis(stddev))
		}
	}
}

// TestRTTStatsOnASteadyLink: equal samples have no jitter at all.
func TestRTTStatsOnASteadyLink(t *testing.T) {
	e := newEndpoint(t, DefaultConfig())
	for i := range 2000 {
		e.rtt.sample(Sequence(i), 87.3, e.cfg.RTTSmoothingFactor)
	}
	e.Update(t0)
	st := e.Stats()
	if st.RTTMin != st.RTTMax || st.JitterAvgVsMin != 0 || st.JitterMaxVsMin != 0 || st.JitterStdDevVsAvg != 0 || st.RTTAvg != millis(87.3) {
		t.Fatalf("steady 87.3 ms: %+v", st)
	}
}

// TestRTTEqualSamplesKeepTheExtremes: on a steady link every sample is
// both the least and the greatest; overwriting one of many leaves them
// known, without a pass over the history.
func TestRTTEqualSamplesKeepTheExtremes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RTTHistorySize = 16
	e := newEndpoint(t, cfg)
	for i := range 40 {
		e.rtt.sample(Sequence(i), 50, cfg.RTTSmoothingFactor)
		if i > 0 && e.rtt.stale {
			t.Fatalf("sample %d of a steady link: the extremes were lost (%d samples at the least, %d at the greatest)", i, e.rtt.loN, e.rtt.hiN)
		}
	}
	if e.rtt.loN != 16 || e.rtt.hiN != 16 {
		t.Fatalf("16 equal samples in the history: %d counted at the least, %d at the greatest", e.rtt.loN, e.rtt.hiN)
	}
	// The only greater sample leaves: the greatest is found again.
	e.rtt.sample(40, 70, cfg.RTTSmoothingFactor)
	for i := 41; i < 41+16; i++ {
		e.rtt.sample(Sequence(i), 50, cfg.RTTSmoothingFactor)
	}
	e.Update(t0)
	if st := e.Stats(); st.RTTMax != 50*time.Millisecond || st.RTTMin != 50*time.Millisecond {
		t.Fatalf("after the 70 ms sample left: min %v max %v, want 50ms both", st.RTTMin, st.RTTMax)
	}
}
