package lockstep

import "time"

// clock estimates the offset from the client's clock to the server's
// session clock. Every server message carries the session time when it was
// sent; server − local at arrival is the offset minus that datagram's
// transit. The largest such sample is the datagram that travelled fastest,
// so the estimate is that maximum plus half the smallest round trip, and
// the maximum decays slowly so that it follows clock drift. The offset the
// client applies moves toward the estimate by at most Config.Slew of the
// elapsed time: the simulation runs a few percent fast or slow, never
// jumps.
type clock struct {
	ok     bool
	max    float64 // decaying maximum of server − local, ms
	at     float64 // local ms of the newest sample
	target float64 // offset estimate, ms
	offset float64 // applied offset: server ≈ local + offset, ms
}

// clockDecay is how fast the maximum forgets, in ms per ms: it follows a
// drift of up to 0.5 %, far beyond any quartz.
const clockDecay = 0.005

func (k *clock) sample(local, server, halfRTT float64) {
	s := server - local
	if !k.ok {
		// Nothing has run yet: jump.
		k.ok, k.max, k.at = true, s, local
		k.target = s + halfRTT
		k.offset = k.target
		return
	}
	k.max = max(s, k.max-float64((local-k.at)*clockDecay))
	k.at = local
	k.target = k.max + halfRTT
}

func (k *clock) slew(elapsedMs, rate float64) {
	step := elapsedMs * rate
	k.offset += min(max(k.target-k.offset, -step), step)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ticksF converts a duration to (fractional) ticks.
func (c *Config) ticksF(d time.Duration) float64 { return float64(d) / float64(c.TickDuration) }

// duration converts ticks to a duration.
func (c *Config) duration(ticks float64) time.Duration {
	return time.Duration(ticks * float64(c.TickDuration))
}
