package lockstep

import (
	"fmt"
	"math"
	"time"
)

// The client's playout delay buffer: every Update samples the local
// inputs the session clock has reached, moves the input delay toward what
// the measurements ask for, rolls back if a prediction proved wrong, and
// simulates the ticks the delayed clock has reached.

// Update runs what is due by now: the local inputs of the ticks the
// server's clock has reached, a rollback if a prediction was wrong, up to
// MaxCatchUp new ticks, and one message to the server through send. It
// returns a *DesyncError, a *DroppedError (the server dropped this player
// and said why) or ErrTimeout when the session cannot go on.
func (c *Client[I, P]) Update(now time.Time, send func(datagram []byte)) error {
	if c.dropped != nil {
		return c.dropped
	}
	if c.mismatch != nil {
		return c.mismatch
	}
	if c.desync != nil {
		return c.desync
	}
	c.pipe.update(now)
	c.pipe.acks(c.acked)
	elapsed := max(0, ms(now.Sub(c.last))/ms(c.cfg.TickDuration))
	c.last = now
	if err := c.checkTimeout(now); err != nil {
		return err
	}
	c.stats.LastResimulated = 0
	if c.state != stateLobby {
		c.clock.slew(elapsed*ms(c.cfg.TickDuration), c.cfg.Slew)
		est := c.serverTicks(now)
		c.sampleInputs(est)
		c.fillDeparted(est)
		if c.joining == nil || c.joining.installed {
			c.adaptDelay(now, elapsed)
			c.resimulate()
			c.simulate(now, est)
			c.finalize()
		}
	}
	return c.sendMessage(now, send)
}

func (c *Client[I, P]) checkTimeout(now time.Time) error {
	// In the lobby (or unseated after a bad snapshot) no input of ours
	// waits for the server's ack.
	waiting := !c.watch && c.state != stateLobby && c.serverHas < c.rings[max(c.me, 0)].have
	if !waiting {
		c.lastProgress = now
	}
	if now.Sub(c.lastHeard) > c.cfg.Timeout || now.Sub(c.lastProgress) > c.cfg.Timeout {
		return fmt.Errorf("%w: the server was last heard %v ago and last acknowledged new inputs %v ago",
			ErrTimeout, now.Sub(c.lastHeard), now.Sub(c.lastProgress))
	}
	return nil
}

// sampleInputs asks for the local input of every tick the server's clock
// has reached, within the buffer.
func (c *Client[I, P]) sampleInputs(est float64) {
	if c.watch {
		return
	}
	ring := &c.rings[c.me]
	limit := c.base() + Tick(c.cfg.Buffer)
	for ring.have < limit && float64(ring.have) <= est {
		if c.withhold != nil && c.withhold(ring.have, est) {
			return
		}
		c.view = View{Player: c.me, Next: c.next, Predicted: c.next > c.confirmed()}
		ring.push(c.input(ring.have, &c.view))
	}
}

// fillDeparted gives departed players the zero input up to the session
// clock, once their real inputs are all in.
func (c *Client[I, P]) fillDeparted(est float64) {
	var zero I
	limit := c.base() + Tick(c.cfg.Buffer)
	for p := range c.cfg.Players {
		for r := &c.rings[p]; c.departed[p] && r.have >= c.left[p] && float64(r.have) <= est && r.have < limit; {
			c.take(p, zero)
		}
	}
}

// startDelay sets the delay when the session starts, before anything
// ran: InitialDelay, or more when the round trip measured in the lobby
// says remote inputs will take longer (sender → server → here is about
// one round trip, plus a frame at the server and one here).
func (c *Client[I, P]) startDelay() {
	rtt, _ := c.pipe.rtt()
	need := c.cfg.ticksF(rtt) + 2 + float64(c.cfg.Margin-c.cfg.Rollback)
	c.delay = min(max(c.delay, need, c.cfg.ticksF(c.cfg.MinDelay)), c.cfg.ticksF(c.cfg.MaxDelay))
}

// adaptDelay moves the input delay toward what the measured ages of
// remote inputs need, by at most Slew of the elapsed time.
func (c *Client[I, P]) adaptDelay(now time.Time, elapsed float64) {
	target := c.cfg.ticksF(c.cfg.InitialDelay)
	if need, ok := c.need.get(int64(c.localMs(now) / 1000)); ok {
		target = need + float64(c.cfg.Margin+lossMargin(c.pipe.loss())-c.cfg.Rollback)
	}
	target = min(max(target, c.cfg.ticksF(c.cfg.MinDelay)), c.cfg.ticksF(c.cfg.MaxDelay))
	c.target = target
	c.stats.TargetDelay = c.cfg.duration(target)
	step := c.cfg.Slew * elapsed
	if c.delay < target {
		c.delay = min(target, c.delay+step)
	} else {
		c.delay = max(target, c.delay-step)
	}
}

// lossMargin is the ticks of consecutive losses on one hop that happen
// less than once in 1000 datagrams at loss rate p: redundancy recovers each
// loss one datagram later, and the largest age of the last 10 s already
// holds the bursts that did happen. It is at most 20.
func lossMargin(p float64) int {
	if !(p > 0) {
		return 0
	}
	k := 1
	for q := p; q > 1e-3 && k < 20; k++ {
		q = float64(q * p)
	}
	return k
}

// simulate steps the new ticks the delayed clock has reached, at most
// MaxCatchUp, and as far ahead of the known inputs as Rollback allows. A
// tick that is due but cannot run is a stall: the delay grows by the
// stall up to the target, so that a delay found too short goes on at
// normal speed once the inputs come; a longer stall (a player lost for
// seconds) is caught up at MaxCatchUp ticks per Update, as the article
// does, rather than kept as delay.
func (c *Client[I, P]) simulate(now time.Time, est float64) {
	due := Tick(math.Floor(est - c.delay))
	limit := c.confirmed()
	if !c.watch {
		limit += Tick(c.cfg.Rollback)
	}
	for n := 0; c.next <= due && c.next < limit && n < c.cfg.MaxCatchUp; n++ {
		c.step(c.next)
		c.next++
		c.stats.Steps++
		c.stalling, c.steppedAt = false, now
	}
	if j := c.stats.JoinedAt; j > 0 && c.stats.CaughtUp == 0 && c.next >= j {
		c.stats.CaughtUp = now.Sub(c.epoch)
	}
	if c.next <= due && c.next >= limit {
		c.stats.Stalled++
		if !c.stalling {
			c.stalling, c.stallStart = true, c.steppedAt
			if c.steppedAt.IsZero() {
				c.stallStart = now // stalled before the first tick
			}
		}
		c.stats.LongestStall = max(c.stats.LongestStall, now.Sub(c.stallStart))
		c.delay = max(c.delay, min(est-float64(c.next), c.target))
	}
}

// step simulates tick t with the known inputs and, for players whose
// input is missing, their last one.
func (c *Client[I, P]) step(t Tick) {
	predicted := t >= c.confirmed()
	if predicted {
		c.game.Save(c.slot(t))
		c.stats.Saves++
	}
	for p := range c.cfg.Players {
		if r := &c.rings[p]; t < r.have {
			c.inputs[p] = r.at(t)
		} else {
			c.inputs[p] = r.last()
		}
	}
	c.game.Step(c.inputs)
	c.keepSource(t, predicted)
	if t%c.cfg.ChecksumEvery == 0 {
		r := report{tick: t, sum: uint32(c.game.Checksum())}
		if predicted {
			c.pending = append(c.pending, r)
		} else {
			c.queueReport(r)
		}
	}
}

// resimulate restores the state before the earliest wrong prediction and
// simulates again up to where the game was, with the inputs now known,
// telling a Resimulator game so.
func (c *Client[I, P]) resimulate() {
	if c.rollbackTo == noRollback {
		return
	}
	from := c.rollbackTo
	c.rollbackTo = noRollback
	if r, ok := c.game.(Resimulator); ok {
		r.Resimulating(true)
		defer r.Resimulating(false)
	}
	c.game.Load(c.slot(from))
	kept := c.pending[:0]
	for _, r := range c.pending {
		if r.tick < from {
			kept = append(kept, r)
		}
	}
	c.pending = kept
	for t := from; t < c.next; t++ {
		c.step(t)
	}
	n := int(c.next - from)
	c.stats.Rollbacks++
	c.stats.Resimulated += uint64(n)
	c.stats.LastResimulated = n
	c.stats.MaxResimulated = max(c.stats.MaxResimulated, n)
}

func (c *Client[I, P]) slot(t Tick) int { return int(t) % c.cfg.Rollback }
