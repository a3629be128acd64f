package predict

import (
	"time"

	"github.com/netphys/netphys/vecmath"
)

// The client's tick clock: how fast it runs ahead of the server, and the
// decay of the visual correction, both advanced by Update.

// jumpAbove is the clock error, ticks, above which the client jumps its
// clock instead of steering it.
const jumpAbove = 3

// steer keeps the worst lead of the client's inputs at the server near
// Config.TargetLead. Inputs arriving late cost rewinds and mispredictions,
// inputs arriving early only latency, so the clock speeds up (by up to
// 10 %) faster than it slows down (by up to 5 %); an error above jumpAbove
// ticks jumps the clock and starts a new epoch. The lead is the minimum
// over a window, which answers at once to inputs arriving later and only
// after the window to earlier ones: the gentle slow-down keeps that from
// ringing.
func (c *Client) steer() {
	if !c.leadNew {
		return
	}
	c.leadNew = false
	e := c.lead - c.cfg.TargetLead // > 0: too far ahead
	if e > jumpAbove || e < -jumpAbove {
		c.clock -= e
		c.epoch = (c.epoch + 1) % epochs
		c.epochFrom = max(c.tick, Tick(c.clock))
		c.speed = 1
		c.stats.ClockJumps++
		return
	}
	if !c.synced {
		c.synced, c.syncedFrom = true, c.tick
	}
	switch {
	case e < -0.25:
		c.speed = 1 + min(0.1, -0.05*e)
	case e > 0.5:
		c.speed = 1 - min(0.05, 0.02*e)
	default:
		c.speed = 1
	}
}

// decay shrinks the visual correction.
func (c *Client) decay(elapsed time.Duration) {
	if c.cfg.SmoothTime == 0 {
		c.offset = vecmath.Vec3{}
		return
	}
	k := float64(c.cfg.SmoothTime) / float64(c.cfg.SmoothTime+elapsed)
	c.offset = c.offset.Scale(k)
}
