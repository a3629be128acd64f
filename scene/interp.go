package scene

import "github.com/netphys/netphys/wire/snapshot"

// Capture writes the visual state of every body into dst in snapshot
// order: the player first, then Cubes. dst must hold len(Cubes)+1.
func (s *Scene) Capture(dst []snapshot.Cube) {
	st := s.State(s.Player)
	dst[0] = snapshot.Cube{Position: st.Position, Orientation: st.Rotation, LinearVelocity: st.LinearVelocity}
	for i, id := range s.Cubes {
		st := s.State(id)
		dst[i+1] = snapshot.Cube{
			Position: st.Position, Orientation: st.Rotation,
			LinearVelocity: st.LinearVelocity, Interacting: s.interacting[i],
		}
	}
}

// InterpGame is the cube world as a snapshot-interpolation server's game
// (netmodel/interp.Game): the scene played with a script's inputs, over
// and over.
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
	var in Input
	if n := g.Script.Len(); n > 0 {
		in = g.Script.At(g.tick % n)
	}
	g.tick++
	g.Scene.Step(in)
	return uint32(in.Bits())
}

// Capture implements interp.Game.
func (g *InterpGame) Capture(dst []snapshot.Cube) { g.Scene.Capture(dst) }
