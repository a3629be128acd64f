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

// rttState holds the RTT samples, in milliseconds as in reliable.c.
type rttState struct {
	smoothed float64
	history  []float64 // by sequence % len; negative: no sample
	changed  bool      // a sample or a reset since the stats were computed
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
}

// sample records the RTT in milliseconds of the packet seq.
func (r *rttState) sample(seq Sequence, ms, factor float64) {
	r.history[int(seq)%len(r.history)] = ms
	r.changed = true
	if r.smoothed == 0 && ms > 0 {
		r.smoothed = ms
		return
	}
	r.smoothed = emaStep(r.smoothed, ms, factor)
}

func millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// Update advances the endpoint's clock to now and recomputes Stats. Call
// it once per tick, before reading Stats.
func (e *Endpoint) Update(now time.Time) {
	e.now = now
	e.updateRTTStats()
	e.updatePacketLoss()
	f := e.cfg.BandwidthSmoothingFactor
	e.stats.SentKbps = e.sentSpan(false).smooth(e.stats.SentKbps, f)
	e.stats.AckedKbps = e.sentSpan(true).smooth(e.stats.AckedKbps, f)
	e.stats.ReceivedKbps = e.receivedSpan().smooth(e.stats.ReceivedKbps, f)
}

// Stats returns the estimates of the last Update.
func (e *Endpoint) Stats() Stats { return e.stats }

// updateRTTStats recomputes the RTT figures over the history, when a
// sample came since the last time: two passes over 512 samples were a
// quarter of a lockstep session's CPU when done every Update.
func (e *Endpoint) updateRTTStats() {
	if !e.rtt.changed {
		return
	}
	e.rtt.changed = false
	lo, hi, sum, n := 10000.0, 0.0, 0.0, 0
	for _, ms := range e.rtt.history {
		if ms < 0 {
			continue
		}
		lo, hi = min(lo, ms), max(hi, ms)
		sum += ms
		n++
	}
	if n == 0 {
		lo = 0
	}
	avg := 0.0
	if n > 0 {
		avg = sum / float64(n)
	}
	excess, maxExcess, sq := 0.0, 0.0, 0.0
	for _, ms := range e.rtt.history {
		if ms < 0 {
			continue
		}
		excess += ms - lo
		maxExcess = max(maxExcess, ms-lo)
		d := ms - avg
		sq += float64(d * d)
	}
	s := &e.stats
	s.RTT = millis(e.rtt.smoothed)
	s.RTTMin, s.RTTMax, s.RTTAvg = millis(lo), millis(hi), millis(avg)
	s.JitterAvgVsMin, s.JitterMaxVsMin, s.JitterStdDevVsAvg = 0, millis(maxExcess), 0
	if n > 0 {
		s.JitterAvgVsMin = millis(excess / float64(n))
		s.JitterStdDevVsAvg = millis(math.Sqrt(sq / float64(n)))
	}
}

// window returns the oldest sequence of buffer b's window and the number
// of samples reliable.c takes from it: the older half.
func window[T any](b *sequenceBuffer[T]) (Sequence, int) {
	return b.next - Sequence(len(b.seqs)), len(b.seqs) / 2
}

func (e *Endpoint) updatePacketLoss() {
	base, n := window(e.sent)
	sent, dropped := 0, 0
	for i := range n {
		sp := e.sent.find(base + Sequence(i))
		if sp == nil {
			continue
		}
		sent++
		if !sp.acked {
			dropped++
		}
	}
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

func (e *Endpoint) sentSpan(ackedOnly bool) span {
	base, n := window(e.sent)
	var s span
	for i := range n {
		sp := e.sent.find(base + Sequence(i))
		if sp == nil || (ackedOnly && !sp.acked) {
			continue
		}
		s.add(sp.time, sp.bytes)
	}
	return s
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
