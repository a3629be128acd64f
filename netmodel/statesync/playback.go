package statesync

// playback plays the host's updates back on a guest at an even pace, a
// fixed delay behind the newest packet's tick, as the jitter buffer does
// for avatars. Applied as they arrive, updates of a moving object jump
// back and forth by its speed times the spread of the network's delays
// (±40 ms of jitter moves a cube thrown at 2 m/s 8 cm either way, a pop
// every packet); applied each at its own tick plus a constant, they
// follow the host's trajectory as with a fixed latency. The delay is
// Config.JitterDelay, the avatars' own, so that a cube stays in the hand
// that throws it. An update that comes later than the delay is applied
// at once (it is the newest this guest has of its object: the sender's
// order per object is checked on arrival, link.inOrder).
type playback struct {
	queue   []queued // by tick, oldest first
	limit   int      // entries at most; beyond, the oldest is applied early
	newest  Tick     // the newest packet's tick, if heard
	heard   bool
	play    Tick // the host tick played up to
	playing bool
}

type queued struct {
	tick Tick
	u    update // base is nil: only the claims and the state are kept
}

func newPlayback(objects int) playback {
	return playback{limit: 8 * objects}
}

// push queues u of the packet of tick t, in tick order; it returns the
// entry to apply now, if any: the oldest when the queue is full (a peer
// that floods), or u itself when it is more than catchUpLimit ticks older
// than the newest (nothing it could be played back between). The work of
// a push is bounded by the queue's limit, 8 entries an object.
func (p *playback) push(t Tick, u update) (queued, bool) {
	u.base = nil
	if p.heard && int32(p.newest-t) > catchUpLimit {
		return queued{tick: t, u: u}, true
	}
	if !p.heard || int32(t-p.newest) > 0 {
		p.newest, p.heard = t, true
	}
	var out queued
	full := len(p.queue) == p.limit
	if full {
		out = p.queue[0]
		p.queue = append(p.queue[:0], p.queue[1:]...)
	}
	k := len(p.queue)
	for k > 0 && int32(p.queue[k-1].tick-t) > 0 {
		k--
	}
	p.queue = append(p.queue, queued{})
	copy(p.queue[k+1:], p.queue[k:])
	p.queue[k] = queued{tick: t, u: u}
	return out, full
}

// advance moves playback one step on and returns the entries due, oldest
// first; they are removed by done. Playback runs exactly one tick a step,
// the pace of the host's, delay ticks behind the newest packet's: a clock
// that sped up to catch up or slowed down for every late packet would
// move the objects' states in time as much as the jitter it hides. It is
// set again (a jump) only when it falls more than the delay behind (the
// packets lost in a burst, an outage), or runs a delay ahead of what
// arrived; it never plays past the newest tick.
func (p *playback) advance(delay Tick) []queued {
	if !p.heard {
		return nil
	}
	target := p.newest - delay
	if d := int32(target - p.play); !p.playing || d > int32(delay) || d < -int32(delay) {
		p.play, p.playing = target, true
	} else {
		p.play++
	}
	if int32(p.play-p.newest) > 0 {
		p.play = p.newest
	}
	n := 0
	for n < len(p.queue) && int32(p.queue[n].tick-p.play) <= 0 {
		n++
	}
	return p.queue[:n]
}

// done removes the n oldest entries.
func (p *playback) done(n int) { p.queue = append(p.queue[:0], p.queue[n:]...) }
