package scene

import (
	"math"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire/snapshot"
)

// Capture writes the visual state of every body into dst in snapshot
// order: the player first, then Cubes. dst must hold len(Cubes)+1.
func (s *Scene) Capture(dst []snapshot.Cube) {
	st := s.World.State(s.Player)
	dst[0] = snapshot.Cube{Position: st.Position, Orientation: st.Rotation, LinearVelocity: st.LinearVelocity}
	for i, id := range s.Cubes {
		st := s.World.State(id)
		dst[i+1] = snapshot.Cube{
			Position: st.Position, Orientation: st.Rotation,
			LinearVelocity: st.LinearVelocity, Interacting: s.interacting[i],
		}
	}
}

// InterpGame is the cube world as a snapshot-interpolation server's game
// (netmodel/interp.Game): the scene played with a script's inputs.
type InterpGame struct {
	Scene  *Scene
	Script Script
	tick   int
}

// NewInterpGame builds the scene of layout and plays script on it.
func NewInterpGame(layout Layout, cfg Config, script Script) (*InterpGame, error) {
	s, err := New(layout, cfg)
	if err != nil {
		return nil, err
	}
	return &InterpGame{Scene: s, Script: script}, nil
}

// Objects implements interp.Game: the player and the cubes.
func (g *InterpGame) Objects() int { return len(g.Scene.Cubes) + 1 }

// Step implements interp.Game: one tick of the script; the input is
// Input.Bits, as Predictor replays it.
func (g *InterpGame) Step() uint32 {
	in := g.Script.At(g.tick)
	g.tick++
	g.Scene.Step(in)
	return uint32(in.Bits())
}

// Capture implements interp.Game.
func (g *InterpGame) Capture(dst []snapshot.Cube) { g.Scene.Capture(dst) }

// Penetration returns how deep cube i of a drawn snapshot (cube 0 the
// player) cuts into the player: the deepest corner of the cube inside the
// player's box, or of the player's box inside the cube, in metres; 0 if
// they do not overlap. The article's linear-interpolation artefact is
// katamari cubes orbiting the player cutting the chord through it.
func (cfg Config) Penetration(cubes []snapshot.Cube, i int) float64 {
	if i <= 0 || i >= len(cubes) {
		return 0
	}
	player, c := cubes[0], cubes[i]
	hp, hc := cfg.PlayerSize/2, cfg.CubeSize/2
	if c.Position.Sub(player.Position).Length() > float64(hp+hc)*1.8 {
		return 0 // beyond the reach of any corner
	}
	return max(cornersInside(c, hc, player, hp), cornersInside(player, hp, c, hc))
}

// cornersInside returns how deep the deepest corner of box a (half edge
// ha) lies inside box b (half edge hb), 0 if none does.
func cornersInside(a snapshot.Cube, ha float64, b snapshot.Cube, hb float64) float64 {
	deepest := 0.0
	for k := range 8 {
		corner := vecmath.V3(ha, ha, ha)
		if k&1 != 0 {
			corner.X = -ha
		}
		if k&2 != 0 {
			corner.Y = -ha
		}
		if k&4 != 0 {
			corner.Z = -ha
		}
		p := b.Orientation.InvRotate(a.Position.Add(a.Orientation.Rotate(corner)).Sub(b.Position))
		d := min(hb-math.Abs(p.X), hb-math.Abs(p.Y), hb-math.Abs(p.Z))
		deepest = max(deepest, d)
	}
	return deepest
}
