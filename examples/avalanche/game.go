package main

import (
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire/snapshot"
)

// The game: boxes tumble down a ramp onto the ground, and every box that
// comes to rest or slides too far is dropped again from above the ramp,
// so something always moves. Only the server simulates it (on netphys's
// physics engine); clients draw the snapshots it sends.

const (
	spawnHeight = 9.0  // m, where boxes are dropped from
	farAway     = 30.0 // m from the ramp's foot: a box this far is dropped again
	historyLen  = 256  // ticks of truth kept for measuring the clients' error
)

// Avalanche is the server's game. It implements interp.Game.
type Avalanche struct {
	world *physics.World
	boxes []physics.BodyID
	ticks int64
	// history[t%historyLen] is every box's position after t Steps: the
	// truth the example measures the clients' pictures against; dropped
	// says which boxes Step t dropped again (a teleport, which Resets
	// reports).
	history [historyLen][]vecmath.Vec3
	dropped [historyLen][]bool
}

// NewAvalanche builds the ramp and n boxes spread above it.
func NewAvalanche(n int) (*Avalanche, error) {
	w, err := physics.NewWorld(physics.DefaultConfig())
	if err != nil {
		return nil, err
	}
	ground := physics.DefaultBodyDef()
	ground.Type = physics.Static
	ground.Shape = collide.Shape{Kind: collide.Plane}
	ramp := physics.DefaultBodyDef()
	ramp.Type = physics.Static
	ramp.Shape = collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(8, 0.5, 5)}
	ramp.Position = vecmath.V3(0, 3, 0)
	ramp.Rotation = vecmath.QuatAxisAngle(vecmath.V3(0, 0, 1), -0.35) // down towards +x
	for _, def := range []physics.BodyDef{ground, ramp} {
		if _, err := w.CreateBody(def); err != nil {
			return nil, err
		}
	}
	g := &Avalanche{world: w}
	for i := range n {
		def := physics.DefaultBodyDef()
		def.Shape.HalfExtents = vecmath.V3(0.4, 0.4, 0.4)
		def.Position = g.spawnPoint(i, 0)
		def.Friction = 0.3
		id, err := w.CreateBody(def)
		if err != nil {
			return nil, err
		}
		g.boxes = append(g.boxes, id)
	}
	for i := range g.history {
		g.history[i] = make([]vecmath.Vec3, n)
		g.dropped[i] = make([]bool, n)
	}
	g.record()
	return g, nil
}

// spawnPoint is where box i is dropped at tick t: above the ramp's top,
// spread in a pattern that changes with the tick.
func (g *Avalanche) spawnPoint(i int, t int64) vecmath.Vec3 {
	k := int64(i)*7 + t/60
	x := -6 + float64(float64(k%5)*0.9)
	z := -3.5 + float64((k/5)%8)
	y := spawnHeight + float64(float64(i%4)*1.2)
	return vecmath.V3(x, y, z)
}

// README: interp-game

// Objects is the number of boxes drawn.
func (g *Avalanche) Objects() int { return len(g.boxes) }

// Step advances the world one tick, first dropping again every box that
// rests or went far; it returns 0: the game has no inputs.
func (g *Avalanche) Step() uint32 {
	dropped := g.dropped[(g.ticks+1)%historyLen]
	clear(dropped)
	for i, id := range g.boxes {
		s, err := g.world.State(id)
		if err != nil {
			continue
		}
		if s.AtRest || s.Position.X > farAway || s.Position.Y < -1 {
			s = physics.BodyState{Position: g.spawnPoint(i, g.ticks), Rotation: vecmath.QuatIdentity}
			if err := g.world.SetState(id, s); err != nil {
				continue
			}
			dropped[i] = true
		}
	}
	g.world.Step()
	g.ticks++
	g.record()
	return 0
}

// Resets implements interp.Resetter: the boxes the last Step dropped
// again. Clients draw such a box where it was until the tick of the drop
// and where it was dropped from that tick on, instead of sweeping it
// through the world between the two.
func (g *Avalanche) Resets(dst []bool) { copy(dst, g.dropped[g.ticks%historyLen]) }

// Capture writes every box's pose into dst.
func (g *Avalanche) Capture(dst []snapshot.Cube) {
	for i, id := range g.boxes {
		s, _ := g.world.State(id)
		dst[i] = snapshot.Cube{Position: s.Position, Rotation: s.Rotation, Interacting: !s.AtRest}
	}
}

// README: end

func (g *Avalanche) record() {
	h := g.history[g.ticks%historyLen]
	for i, id := range g.boxes {
		s, _ := g.world.State(id)
		h[i] = s.Position
	}
}

// Truth returns box i's position at tick t (fractional, between two
// Steps' states), or false when t is outside the history. Between a
// box's last state before a drop and its first after, the truth is where
// it was: the drop is a jump, and clients draw it as one (Resets).
func (g *Avalanche) Truth(i int, t float64) (vecmath.Vec3, bool) {
	lo := int64(t)
	if lo < 0 || lo+1 > g.ticks || g.ticks-lo >= historyLen {
		return vecmath.Vec3{}, false
	}
	a, b := g.history[lo%historyLen][i], g.history[(lo+1)%historyLen][i]
	if g.dropped[(lo+1)%historyLen][i] {
		return a, true
	}
	return a.Lerp(b, t-float64(lo)), true
}
