package statesync

// playback plays a peer's updates back at an even pace, a delay behind
// the newest packet's tick, as the jitter buffer does for avatars: the
// host's updates on a guest, a guest's on the host. Applied as they
// arrive, updates of a moving object jump back and forth by its speed
// times the spread of the network's delays (±40 ms of jitter moves a cube
// thrown at 2 m/s 8 cm either way, a pop every packet); applied each at
// its own tick plus a constant, they follow the sender's trajectory as
// with a fixed latency. An update that comes later than the delay is
// applied at once (it is the newest this machine has of its object: the
// sender's order per object is checked on arrival, link.inOrder).
//
// Between two states of an object that lie more than a tick apart (the
// packets between were lost, or did not carry it), playback steers
// (between): each step the object keeps its simulated pose and takes the
// velocity that brings it, in free flight, to the next state's position
// at that state's tick, instead of being simulated from the first on its
// own and moved by the second. A burst of lost packets in the middle of a
// tower's collapse is then a glide to the next states rather than a jump
// of every cube at its end.
type playback struct {
	queue   []queued // by tick, oldest first
	limit   int      // entries at most; beyond, the oldest is applied early
	newest  Tick     // the newest packet's tick, if heard
	heard   bool
	play    Tick // the sender's tick played up to
	playing bool
	// last[i] is the newest entry of object i played, if played[i]: the
	// start of the interpolation to its next queued one. next is the
	// scratch of between: the objects whose next entry was seen.
	last   []queued
	played []bool
	next   []bool
	// delay is how far playback runs behind the newest tick, adapted to
	// the link (adapt): at most max. lags is a ring of the last
	// lagWindow steps' lateness of the newest packet (the local step minus
	// the newest tick), lagged the samples written.
	delay, max Tick
	lags       []int32
	lagged     int
}

type queued struct {
	tick Tick
	u    update // base is nil: only the claims and the state are kept
}

// newPlayback returns the playback of objects played at most delay
// ticks behind. Its queue holds every object's states for three times
// the delay and 8 ticks more, whatever the peer sends: playback lags the
// newest tick by at most twice the delay before it jumps, and playback
// that lags after a burst of loss still finds its states there rather
// than having them applied early (a jump back in time, a pop for every
// moving object).
func newPlayback(objects int, delay Tick) playback {
	return playback{limit: objects * (3*int(delay) + 8), last: make([]queued, objects), played: make([]bool, objects), next: make([]bool, objects),
		delay: delay, max: delay, lags: make([]int32, lagWindow)}
}

// lagWindow is how many steps of lateness the delay is chosen over (10 s
// at 60 steps per second); the choice is made again every lagEvery steps.
const (
	lagWindow = 600
	lagEvery  = 60
)

// adapt records how late the newest packet is at local step local, and
// every lagEvery steps sets the delay to the lateness that 99 % of the
// window's steps stay within, above the window's least: on a clean link
// the newest packet is always as late (transit only) and the delay is
// 0, playback applies each state in the step after it arrives; jitter,
// and gaps of lost packets, make some steps later than others, and the
// delay covers them, up to max (Config.JitterDelay). A link that loses a
// packet now and then (5 %) needs a tick; one whose packets come in
// bursts of loss or spread by ±40 ms needs the maximum.
func (p *playback) adapt(local Tick) {
	if !p.heard {
		return
	}
	p.lags[p.lagged%lagWindow] = int32(local - p.newest)
	if p.lagged++; p.lagged%lagEvery != 0 {
		return
	}
	n := min(p.lagged, lagWindow)
	least := p.lags[0]
	for _, l := range p.lags[1:n] {
		least = min(least, l)
	}
	var over [maxAdaptive + 2]int // over[d]: steps later than least by d (the last: by more)
	for _, l := range p.lags[:n] {
		over[min(int(l-least), maxAdaptive+1)]++
	}
	beyond := n
	for d := range Tick(maxAdaptive + 1) {
		if beyond -= over[d]; beyond*100 <= n || d == p.max {
			p.delay = d
			return
		}
	}
	p.delay = p.max
}

// maxAdaptive bounds the delay adapt measures, in steps (a second).
const maxAdaptive = 60

// push queues u of the packet of tick t, in tick order; it returns the
// entry to apply now, if any: u itself when playback has passed t (it is
// late) or when it is more than catchUpLimit ticks older than the newest
// (nothing it could be played back between), or the oldest entry when the
// queue is full (a peer that floods). The work of a push is bounded by
// the queue's limit, 8 entries an object.
func (p *playback) push(t Tick, u update) (queued, bool) {
	u.base = nil
	if p.heard && (int32(p.newest-t) > catchUpLimit || (p.playing && int32(t-p.play) <= 0)) {
		return p.note(queued{tick: t, u: u}), true
	}
	if !p.heard || int32(t-p.newest) > 0 {
		p.newest, p.heard = t, true
	}
	var out queued
	full := len(p.queue) == p.limit
	if full {
		out = p.note(p.queue[0])
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

// note records e as the newest entry of its object played, and returns it.
func (p *playback) note(e queued) queued {
	p.last[e.u.id], p.played[e.u.id] = e, true
	return e
}

// advance moves playback one step on and returns the entries due, oldest
// first; they are removed by done. Playback runs exactly one tick a step,
// the pace of the sender's, delay ticks behind the newest packet's: a
// clock that sped up to catch up or slowed down for every late packet
// would move the objects' states in time as much as the jitter it hides.
// It is set again (a jump) only when it falls more than the delay behind
// (the packets lost in a burst, an outage), or runs a delay ahead of what
// arrived; it never plays past the newest tick.
func (p *playback) advance(local Tick) []queued {
	p.adapt(local)
	if !p.heard {
		return nil
	}
	delay := p.delay
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

// done removes the n oldest entries, which were played.
func (p *playback) done(n int) {
	for k := range n {
		p.note(p.queue[k])
	}
	p.queue = append(p.queue[:0], p.queue[n:]...)
}

// between calls steer with the next queued entry b of every object that
// lies between two of its states more than a tick and at most glideTicks
// apart, b awake (the last one played, a, and b; their claims may differ:
// a tower at rest under nobody's authority that a thrown cube wakes), and
// the ticks from the playback tick to b's. An object that comes to rest
// at b is left to the physics and b: steered, it would not rest.
func (p *playback) between(steer func(a, b *update, ticks Tick)) {
	clear(p.next)
	for k := range p.queue {
		b := &p.queue[k]
		i := b.u.id
		if p.next[i] {
			continue
		}
		p.next[i] = true
		a := &p.last[i]
		span, left := int32(b.tick-a.tick), int32(b.tick-p.play)
		if !p.played[i] || span <= 1 || span > glideTicks || left <= 0 || left >= span || b.u.state.rest {
			continue
		}
		steer(&a.u, &b.u, Tick(left))
	}
}

// glideTicks is the longest gap between two states of an object that
// playback steers across: a second. Over a longer one (an outage) the
// receiver's physics is a better guess than an aim. (At 1 s RTT with
// bursts of loss half a second left a fifth more pops: 32.6 a minute
// against 26.6, seed 1.)
const glideTicks = 60
