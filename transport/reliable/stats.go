package reliable

import (
	"math"
	"time"
)

// Stats are an endpoint's estimates of the connection, recomputed by
// Update; the formulas and smoothing are reliable.c's.
type Stats struct {
	// RTT is the smoothed round-trip time: an exponential moving average
	// (Config.RTTSmoothingFactor) of the time from sending a packet to
	// receiving its ack.
	RTT time.Duration
	// RTTMin, RTTMax and RTTAvg cover the last Config.RTTHistorySize samples.
	RTTMin, RTTMax, RTTAvg time.Duration
	// JitterAvgVsMin, JitterMaxVsMin: mean and largest excess of a sample
	// over RTTMin. JitterStdDevVsAvg: standard deviation around RTTAvg.
	JitterAvgVsMin, JitterMaxVsMin, JitterStdDevVsAvg time.Duration
	// PacketLoss is the smoothed percentage (0-100) of the older half of
	// the sent-packets window that was never acked.
	PacketLoss float64
	// PacketLossSamples is the number of sent packets the last loss
	// estimate looked at: 0 until the first packet leaves the older half
	// of the window, and PacketLoss reads 0 then without meaning it.
	PacketLossSamples int
	// SentKbps, ReceivedKbps and AckedKbps are smoothed bandwidths in
	// kilobits per second over half the sent or received window,
	// counting Config.PacketHeaderSize per packet.
	SentKbps, ReceivedKbps, AckedKbps float64
}

// rttState holds the RTT samples, in milliseconds as in reliable.c, and
// running figures over them, so that Update costs O(1) instead of two
// passes over the whole history (512 samples by default): those passes
// were the largest share of a lockstep relay's CPU, four endpoints a
// match, every tick. n, lo and hi are exact. sum and sumSq drift by a
// rounding error per sample, so they are summed again from the history
// every len(history) samples; lo and hi are found again when the last
// sample equal to one of them is overwritten (loN and hiN count them: on
// a link of steady RTT every sample is both, and finding them again at
// each one was a pass over the history per packet).
type rttState struct {
	smoothed float64
	history  []float64 // by sequence % len; negative: no sample
	changed  bool      // a sample or a reset since the stats were computed

	n          int     // samples in history
	sum, sumSq float64 // of the samples and of their squares
	lo, hi     float64 // least and greatest sample; when n > 0 and !stale
	loN, hiN   int     // samples equal to lo and to hi; when n > 0 and !stale
	stale      bool    // lo or hi left the history: find them again
	added      int     // samples since sum and sumSq were summed afresh
}

func newRTTState(n int) rttState {
	r := rttState{history: make([]float64, n)}
	r.reset()
	return r
}

func (r *rttState) reset() {
	r.smoothed, r.changed = 0, true
	for i := range r.history {
		r.history[i] = -1
	}
	r.n, r.sum, r.sumSq, r.lo, r.hi, r.loN, r.hiN, r.stale, r.added = 0, 0, 0, 0, 0, 0, 0, false, 0
}

// sample records the RTT in milliseconds of the packet seq.
func (r *rttState) sample(seq Sequence, ms, factor float64) {
	i := int(seq) % len(r.history)
	if old := r.history[i]; old >= 0 {
		r.n--
		r.sum -= old
		r.sumSq -= float64(old * old)
		if old == r.lo {
			r.loN--
		}
		if old == r.hi {
			r.hiN--
		}
		r.stale = r.stale || r.loN == 0 || r.hiN == 0
	}
	r.history[i] = ms
	if ms >= 0 {
		switch {
		case r.n == 0:
			r.lo, r.hi, r.loN, r.hiN, r.stale = ms, ms, 1, 1, false
		case r.stale: // refresh finds them
		default:
			r.lo, r.loN = extreme(r.lo, r.loN, ms, ms < r.lo)
			r.hi, r.hiN = extreme(r.hi, r.hiN, ms, ms > r.hi)
		}
		r.n++
		r.sum += ms
		r.sumSq += float64(ms * ms)
		r.added++
	}
	r.changed = true
	if r.smoothed == 0 && ms > 0 {
		r.smoothed = ms
		return
	}
	r.smoothed = emaStep(r.smoothed, ms, factor)
}

// extreme returns the least (or greatest) sample and how many samples
// equal it, after ms, beyond tells whether ms is past it.
func extreme(x float64, count int, ms float64, beyond bool) (float64, int) {
	switch {
	case beyond:
		return ms, 1
	case ms == x:
		return x, count + 1
	}
	return x, count
}

// refresh sums the history afresh where the running figures need it.
func (r *rttState) refresh() {
	if !r.stale && r.added < len(r.history) {
		return
	}
	r.n, r.sum, r.sumSq, r.lo, r.hi, r.loN, r.hiN = 0, 0, 0, 0, 0, 0, 0
	for _, ms := range r.history {
		if ms < 0 {
			continue
		}
		if r.n == 0 {
			r.lo, r.hi = ms, ms
		}
		r.lo, r.loN = extreme(r.lo, r.loN, ms, ms < r.lo)
		r.hi, r.hiN = extreme(r.hi, r.hiN, ms, ms > r.hi)
		r.n++
		r.sum += ms
		r.sumSq += float64(ms * ms)
	}
	r.stale, r.added = false, 0
}

func millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// Update advances the endpoint's clock to now and recomputes Stats. Call
// it once per tick, before reading Stats.
func (e *Endpoint) Update(now time.Time) {
	e.now = now
	e.updateRTTStats()
	w := e.sentWindow()
	e.updatePacketLoss(w.sent, w.dropped)
	f := e.cfg.BandwidthSmoothingFactor
	e.stats.SentKbps = w.all.smooth(e.stats.SentKbps, f)
	e.stats.AckedKbps = w.acked.smooth(e.stats.AckedKbps, f)
	e.stats.ReceivedKbps = e.receivedSpan().smooth(e.stats.ReceivedKbps, f)
}

// Stats returns the estimates of the last Update.
func (e *Endpoint) Stats() Stats { return e.stats }

// updateRTTStats recomputes the RTT figures from the running figures,
// when a sample came since the last time.
func (e *Endpoint) updateRTTStats() {
	r := &e.rtt
	if !r.changed {
		return
	}
	r.changed = false
	r.refresh()
	s := &e.stats
	s.RTT = millis(r.smoothed)
	s.RTTMin, s.RTTMax, s.RTTAvg = 0, 0, 0
	s.JitterAvgVsMin, s.JitterMaxVsMin, s.JitterStdDevVsAvg = 0, 0, 0
	if r.n == 0 {
		return
	}
	n := float64(r.n)
	avg := r.sum / n
	// The variance as the mean square less the squared mean; rounding
	// can leave it a hair below zero when every sample is the same.
	variance := max(r.sumSq/n-float64(avg*avg), 0)
	s.RTTMin, s.RTTMax, s.RTTAvg = millis(r.lo), millis(r.hi), millis(avg)
	s.JitterAvgVsMin = millis(max(avg-r.lo, 0))
	s.JitterMaxVsMin = millis(r.hi - r.lo)
	s.JitterStdDevVsAvg = millis(math.Sqrt(variance))
}

// window returns the oldest sequence of buffer b's window and the number
// of samples reliable.c takes from it: the older half.
func window[T any](b *sequenceBuffer[T]) (Sequence, int) {
	return b.next - Sequence(len(b.seqs)), len(b.seqs) / 2
}

// updatePacketLoss folds the window's loss, dropped of sent, into the
// smoothed PacketLoss.
func (e *Endpoint) updatePacketLoss(sent, dropped int) {
	e.stats.PacketLossSamples = sent
	if sent == 0 {
		e.stats.PacketLoss = 0
		return
	}
	loss := float64(dropped) / float64(sent) * 100
	e.stats.PacketLoss = emaStep(e.stats.PacketLoss, loss, e.cfg.PacketLossSmoothingFactor)
}

// span accumulates bytes and the time range they were sent or received in.
type span struct {
	bytes         int
	start, finish time.Time
	any           bool
}

func (s *span) add(t time.Time, bytes int) {
	s.bytes += bytes
	if !s.any || t.Before(s.start) {
		s.start = t
	}
	if !s.any || t.After(s.finish) {
		s.finish = t
	}
	s.any = true
}

// smooth folds the span's rate, in kilobits per second, into the moving
// average avg. A span that covers no time has no rate and leaves avg as
// it is, as in reliable.c.
func (s span) smooth(avg, factor float64) float64 {
	if !s.any || !s.finish.After(s.start) {
		return avg
	}
	kbps := float64(s.bytes) / s.finish.Sub(s.start).Seconds() * 8 / 1000
	return emaStep(avg, kbps, factor)
}

// sentWindowFigures are what Update reads from the older half of the
// sent-packets window.
type sentWindowFigures struct {
	sent, dropped int  // packets, and those never acked
	all, acked    span // of every packet, and of the acked ones
}

// sentWindow reads the loss and both sent spans in one pass over the
// window (it was three, one per figure).
func (e *Endpoint) sentWindow() sentWindowFigures {
	base, n := window(e.sent)
	var w sentWindowFigures
	for i := range n {
		sp := e.sent.find(base + Sequence(i))
		if sp == nil {
			continue
		}
		w.sent++
		w.all.add(sp.time, sp.bytes)
		if sp.acked {
			w.acked.add(sp.time, sp.bytes)
		} else {
			w.dropped++
		}
	}
	return w
}

func (e *Endpoint) receivedSpan() span {
	base, n := window(e.received)
	var s span
	for i := range n {
		if rp := e.received.find(base + Sequence(i)); rp != nil {
			s.add(rp.time, rp.bytes)
		}
	}
	return s
}
