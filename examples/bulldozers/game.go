package main

import (
	"fmt"

	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// Bulldozers is the game, one copy per machine: every player drives a
// cube of its own (a bulldozer) over the floor and pushes the towers of
// crates with it. There are no hands and no avatars: it implements
// statesync.Game and statesync.Bodies, and the bulldozers travel as
// objects like the crates (objects 0 to statesync.MaxPlayers-1, the
// crates after them).
type Bulldozers struct {
	w      *physics.World
	ids    []physics.BodyID
	byBody map[physics.BodyID]int
	local  statesync.Player
	// Drive steers the local bulldozer towards Target at Speed; off, the
	// player leaves it alone.
	Drive  bool
	Target vecmath.Vec3
	pairs  [][2]int
}

// Speed is how fast a bulldozer drives, m/s.
const Speed = 3.0

var (
	_ statesync.Game   = (*Bulldozers)(nil)
	_ statesync.Bodies = (*Bulldozers)(nil)
)

// Home is player p's bulldozer's place at the start, on a circle of 6 m.
func Home(p statesync.Player) vecmath.Vec3 {
	at := [statesync.MaxPlayers]vecmath.Vec3{vecmath.V3(0, 0.5, 6), vecmath.V3(6, 0.5, 0), vecmath.V3(0, 0.5, -6), vecmath.V3(-6, 0.5, 0)}
	return at[p]
}

// TowerAt is where tower k of towers stands, on a circle of 2 m.
func TowerAt(k int) vecmath.Vec3 {
	at := [...]vecmath.Vec3{vecmath.V3(2, 0, 2), vecmath.V3(2, 0, -2), vecmath.V3(-2, 0, -2), vecmath.V3(-2, 0, 2)}
	return at[k%len(at)]
}

// NewBulldozers builds the world as local player's machine sees it: the
// bulldozers at home and towers of height crates each.
func NewBulldozers(local statesync.Player, towers, height int) (*Bulldozers, error) {
	if towers < 1 || towers > 4 || height < 1 || height > 10 {
		return nil, fmt.Errorf("bulldozers: %d towers of %d crates: want 1-4 towers of 1-10", towers, height)
	}
	w, err := physics.NewWorld(physics.DefaultConfig())
	if err != nil {
		return nil, err
	}
	floor := physics.DefaultBodyDef()
	floor.Type, floor.Shape = physics.Static, collide.Shape{Kind: collide.Plane}
	if _, err := w.CreateBody(floor); err != nil {
		return nil, err
	}
	g := &Bulldozers{w: w, local: local, byBody: map[physics.BodyID]int{}}
	add := func(at vecmath.Vec3) error {
		def := physics.DefaultBodyDef()
		def.Mass, def.Position = 1, at
		id, err := w.CreateBody(def)
		if err != nil {
			return err
		}
		g.byBody[id] = len(g.ids)
		g.ids = append(g.ids, id)
		return nil
	}
	for p := range statesync.Player(statesync.MaxPlayers) {
		if err := add(Home(p)); err != nil {
			return nil, err
		}
	}
	for k := range towers {
		for y := range height {
			if err := add(TowerAt(k).Add(vecmath.V3(0, float64(y)+0.5, 0))); err != nil {
				return nil, err
			}
		}
	}
	return g, nil
}

// Objects implements statesync.Game: the bulldozers, then the crates.
func (g *Bulldozers) Objects() int { return len(g.ids) }

// Object implements statesync.Game.
func (g *Bulldozers) Object(i int) physics.BodyState {
	s, err := g.w.State(g.ids[i])
	if err != nil {
		panic(err) // the world's own handles are always valid
	}
	return s
}

// SetObject implements statesync.Game.
func (g *Bulldozers) SetObject(i int, s physics.BodyState) error { return g.w.SetState(g.ids[i], s) }

// Body implements statesync.Bodies: player p drives object p.
func (g *Bulldozers) Body(p statesync.Player) int { return int(p) }

// Step implements statesync.Game: the local player steers its bulldozer
// (horizontally; gravity keeps the rest), then the world steps. Nothing
// is ever grabbed.
func (g *Bulldozers) Step(func(int) bool) {
	if me := g.Body(g.local); g.Drive {
		s := g.Object(me)
		d := g.Target.Sub(s.Position)
		d.Y = 0
		v := vecmath.Vec3{}
		if l := d.Length(); l > 0.05 {
			v = d.Scale(min(Speed, float64(4*l)) / l)
		}
		v.Y = s.LinearVelocity.Y
		s.LinearVelocity, s.AtRest = v, false
		_ = g.w.SetState(g.ids[me], s)
	}
	g.w.Step()
	g.pairs = g.pairs[:0]
	g.w.Touching(func(a, b physics.BodyID) {
		ia, oka := g.byBody[a]
		ib, okb := g.byBody[b]
		if oka && okb {
			g.pairs = append(g.pairs, [2]int{ia, ib})
		}
	})
}

// Touches implements statesync.Game: the touching objects, and the local
// bulldozer while its player drives it (driving takes authority over it;
// what it pushes, the model takes through the touching pairs).
func (g *Bulldozers) Touches(objects func(a, b int), player func(p statesync.Player, i int)) {
	for _, p := range g.pairs {
		objects(p[0], p[1])
	}
	if g.Drive {
		player(g.local, g.Body(g.local))
	}
}
