package main

import (
	"math"

	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// The game: hovercraft sumo. Up to four hovercraft slide on a round rink;
// a craft that leaves the rink is out: it respawns at its start, and the
// craft that bumped it last, if recently, scores. Plain float64
// kinematics in the x–z plane, stepped alike by the server and by every
// client's prediction: every product is rounded before it is added
// (float64(a*b) + c, never a*b + c, which a fused multiply-add would round
// differently on another machine), and the trigonometry is vecmath's.

// README: predict-input

// Stick is a player's input each tick: its own type, with nothing of a
// move vector or an aim in it.
type Stick struct {
	Turn   int8 // -1 left, 0 straight, +1 right
	Thrust int8 // -1 back, 0 coast, +1 forward
	Boost  bool // a dash along the heading, if recharged
}

// Serialize codes a Stick in 2 + 2 + 1 bits. Reading rejects the fourth
// value of Turn and Thrust, so a packet carrying one is dropped as
// forged, never stepped.
func (s *Stick) Serialize(st wire.Stream) error {
	if err := wire.SerializeInt(st, &s.Turn, -1, 1); err != nil {
		return err
	}
	if err := wire.SerializeInt(st, &s.Thrust, -1, 1); err != nil {
		return err
	}
	return wire.SerializeBool(st, &s.Boost)
}

// README: end

const (
	slots      = 4
	dt         = 1.0 / 60
	rinkRadius = 10.0 // m: a craft whose centre is further out is out
	radius     = 0.8  // m, of a craft
	turnRate   = 3.0  // rad/s
	thrust     = 9.0  // m/s²
	drag       = 1.5  // 1/s: hovercraft barely brake
	// stopSpeed: a coasting craft slower than this stops. Above it a
	// tick's drag takes off more than half the velocity's quantization
	// step (1/128 m/s); below, rounding would give it back every tick and
	// the craft would never come to rest.
	stopSpeed  = 0.5  // m/s
	maxSpeed   = 10.0 // m/s
	boostSpeed = 6.0  // m/s added by a boost
	boostTicks = 120  // ticks a boost takes to recharge
	bounce     = 0.9  // restitution of a bump
	bumpMemory = 180  // ticks a bump counts for a knockout
	maxKOs     = 256  // knockouts kept in the log
	noCraft    = -1
)

// KO is a knockout: the one-shot event of the game.
type KO struct {
	Tick int32 // the game's step that put the craft out
	Out  int8  // the craft knocked out
	By   int8  // the craft that bumped it last, or noCraft
}

// craft is one hovercraft: its body is what the network carries, the
// rest only the game keeps.
type craft struct {
	Body     wire.BodyState
	In       bool  // a player has it (predict.Joiner)
	Recharge int32 // ticks until the boost is ready
	BumpedBy int8  // the craft that bumped it last, or noCraft
	BumpAge  int32 // ticks since
}

// state is everything a step changes: what Save copies.
type state struct {
	Tick    int32 // steps since the start of this copy of the game
	Craft   [slots]craft
	Score   [slots]int32
	KOs     [maxKOs]KO
	KOCount int32
}

// Sumo is the game the predict server and clients step. It implements
// predict.Game[Stick], and predict.Joiner (a craft enters when its
// player joins) and predict.Toucher (bumps, for the misprediction
// figures).
type Sumo struct {
	state
	touched [slots]bool // in the last Step; recomputed by every Step
}

// NewSumo returns an empty rink: crafts enter as their players join.
func NewSumo() *Sumo {
	g := &Sumo{}
	for p := range g.Craft {
		g.home(p)
	}
	return g
}

// home puts craft p at its start, still, facing the centre.
func (g *Sumo) home(p int) {
	pos := [slots]vecmath.Vec3{vecmath.V3(0, 0, 6), vecmath.V3(0, 0, -6), vecmath.V3(6, 0, 0), vecmath.V3(-6, 0, 0)}
	yaw := [slots]float64{math.Pi, 0, -math.Pi / 2, math.Pi / 2}
	c := &g.Craft[p]
	c.Body = wire.BodyState{Position: pos[p], Rotation: vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), yaw[p]), AtRest: true}
	c.Recharge, c.BumpedBy, c.BumpAge = 0, noCraft, 0
}

func (g *Sumo) Players() int { return slots }
func (g *Sumo) Bodies() int  { return slots }

// Spec quantizes a craft to 1/256 m and 1/64 m/s; its heading is its
// orientation, 12 bits a component.
func (g *Sumo) Spec() wire.StateSpec {
	const pos, vel = 1.0 / 256, 1.0 / 64
	v := wire.Bounds{Min: vecmath.V3(-16, -16, -16), Max: vecmath.V3(16-vel, 16-vel, 16-vel), Res: vel}
	return wire.StateSpec{
		Position:        wire.Bounds{Min: vecmath.V3(-16, -1, -16), Max: vecmath.V3(16-pos, 1-pos, 16-pos), Res: pos},
		OrientationBits: 12, LinearVelocity: v, AngularVelocity: v,
	}
}

// README: predict-state

// NewState, Save and Load keep the states the model rewinds to. The
// whole game state is a value, the knockout log and the boosts' recharge
// included: a knockout a re-simulation undoes leaves the log.
func (g *Sumo) NewState() predict.State { return &state{} }
func (g *Sumo) Save(dst predict.State)  { *dst.(*state) = g.state }
func (g *Sumo) Load(src predict.State) error {
	g.state = *src.(*state)
	return nil
}

// Body and SetBody are what the network carries of craft i; the model
// sets only states it quantized with Spec.
func (g *Sumo) Body(i int) wire.BodyState { return g.Craft[i].Body }
func (g *Sumo) SetBody(i int, s wire.BodyState) error {
	g.Craft[i].Body = s
	return nil
}

// Spawn and Park implement predict.Joiner: a craft is on the rink while
// its player is in the game, and waits at its start, out of play, while
// nobody is.
func (g *Sumo) Spawn(p int) {
	g.home(p)
	g.Craft[p].In = true
}

func (g *Sumo) Park(p int) {
	g.home(p)
	g.Craft[p].In = false
}

// README: end

// Touching implements predict.Toucher.
func (g *Sumo) Touching(p int) bool { return g.touched[p] }

// Step advances one tick: each craft turns, thrusts and glides, crafts
// that overlap bounce apart, and crafts off the rink are knocked out.
func (g *Sumo) Step(in []Stick) {
	g.Tick++
	g.touched = [slots]bool{}
	for p := range g.Craft {
		if g.Craft[p].In {
			g.drive(&g.Craft[p], in[p])
		}
	}
	for i := range g.Craft {
		for j := i + 1; j < slots; j++ {
			if g.Craft[i].In && g.Craft[j].In {
				g.bump(i, j)
			}
		}
	}
	for p := range g.Craft {
		c := &g.Craft[p]
		if !c.In {
			continue
		}
		c.Body.LinearVelocity = capSpeed(c.Body.LinearVelocity)
		if c.Body.Position.Length() > rinkRadius {
			g.knockOut(p)
		}
	}
}

// drive applies one tick of a craft's controls and moves it.
func (g *Sumo) drive(c *craft, s Stick) {
	b := &c.Body
	yaw := 2 * vecmath.Atan2(b.Rotation.Y, b.Rotation.W)
	yaw += float64(float64(s.Turn) * (turnRate * dt))
	b.Rotation = vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), yaw)
	sin, cos := vecmath.SinCos(yaw)
	ahead := vecmath.V3(sin, 0, cos)
	v := b.LinearVelocity.MulAdd(float64(s.Thrust)*(thrust*dt), ahead)
	if c.Recharge > 0 {
		c.Recharge--
	} else if s.Boost {
		v = v.MulAdd(boostSpeed, ahead)
		c.Recharge = boostTicks
	}
	v = v.Scale(1 - drag*dt)
	if s.Thrust == 0 && v.Length() < stopSpeed {
		v = vecmath.Vec3{}
	}
	v = capSpeed(v)
	b.LinearVelocity = v
	b.Position = b.Position.MulAdd(dt, v)
	b.AtRest = v == vecmath.Vec3{} && s == Stick{}
	c.BumpAge++
}

// bump pushes crafts i and j apart if they overlap and, if they close
// in, exchanges the normal part of their velocities (equal masses).
func (g *Sumo) bump(i, j int) {
	a, b := &g.Craft[i].Body, &g.Craft[j].Body
	d := b.Position.Sub(a.Position)
	dist := d.Length()
	if dist >= 2*radius {
		return
	}
	n := vecmath.V3(1, 0, 0) // on top of each other: apart along x
	if dist > 0 {
		n = d.Scale(1 / dist)
	}
	half := (2*radius - dist) / 2
	a.Position = a.Position.MulAdd(-half, n)
	b.Position = b.Position.MulAdd(half, n)
	if closing := b.LinearVelocity.Sub(a.LinearVelocity).Dot(n); closing < 0 {
		impulse := float64(-(1+bounce)*closing) / 2
		a.LinearVelocity = a.LinearVelocity.MulAdd(-impulse, n)
		b.LinearVelocity = b.LinearVelocity.MulAdd(impulse, n)
	}
	a.AtRest, b.AtRest = false, false
	g.touched[i], g.touched[j] = true, true
	g.Craft[i].BumpedBy, g.Craft[i].BumpAge = int8(j), 0
	g.Craft[j].BumpedBy, g.Craft[j].BumpAge = int8(i), 0
}

// knockOut logs craft p's knockout, scores it and respawns the craft.
func (g *Sumo) knockOut(p int) {
	ko := KO{Tick: g.Tick, Out: int8(p), By: noCraft}
	if c := &g.Craft[p]; c.BumpedBy != noCraft && c.BumpAge <= bumpMemory {
		ko.By = c.BumpedBy
		g.Score[ko.By]++
	}
	if g.KOCount < maxKOs {
		g.KOs[g.KOCount] = ko
		g.KOCount++
	}
	g.home(p)
}

func capSpeed(v vecmath.Vec3) vecmath.Vec3 {
	if l := v.Length(); l > maxSpeed {
		return v.Scale(maxSpeed / l)
	}
	return v
}

// Log returns the knockouts so far; the newest can still be rewritten
// until their tick leaves the server's window.
func (g *Sumo) Log() []KO { return g.KOs[:g.KOCount] }

// Bot is a computer player's control: it reads the client's View (the
// others as the server had them a few ticks ago, itself predicted) and
// chases the nearest craft, boosting when close and lined up, or heads
// back to the middle when near the edge. bias turns each bot's approach
// a little, so that they circle instead of meeting head-on forever.
func Bot(v *predict.View, bias float64) Stick {
	own := v.Own.Position
	target, best := vecmath.V3(0, 0, 0), -1.0
	if own.Length() < rinkRadius-2 {
		for p, b := range v.Bodies {
			if p == v.You || !v.Present[p] {
				continue
			}
			if d := b.Position.Sub(own).Length(); best < 0 || d < best {
				target, best = b.Position, d
			}
		}
	}
	to := target.Sub(own)
	want := vecmath.Atan2(to.X, to.Z) + bias
	yaw := 2 * vecmath.Atan2(v.Own.Rotation.Y, v.Own.Rotation.W)
	off := want - yaw
	for off > math.Pi {
		off -= 2 * math.Pi
	}
	for off < -math.Pi {
		off += 2 * math.Pi
	}
	var s Stick
	switch {
	case off > 0.1:
		s.Turn = 1
	case off < -0.1:
		s.Turn = -1
	}
	if off < 1 && off > -1 {
		s.Thrust = 1
	}
	s.Boost = best >= 0 && best < 6 && off < 0.3 && off > -0.3
	return s
}
