package interp

import (
	"math"
	"slices"
)

// The render delay, and why it is chosen this way.
//
// The client draws the world as it was at render time r, D seconds behind
// its own clock, between the two buffered snapshots around r. A frame runs
// dry when the snapshot after r has not arrived. Snapshot k, taken at
// server time s_k, arrives at s_k + d_k, where d_k is the delivery delay
// plus the (unknown, constant) clock offset: D is measured in the same
// units, so the offset cancels.
//
// For render time r in (s_j, s_j + I], I the send interval, the snapshot
// needed next is the first one received after r: s_j + m·I with
// probability p^(m-1)·(1-p) under loss p. It has arrived when
// r + D ≥ s_j + m·I + d, so the share of that interval spent dry is
// clamp((m·I + d − D)/I, 0, 1), and over the whole stream
//
//	dry(D) = Σ_m p^(m-1)(1-p) · mean_k clamp((m·I + d_k − D)/I, 0, 1)
//
// with d_k the last Samples delays measured and p the share of the last
// LossWindow snapshots that did not arrive in order (plus half a loss). dry falls with D;
// Adaptive takes the least D with dry(D) ≤ DryTarget (a bisection). So the
// delay grows with the jitter (the spread of d_k), with the loss (gaps of
// two, three intervals) and with nothing else, and shrinks back when they
// do.
//
// The anchors it is compared with (`netphys bench interp`):
//   - the article's fixed delay, three intervals plus a jitter allowance
//     after the fastest delivery: two lost packets in a row are covered
//     at any loss, so it is long at low loss and runs dry at high loss;
//   - Mirror's: the interval times (1 + (I + σ)/I), σ the std-dev of the
//     delivery intervals, after the mean delivery: about two intervals,
//     which runs dry whenever two packets in a row are lost or a late one
//     overlaps a loss.

// Samples is how many delivery delays the estimate keeps: about 4 s at
// 30 pps, long enough for the tail of the jitter, short enough that the
// delay comes back down within seconds when the network recovers.
const Samples = 128

// LossWindow is how many snapshot numbers the loss estimate covers.
const LossWindow = 256

// delayEstimator measures deliveries and chooses the delay.
type delayEstimator struct {
	d          [Samples]float64 // seconds: arrival − server time
	s          [Samples]float64 // server time of each sample, s
	adj        [Samples]float64 // d brought to the newest sample's time (detrend)
	nd, next   int
	got        [LossWindow]Number // got[ringIndex] == n+1: snapshot n arrived in order
	first      Number
	newest     Number
	any        bool
	sorted     [Samples]float64 // scratch for the percentile
	blocks     [Blocks]block    // the least delay of each block, a ring
	nb         int              // blocks seen
	lastArrive float64          // for Mirror's delivery intervals
	ivMean     float64          // EMA of delivery intervals, s
	ivVar      float64
	slope      float64 // the drift measured: d seconds per server second
	limit      float64 // samples above are stalls, left out of dry
	cached     float64 // the last delay chosen; valid while fresh
	fresh      bool
}

// add records snapshot n, taken at server time s, arriving at local time t
// (both seconds), newer than every snapshot before it.
func (e *delayEstimator) add(n Number, s, t float64) {
	e.fresh = false
	e.d[e.next], e.s[e.next] = t-s, s
	e.addBlock(s, t-s)
	e.next = (e.next + 1) % Samples
	e.nd = min(e.nd+1, Samples)
	e.got[uint64(n)%LossWindow] = n + 1
	if !e.any {
		e.first, e.any = n, true
	} else {
		// Mirror's EMA of the delivery interval over about 2 s of
		// snapshots.
		iv := t - e.lastArrive
		const alpha = 2.0 / (60 + 1)
		diff := iv - e.ivMean
		e.ivMean += alpha * diff
		e.ivVar = (1 - alpha) * (e.ivVar + alpha*diff*diff)
	}
	e.newest, e.lastArrive = n, t
}

// loss returns the estimated share of snapshots that do not arrive in
// order: those missing among the last LossWindow, plus half a loss, so
// that a short or lucky history does not read as a perfect link (with
// none lost in 256, the estimate is 0.2 %, well inside the 95 % bound of
// about 1.2 %).
func (e *delayEstimator) loss() float64 {
	span := min(int(e.newest-e.first)+1, LossWindow)
	got := 0
	for k := range span {
		n := e.newest - Number(k)
		if e.got[uint64(n)%LossWindow] == n+1 {
			got++
		}
	}
	return (float64(span-got) + 0.5) / float64(span+1)
}

// The drift of the clocks. A server clock running slower (or faster) than
// the client's, or a client clock running fast (slow), makes the delays
// grow (shrink) steadily: taken as they are, the window's delays would all
// lie behind (ahead of) the ones to come, and the render clock, running at
// the client's rate, would run into dry frames or let the delay grow.
// The drift is the slope of the delays against server time, measured on
// the least delay of each half second (block): the least is what the path
// itself costs, untouched by jitter, by a stall that holds packets for a
// while (their delays fall along a slope of −1, which a least-squares fit
// through all the samples reads as drift) and by loss. The fit runs
// through the last Blocks blocks (8 s) once two are complete, and is
// bounded to ±MaxDrift.
const (
	// BlockSeconds is the span of server time one block covers.
	BlockSeconds = 0.5
	// Blocks is how many blocks the drift is fitted through.
	Blocks = 16
	// MaxDrift bounds the drift followed: ±12.5 %, so that a clock off
	// by 10 % is followed with room for the estimate's error.
	MaxDrift = 0.125
)

// block is the least delay in one block of server time.
type block struct {
	idx  int64   // floor(s / BlockSeconds)
	s, d float64 // the least delay's server time and delay, s
}

// addBlock records a sample in its block.
func (e *delayEstimator) addBlock(s, d float64) {
	idx := int64(math.Floor(s / BlockSeconds))
	cur := &e.blocks[(e.nb-1+Blocks)%Blocks]
	if e.nb == 0 || idx > cur.idx {
		e.blocks[e.nb%Blocks] = block{idx: idx, s: s, d: d}
		e.nb++
		return
	}
	if idx == cur.idx && d < cur.d {
		cur.s, cur.d = s, d
	}
}

// driftSlope fits the delays' slope through the complete blocks.
func (e *delayEstimator) driftSlope() float64 {
	n := min(e.nb-1, Blocks-1) // the newest block is still filling
	if n < 2 {
		return 0
	}
	var ms, md float64
	for k := 1; k <= n; k++ {
		b := &e.blocks[(e.nb-1-k+Blocks)%Blocks]
		ms, md = ms+b.s, md+b.d
	}
	ms, md = ms/float64(n), md/float64(n)
	var cov, vs float64
	for k := 1; k <= n; k++ {
		b := &e.blocks[(e.nb-1-k+Blocks)%Blocks]
		cov += float64((b.s - ms) * (b.d - md))
		vs += float64((b.s - ms) * (b.s - ms))
	}
	if !(vs > 0) {
		return 0
	}
	return math.Max(-MaxDrift, math.Min(MaxDrift, cov/vs))
}

// detrend fills adj: each delay as it would be at the newest sample's
// server time, along the drift.
func (e *delayEstimator) detrend() {
	e.slope = e.driftSlope()
	newest := e.s[(e.next-1+Samples)%Samples]
	for k := range e.nd {
		e.adj[k] = e.d[k] + float64(e.slope*(newest-e.s[k]))
	}
}

// The stalls. A link that stalls (a Wi-Fi scan, a handover, a queue
// behind a burst of other traffic) holds every packet for a while and
// delivers them together: their delays rise by the stall's length. A
// delay that covers them would cover them all the time, for a stall that
// comes every few seconds at most; the render clock slows down instead
// (Client, Config.SlowBelow) when the data it has runs short. So the
// dry-frame estimate leaves out the samples further above the least delay
// than SpikeFactor times the 90th percentile's distance from it: the
// jitter's spread.
const SpikeFactor = 2.0

// spikeLimit returns the delay above which samples are left out of the
// dry-frame estimate.
func (e *delayEstimator) spikeLimit(lo float64) float64 {
	sorted := e.sorted[:e.nd]
	copy(sorted, e.adj[:e.nd])
	slices.Sort(sorted)
	q90 := sorted[min(e.nd-1, e.nd*9/10)]
	return lo + math.Max(SpikeFactor*(q90-lo), minSpike)
}

// minSpike is the least distance above the least delay a stall is told
// from jitter at.
const minSpike = 0.060

// stats returns the smallest, mean and largest delay sampled, detrended.
func (e *delayEstimator) stats() (lo, mean, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, d := range e.adj[:e.nd] {
		lo, hi, mean = math.Min(lo, d), math.Max(hi, d), mean+d
	}
	return lo, mean / float64(e.nd), hi
}

// dry returns the predicted share of dry frames at delay D for send
// interval iv and loss p (see the comment at the top).
func (e *delayEstimator) dry(D, iv, p float64) float64 {
	total, w := 0.0, 1-p
	for m := 1; m <= 64 && w > 1e-7; m++ {
		sum, n := 0.0, 0
		for _, d := range e.adj[:e.nd] {
			if d > e.limit {
				continue
			}
			sum += math.Max(0, math.Min(1, (float64(m)*iv+d-D)/iv))
			n++
		}
		total += w * sum / float64(max(n, 1))
		w *= p
	}
	return total
}

// delay returns the render delay D (seconds, in the units of the samples)
// the policy chooses for send interval iv; ok is false before any sample.
// It is at most maxDelay (s) after the fastest of the last recentSamples
// deliveries: recent, so that the cap follows a server whose clock runs
// slower than the client's instead of pinning the delay to an old sample.
func (e *delayEstimator) delay(policy Buffering, iv, target, maxDelay float64) (float64, bool) {
	if e.nd == 0 {
		return 0, false
	}
	if !e.fresh {
		e.detrend()
		recent := math.Inf(1)
		for k := 1; k <= min(e.nd, recentSamples); k++ {
			recent = math.Min(recent, e.adj[(e.next-k+Samples)%Samples])
		}
		e.cached, e.fresh = min(e.choose(policy, iv, target), recent+maxDelay), true
	}
	return e.cached, true
}

// recentSamples is how many of the newest deliveries bound the delay from
// above (with Config.MaxDelay): about half a second at 30 pps.
const recentSamples = 16

func (e *delayEstimator) choose(policy Buffering, iv, target float64) float64 {
	lo, mean, hi := e.stats()
	switch policy {
	case Fixed:
		return lo + articleDelay(iv)
	case Mirror:
		sd := math.Sqrt(e.ivVar)
		return mean + iv*(1+(iv+sd)/iv)
	}
	p := math.Min(e.loss(), 0.9)
	e.limit = e.spikeLimit(lo)
	hi = math.Min(hi, e.limit)
	a, b := lo, hi+64*iv // dry(a) ≥ target ≥ dry(b) ≈ 0
	for b-a > 1e-4 {     // 0.1 ms
		mid := (a + b) / 2
		if e.dry(mid, iv, p) > target {
			a = mid
		} else {
			b = mid
		}
	}
	return b
}

// articleDelay is the article's interpolation delay: three send intervals
// plus a jitter allowance (350 ms at 10 pps, 150 ms at 30, 85 at 60).
func articleDelay(iv float64) float64 {
	if iv < 0.030 {
		return 3*iv + 0.035
	}
	return 3*iv + 0.050
}
