package predict

import (
	"time"

	"github.com/netphys/netphys/vecmath"
)

// The client's tick clock: how fast it runs ahead of the server, and the
// decay of the visual correction, both advanced by Update.

// jumpAbove is how late, ticks, the client's inputs may arrive before it
// jumps its clock forward instead of steering it; jumpBackAbove how early.
// Late inputs cost rewinds; early ones only latency, which the slow-down
// takes back without the burst of a jump.
const (
	jumpAbove     = 3
	jumpBackAbove = 12
)

// steer keeps the worst lead of the client's inputs at the server near
// Config.TargetLead. Inputs arriving late cost rewinds and mispredictions,
// inputs arriving early only latency, so the clock speeds up (by up to
// 10 %) faster than it slows down (by up to 5 %); an error beyond
// jumpAbove or jumpBackAbove ticks jumps the clock and starts a new
// epoch. The lead is the minimum
// over a window, which answers at once to inputs arriving later and only
// after the window to earlier ones: the gentle slow-down keeps that from
// ringing. After a jump the next one waits until the new epoch's reports
// cover two lead windows, so that a report made of a few samples cannot
// throw the clock back and forth; the speed steers meanwhile.
func (c *Client[I, PI]) steer(now time.Time) {
	if !c.leadNew {
		return
	}
	c.leadNew = false
	e := c.lead - c.cfg.TargetLead // > 0: too far ahead
	settled := !c.synced || now.Sub(c.epochAt) >= 2*c.cfg.LeadWindow
	if (e > jumpBackAbove || e < -jumpAbove) && settled {
		c.clock -= e
		c.epoch = (c.epoch + 1) % epochs
		c.epochFrom, c.epochAt = max(c.tick, Tick(c.clock)), now
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
func (c *Client[I, PI]) decay(elapsed time.Duration) {
	if c.cfg.SmoothTime == 0 {
		c.offset = vecmath.Vec3{}
		return
	}
	k := float64(c.cfg.SmoothTime) / float64(c.cfg.SmoothTime+elapsed)
	c.offset = c.offset.Scale(k)
}
