package interp

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire/snapshot"
)

// Client receives snapshots, acknowledges them, and draws the world as it
// was a render delay ago, between the two buffered snapshots around its
// render clock. It simulates nothing. It implements netmodel.Client.
type Client struct {
	cfg  Config
	end  *reliable.Endpoint
	recv *Receiver
	est  delayEstimator

	epoch    time.Time    // local time 0
	buffered [Ring]Number // buffered[ringIndex(n)] == n+1: snapshot n is on the timeline
	ackDue   bool

	// The render clock, in server ticks: it runs at 1 ± MaxTimeScale
	// of real time towards now − delay, and never jumps once started.
	clock, scale float64
	clockOn      bool
	last         time.Time
	delay        float64 // the policy's delay, s (sample units)

	view                []snapshot.Cube
	drawn               bool
	extrapolating       bool
	blendPos            []vecmath.Vec3
	blendRot            []vecmath.Quat
	blendFrom, blendFor float64 // local s; 0 length: no blend
	extrapBase          float64 // ticks: the snapshot extrapolated from

	counters ClientCounters
}

// ClientCounters count what the client received and drew.
type ClientCounters struct {
	Snapshots uint64 // decoded and put on the timeline
	Late      uint64 // decoded but older than the newest: kept as baselines only
	// Dropped datagrams and, among them, why: a baseline the client does
	// not hold, a sequence far ahead, a slot already newer; the rest are
	// malformed (transport or codec).
	Dropped, NoBaseline, FarAhead, Stale uint64
	Frames, Dry, Extrapolated            uint64 // Updates that drew; with no snapshot after the render time; of those, extrapolated
}

// NewClient returns a client of a world of objects objects whose clock
// starts at now. cfg.Codec's Simulator, if any, must be the client's own.
func NewClient(cfg Config, objects int, now time.Time) (*Client, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	end, err := reliable.NewEndpoint(cfg.Reliable, now)
	if err != nil {
		return nil, err
	}
	recv, err := NewReceiver(cfg.Codec, cfg.interval(), objects, cfg.Reliable.MaxPacketSize)
	if err != nil {
		return nil, err
	}
	return &Client{
		cfg: cfg, end: end, recv: recv, epoch: now, scale: 1,
		view:     make([]snapshot.Cube, objects),
		blendPos: make([]vecmath.Vec3, objects),
		blendRot: make([]vecmath.Quat, objects),
	}, nil
}

// Counters returns the client's counters.
func (c *Client) Counters() ClientCounters { return c.counters }

// Endpoint returns the client's reliable endpoint, for its RTT and loss
// figures.
func (c *Client) Endpoint() *reliable.Endpoint { return c.end }

// View returns the objects as drawn by the last Update, and the server
// tick they show (fractional); ok is false before the first snapshot.
// The slice is valid until the next Update.
func (c *Client) View() (cubes []snapshot.Cube, tick float64, ok bool) {
	return c.view, c.clock, c.drawn
}

// RenderDelay returns how much later than it arrives, on average, the
// client shows a snapshot: the delay the model adds to the network's.
func (c *Client) RenderDelay() time.Duration {
	if c.est.nd == 0 {
		return 0
	}
	c.est.detrend()
	_, mean, _ := c.est.stats()
	return time.Duration((c.delay - mean) * float64(time.Second))
}

// Loss returns the measured share of snapshots that did not arrive in
// order.
func (c *Client) Loss() float64 {
	if !c.est.any {
		return 0
	}
	return c.est.loss()
}

func (c *Client) seconds(t time.Time) float64 { return t.Sub(c.epoch).Seconds() }

// serverSeconds returns the server time snapshot n was taken at.
func (c *Client) serverSeconds(n Number) float64 {
	return float64(int64(n)*int64(c.cfg.interval())) / float64(c.cfg.TickRate)
}

// Receive implements netmodel.Client.
func (c *Client) Receive(now time.Time, datagram []byte) error {
	_, payload, err := c.end.ReceivePacket(now, datagram)
	if err != nil {
		c.counters.Dropped++
		return err
	}
	if payload == nil {
		return nil // a fragment of a packet not yet whole
	}
	c.ackDue = true
	_, n, err := c.recv.Peek(payload)
	if err != nil {
		c.counters.Dropped++
		return err
	}
	newest, had := c.recv.Newest()
	if had {
		// The snapshot the server is sending now, by the newest one's
		// arrival; an honest server is never MaxAhead past it.
		expect := float64(newest) + (c.seconds(now)-c.est.lastArrive)*float64(c.cfg.PPS)
		if float64(n) > expect+c.cfg.MaxAhead.Seconds()*float64(c.cfg.PPS) {
			c.counters.Dropped++
			c.counters.FarAhead++
			return fmt.Errorf("%w: snapshot %d, expected about %.0f", ErrFarAhead, n, expect)
		}
	}
	if _, _, err := c.recv.Decode(payload); err != nil {
		c.counters.Dropped++
		switch {
		case errors.Is(err, ErrNoBaseline):
			c.counters.NoBaseline++
		case errors.Is(err, ErrStale):
			c.counters.Stale++
		}
		return err
	}
	if had && n <= newest {
		c.counters.Late++
		return nil
	}
	c.counters.Snapshots++
	c.buffered[ringIndex(n)] = n + 1
	c.est.add(n, c.serverSeconds(n), c.seconds(now))
	return nil
}

// Update implements netmodel.Client: it acknowledges what arrived and
// draws the frame for now.
func (c *Client) Update(now time.Time, send func(datagram []byte)) error {
	if c.ackDue {
		_, datagrams, err := c.end.SendPacket(now, nil)
		if err != nil {
			return err
		}
		for _, d := range datagrams {
			send(d)
		}
		c.end.ClearAcks()
		c.ackDue = false
	}
	c.end.Update(now)
	c.advanceClock(now)
	if c.clockOn {
		c.draw(now)
	}
	return nil
}

// advanceClock moves the render clock to now: at its scaled rate, then
// sets the scale from how far the clock is from its target.
func (c *Client) advanceClock(now time.Time) {
	iv := float64(c.cfg.interval()) / float64(c.cfg.TickRate)
	d, ok := c.est.delay(c.cfg.Buffering, iv, c.cfg.DryTarget, c.cfg.MaxDelay.Seconds())
	if !ok {
		return
	}
	c.delay = d
	rate := float64(c.cfg.TickRate)
	target := (c.seconds(now) - d) * rate
	if !c.clockOn {
		c.clock, c.clockOn, c.last = target, true, now
		return
	}
	c.clock += now.Sub(c.last).Seconds() * rate * c.scale
	c.last = now
	// The server's timeline runs at 1/(1+slope) of the client's clock
	// (slope: the drift of the delivery delays); on top of that rate, 1 %
	// faster or slower per 10 ms off, within ±MaxTimeScale, so the clock
	// settles in about a second without trailing a drifting target.
	off := (target - c.clock) / rate
	base := 1 / (1 + c.est.slope)
	c.scale = base * (1 + math.Max(-c.cfg.MaxTimeScale, math.Min(c.cfg.MaxTimeScale, off)))
	// Data running short: no snapshot for SlowGap intervals, and those
	// buffered ahead of the clock cover less than SlowBelow (a stall, a
	// run of losses longer than the delay covers). The clock slows in
	// proportion, down to MinScale: the
	// objects move slower for a moment instead of stopping, and the
	// clock is that much further behind when data comes back, which the
	// rule above then takes back within MaxTimeScale.
	gap := c.seconds(now) - c.est.lastArrive
	if below := c.cfg.SlowBelow.Seconds(); below > 0 && gap > SlowGap*iv && gap <= MaxSlow.Seconds() {
		if newest, ok := c.recv.Newest(); ok {
			ahead := (float64(int64(newest)*int64(c.cfg.interval())) - c.clock) / rate
			if ahead < below {
				c.scale = math.Min(c.scale, base*math.Max(c.cfg.MinScale, ahead/below))
			}
		}
	}
}

// SlowGap is how long, in send intervals, no snapshot must have arrived
// before the render clock slows down (Config.SlowBelow): two lost packets
// in a row and their jitter do not slow it. On the orbit game at 250 ms
// RTT and 25 % loss the mean delay is 172 ms without slowing, 180 ms at
// 3 intervals and 182 at 2.5; at 4.5 the spiky network's stalls ran dry
// on 1 % of the frames (0.00-0.08 % at 3, over six seeds).
const SlowGap = 3.0

// MaxSlow is the longest gap the render clock slows through: past it (a
// link down, a server gone) it runs on at its rate, dry, so that it is
// never more than (1 − MinScale)·MaxSlow (0.4 s) further behind when data
// comes back, which it takes back at MaxTimeScale.
const MaxSlow = 500 * time.Millisecond

// at returns buffered snapshot n as a keyframe.
func (c *Client) at(n Number) (keyframe, bool) {
	if c.buffered[ringIndex(n)] != n+1 {
		return keyframe{}, false
	}
	s := c.recv.At(n)
	if s == nil {
		return keyframe{}, false
	}
	return keyframe{t: float64(int64(n) * int64(c.cfg.interval())), cubes: s.Cubes, reset: c.recv.Resets(n)}, true
}

// around finds the buffered snapshots at or before the clock (a) and
// after it (b), and their outer neighbours for Hermite tangents.
func (c *Client) around() (prev, a, b, next *keyframe) {
	newest, _ := c.recv.Newest()
	n0 := Number(math.Floor(c.clock / float64(c.cfg.interval())))
	find := func(from, to, step Number) *keyframe {
		for n := from; n != to; n += step {
			if k, ok := c.at(n); ok {
				return &k
			}
		}
		return nil
	}
	lo := max(newest-Ring+1, n0-Ring+1)
	if n0 >= lo {
		a = find(min(n0, newest), lo-1, -1)
	}
	if n0 < newest {
		b = find(max(n0+1, lo), newest+1, 1)
	}
	// A neighbour further than the segment is long would bend the curve
	// with a stale velocity: the tangent then comes from the segment.
	iv := Number(c.cfg.interval())
	if a != nil {
		an := Number(a.t) / iv
		span := Number(1)
		if b != nil {
			span = Number(b.t)/iv - an
		}
		prev = find(an-1, max(lo, an-span)-1, -1)
		if b != nil {
			bn := Number(b.t) / iv
			next = find(bn+1, min(newest, bn+span)+1, 1)
		}
	}
	return prev, a, b, next
}

// draw fills the view for the render clock.
func (c *Client) draw(now time.Time) {
	prev, a, b, next := c.around()
	if a == nil && b == nil {
		return
	}
	c.counters.Frames++
	extrapolating := false
	switch {
	case a != nil && b != nil:
		u := (c.clock - a.t) / (b.t - a.t)
		sent := 0.0
		if c.cfg.SentVelocity {
			sent = float64(c.cfg.TickRate)
		}
		for i := range c.view {
			switch {
			case b.resetAfter(i, a.t):
				// Reset between a and b: a until the reset, b from it.
				if c.clock < float64(b.reset[i]) {
					c.view[i] = a.cubes[i]
				} else {
					c.view[i] = b.cubes[i]
				}
			case c.cfg.Interpolation == Hermite:
				p, q := prev, next
				if a.resetAfter(i, prevT(prev)) {
					p = nil // no tangent from before a reset
				}
				if next.resetAfter(i, b.t) {
					q = nil
				}
				c.view[i] = hermiteCube(p, a, b, q, i, u, sent)
			default:
				c.view[i] = lerpCube(&a.cubes[i], &b.cubes[i], u)
			}
		}
	case a != nil:
		c.counters.Dry++
		limit := c.cfg.ExtrapolationLimit.Seconds() * float64(c.cfg.TickRate)
		if c.cfg.Extrapolate && prev != nil {
			c.counters.Extrapolated++
			extrapolating, c.extrapBase = true, a.t
			ahead := math.Min(c.clock-a.t, limit)
			for i := range c.view {
				if a.resetAfter(i, prev.t) {
					c.view[i] = a.cubes[i] // no velocity across a reset
					continue
				}
				c.view[i] = extrapolateCube(prev, a, i, ahead)
			}
		} else {
			copy(c.view, a.cubes)
		}
	default:
		copy(c.view, b.cubes) // the clock is before the first snapshot
	}
	latest := b
	if latest == nil {
		latest = a
	}
	c.blend(now, extrapolating, latest)
	c.drawn = true
}

// prevT returns the time of keyframe k, +Inf for none.
func prevT(k *keyframe) float64 {
	if k == nil {
		return math.Inf(1)
	}
	return k.t
}

// blend eases the view back from an extrapolation to the data that came
// in: the offset between the last extrapolated frame and the new one
// fades over BlendTime.
//
// An object reset since the snapshot extrapolated from is not blended:
// it jumps, as without the extrapolation.
func (c *Client) blend(now time.Time, extrapolating bool, latest *keyframe) {
	t := c.seconds(now)
	if c.extrapolating && !extrapolating && c.drawn && c.cfg.BlendTime > 0 {
		// The last view is still in c.blendPos's partner: recompute
		// offsets from the previous frame, saved below.
		for i := range c.view {
			c.blendPos[i] = c.blendPos[i].Sub(c.view[i].Position)
			c.blendRot[i] = c.blendRot[i].Mul(c.view[i].Rotation.Conj())
		}
		c.blendFrom, c.blendFor = t, c.cfg.BlendTime.Seconds()
	} else if extrapolating {
		c.blendFor = 0
	}
	c.extrapolating = extrapolating
	if c.blendFor > 0 {
		w := 1 - (t-c.blendFrom)/c.blendFor
		if w <= 0 {
			c.blendFor = 0
		} else {
			for i := range c.view {
				if latest.resetAfter(i, c.extrapBase) {
					c.blendPos[i], c.blendRot[i] = vecmath.Vec3{}, vecmath.QuatIdentity
				}
				v := &c.view[i]
				v.Position = v.Position.Add(c.blendPos[i].Scale(w))
				v.Rotation = nlerp(vecmath.QuatIdentity, c.blendRot[i], w).Mul(v.Rotation).Normalize()
			}
		}
	}
	if extrapolating {
		for i := range c.view {
			c.blendPos[i], c.blendRot[i] = c.view[i].Position, c.view[i].Rotation
		}
	}
}

// Decoded returns snapshot n as the client decoded it, while its ring
// holds it: for tests that check it against the server's (Server.Sent).
func (c *Client) Decoded(n Number) *snapshot.Snapshot { return c.recv.At(n) }
