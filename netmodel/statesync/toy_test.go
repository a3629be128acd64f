package statesync

import (
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// toyGame is the smallest world that plugs into the model, to show how a
// game that is not ours does it: cubes in a row on a floor, and per player
// one kinematic sphere as the hand (the head and the other hand stay at
// the player's spot). The local player's hand follows a target and grips
// on command, as a test script says.
//
// Its avatar has the shape it is given (toyShape, the VR table's, by
// default): the sphere is part hand, which grips only if the shape lets
// it hold (a paddle: one part that pushes); with limbs, the parts other
// than the root and the sphere follow the sphere at offsets of their own.
type toyGame struct {
	shape   AvatarShape
	hand    int
	limbs   bool
	w       *physics.World
	cubes   []physics.BodyID
	hands   [MaxPlayers]physics.BodyID
	avatars [MaxPlayers]Avatar
	present [MaxPlayers]bool
	local   Player
	// The local player's controls: where the hand goes (at most 6 m/s)
	// and whether it grips.
	target vecmath.Vec3
	grip   bool
	handV  vecmath.Vec3
	// touches of the last step
	pairs  [][2]int
	pokes  [][2]int // player, object
	byBody map[physics.BodyID]int
}

const toyHandSpeed = 6.0

func toyHome(p Player) vecmath.Vec3 { return vecmath.V3(float64(3*int(p))-4.5, 1, 6) }

func newToy(local Player, cubes int) *toyGame { return newToyTower(local, cubes, 0) }

// newToyTower is the toy with a tower of tower cubes standing at
// (0, z = -3) before the row of the others.
func newToyTower(local Player, cubes, tower int) *toyGame {
	return newShapedToy(local, cubes, tower, toyShape(), 1, false)
}

// limbOffset is where part k of a toy with limbs is from its sphere.
func limbOffset(k int) vecmath.Vec3 { return vecmath.V3(0.2*float64(k), 0.3, -0.1*float64(k)) }

// newShapedToy is the toy whose avatars have shape, the sphere being
// part hand.
func newShapedToy(local Player, cubes, tower int, shape AvatarShape, hand int, limbs bool) *toyGame {
	w, err := physics.NewWorld(physics.DefaultConfig())
	if err != nil {
		panic(err)
	}
	g := &toyGame{w: w, local: local, byBody: map[physics.BodyID]int{}, shape: shape, hand: hand, limbs: limbs}
	ground := physics.DefaultBodyDef()
	ground.Type, ground.Shape = physics.Static, collide.Shape{Kind: collide.Plane}
	if _, err := w.CreateBody(ground); err != nil {
		panic(err)
	}
	for i := range cubes {
		def := physics.DefaultBodyDef()
		def.Mass = 1
		def.Position = vecmath.V3(float64(2*i)-float64(cubes-1), 0.5, 0)
		if i < tower {
			def.Position = vecmath.V3(0, float64(i)+0.5, -3)
		}
		id, err := w.CreateBody(def)
		if err != nil {
			panic(err)
		}
		g.cubes = append(g.cubes, id)
		g.byBody[id] = i
	}
	for p := range Player(MaxPlayers) {
		def := physics.DefaultBodyDef()
		def.Type, def.Shape = physics.Kinematic, collide.Shape{Kind: collide.Sphere, Radius: 0.15}
		def.Position = toyHome(p).Add(vecmath.V3(0, 0, 20)) // parked until present
		id, err := w.CreateBody(def)
		if err != nil {
			panic(err)
		}
		g.hands[p] = id
		g.byBody[id] = -1 - int(p)
		var a Avatar
		for k := range min(shape.Parts, MaxParts) { // a shape the model refuses too
			a.Parts[k].Pose = vecmath.Transform{Pos: toyHome(p).Add(vecmath.V3(0, 1, 0)), Rot: vecmath.QuatIdentity}
		}
		g.avatars[p] = a
		g.moveHand(p, def.Position)
	}
	g.present[local] = true
	g.target = toyHome(local)
	g.moveHand(local, toyHome(local))
	_ = w.SetState(g.hands[local], physics.BodyState{Position: toyHome(local), Rotation: vecmath.QuatIdentity})
	return g
}

func (g *toyGame) state(id physics.BodyID) physics.BodyState { return mustState(g.w, id) }

func mustState(w *physics.World, id physics.BodyID) physics.BodyState {
	s, err := w.State(id)
	if err != nil {
		panic(err)
	}
	return s
}

func (g *toyGame) Objects() int                   { return len(g.cubes) }
func (g *toyGame) Object(i int) physics.BodyState { return g.state(g.cubes[i]) }
func (g *toyGame) SetObject(i int, s physics.BodyState) error {
	return g.w.SetState(g.cubes[i], s)
}

// toyShape is the VR table's avatar: a head (the root) and two hands
// within 2 m of it, which hold.
func toyShape() AvatarShape {
	return AvatarShape{Parts: 3, Reach: [MaxParts]float64{0, 2, 2}, Holds: [MaxParts]bool{false, true, true}, Speed: DefaultLimits().MaxSpeed}
}

func (g *toyGame) AvatarShape() AvatarShape { return g.shape }

// moveHand puts player p's sphere part at pos, and its limbs after it.
func (g *toyGame) moveHand(p Player, pos vecmath.Vec3) {
	a := &g.avatars[p]
	a.Parts[g.hand].Pose.Pos = pos
	for k := 1; g.limbs && k < g.shape.Parts; k++ {
		if k != g.hand {
			a.Parts[k].Pose.Pos = pos.Add(limbOffset(k))
		}
	}
}
func (g *toyGame) Avatar(p Player) Avatar { return g.avatars[p] }
func (g *toyGame) SetAvatar(p Player, a Avatar) {
	g.avatars[p], g.present[p] = a, true
}
func (g *toyGame) ClearAvatar(p Player) {
	g.present[p] = false
	for k := range g.avatars[p].Parts {
		g.avatars[p].Parts[k].Held = Held{}
	}
}
func (g *toyGame) Drop(i int) {
	if h := &g.avatars[g.local].Parts[g.hand].Held; h.Holding && h.Object == i {
		*h = Held{}
	}
}

func (g *toyGame) Step(mayGrab func(int) bool) {
	dt := g.w.Config().TimeStep
	me := &g.avatars[g.local]
	hand := me.Parts[g.hand].Pose.Pos
	d := g.target.Sub(hand)
	if l := d.Length(); l > toyHandSpeed*dt {
		d = d.Scale(toyHandSpeed * dt / l)
	}
	g.handV = d.Scale(1 / dt)
	held := &me.Parts[g.hand].Held
	switch {
	case !g.shape.Holds[g.hand]:
	case g.grip && !held.Holding:
		best, bestD := -1, 1.0
		for i, id := range g.cubes {
			if dd := g.state(id).Position.Sub(hand).Length(); dd < bestD && mayGrab(i) {
				best, bestD = i, dd
			}
		}
		if best >= 0 {
			s := g.state(g.cubes[best])
			hp := vecmath.Transform{Pos: hand, Rot: vecmath.QuatIdentity}
			*held = Held{Holding: true, Object: best, Relative: hp.Inverse().Mul(vecmath.Transform{Pos: s.Position, Rot: s.Rotation})}
		}
	case !g.grip && held.Holding:
		s := g.state(g.cubes[held.Object])
		s.LinearVelocity, s.AngularVelocity, s.AtRest = g.handV, vecmath.Vec3{}, false
		_ = g.w.SetState(g.cubes[held.Object], s)
		*held = Held{}
	}
	for p := range Player(MaxPlayers) {
		a := &g.avatars[p]
		cur := g.state(g.hands[p]).Position
		next := a.Parts[g.hand].Pose.Pos
		if p == g.local {
			next = hand.Add(d)
			g.moveHand(p, next)
		}
		if !g.present[p] {
			next = toyHome(p).Add(vecmath.V3(0, 0, 20))
		}
		v := next.Sub(cur).Scale(1 / dt)
		if next.Sub(cur).Length() > 1 { // appearing or leaving: jump, do not sweep
			cur, v = next, vecmath.Vec3{}
		}
		_ = g.w.SetState(g.hands[p], physics.BodyState{Position: cur, Rotation: vecmath.QuatIdentity, LinearVelocity: v})
		if h := a.Parts[g.hand].Held; h.Holding && g.present[p] {
			pose := vecmath.Transform{Pos: cur, Rot: vecmath.QuatIdentity}.Mul(h.Relative)
			_ = g.w.SetState(g.cubes[h.Object], physics.BodyState{Position: pose.Pos, Rotation: pose.Rot, LinearVelocity: v})
		}
	}
	g.w.Step()
	g.pairs, g.pokes = g.pairs[:0], g.pokes[:0]
	g.w.Touching(func(a, b physics.BodyID) {
		ia, oka := g.byBody[a]
		ib, okb := g.byBody[b]
		switch {
		case !oka || !okb:
		case ia >= 0 && ib >= 0:
			g.pairs = append(g.pairs, [2]int{ia, ib})
		case ia < 0 && ib >= 0:
			g.pokes = append(g.pokes, [2]int{-1 - ia, ib})
		case ib < 0 && ia >= 0:
			g.pokes = append(g.pokes, [2]int{-1 - ib, ia})
		}
	})
}

func (g *toyGame) Touches(objects func(a, b int), player func(p Player, i int)) {
	for _, p := range g.pairs {
		objects(p[0], p[1])
	}
	for _, p := range g.pokes {
		player(Player(p[0]), p[1])
	}
}
