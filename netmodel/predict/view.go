package predict

import "github.com/netphys/netphys/wire"

// What the client shows: the others as the server had them Delay ticks
// earlier (interpolated across a lost state), its own player predicted.

// observe fills the view of tick t: the others as the server had them
// delay ticks earlier, with the delay following the worst recent age of
// the newest state.
func (c *Client[I, PI]) observe(t Tick) {
	c.gaps[int(t)%len(c.gaps)] = int(int32(t - c.newest))
	worst := 0
	for _, g := range c.gaps {
		worst = max(worst, g)
	}
	c.delay = min(worst+c.cfg.InterpExtra, len(c.states)-1)
	c.shownBefore = append(c.shownBefore[:0], c.view.Bodies...)
	v := t - Tick(c.delay)
	c.view.Tick, c.view.You = v, c.you
	if sf := c.stateAt(v); sf.valid && sf.tick == v {
		c.fillView(sf, sf, 0)
		return
	}
	// Lost or not yet here: interpolate between the nearest states around
	// v, or hold the newest before it.
	var a, b *stateFrame[I]
	for k := Tick(1); int(k) < len(c.states) && (a == nil || b == nil); k++ {
		if sf := c.stateAt(v - k); a == nil && sf.valid && sf.tick == v-k {
			a = sf
		}
		if sf := c.stateAt(v + k); b == nil && sf.valid && sf.tick == v+k {
			b = sf
		}
	}
	switch {
	case a != nil && b != nil:
		c.fillView(a, b, float64(v-a.tick)/float64(b.tick-a.tick))
	case a != nil:
		c.stats.DryTicks++
		c.fillView(a, a, 0)
	case b != nil:
		c.fillView(b, b, 0)
	}
}

// fillView interpolates the view a fraction x of the way from a to b.
func (c *Client[I, PI]) fillView(a, b *stateFrame[I], x float64) {
	for p := range c.view.Present {
		c.view.Present[p] = a.players[p].present && b.players[p].present
	}
	for i := range c.view.Bodies {
		sa, sb := a.bodies[i], b.bodies[i]
		if x == 0 {
			c.view.Bodies[i] = sa
			continue
		}
		c.view.Bodies[i] = wire.BodyState{
			Position:        sa.Position.Lerp(sb.Position, x),
			Rotation:        sa.Rotation.Nlerp(sb.Rotation, x),
			LinearVelocity:  sa.LinearVelocity.Lerp(sb.LinearVelocity, x),
			AngularVelocity: sa.AngularVelocity.Lerp(sb.AngularVelocity, x),
			AtRest:          sa.AtRest && sb.AtRest,
		}
	}
}

// Shown returns what the client showed at its newest tick: the others
// as the server had them Delay ticks earlier, and which players are in
// the game. It is valid until the next Update.
func (c *Client[I, PI]) Shown() *View { return &c.view }

// Rendered returns the bodies as the client draws them now, between its
// last two ticks: the others between the last two views, its own player
// between its last two predictions, minus the correction still being
// smoothed away.
func (c *Client[I, PI]) Rendered(dst []wire.BodyState) []wire.BodyState {
	dst = append(dst[:0], c.view.Bodies...)
	if !c.started {
		return dst
	}
	x := max(0, min(1, c.clock-float64(c.tick)+1))
	if len(c.shownBefore) == len(dst) {
		for i := range dst {
			a, b := &c.shownBefore[i], &c.view.Bodies[i]
			dst[i].Position = a.Position.Lerp(b.Position, x)
			dst[i].Rotation = a.Rotation.Nlerp(b.Rotation, x)
		}
	}
	prev, cur := c.predAt(c.tick-1), c.predAt(c.tick)
	own := cur.bodies[c.you]
	if prev.tick == c.tick-1 {
		own.Position = prev.bodies[c.you].Position.Lerp(own.Position, x)
	}
	own.Position = own.Position.Add(c.offset)
	dst[c.you] = own
	return dst
}
