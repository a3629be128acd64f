package scene

import (
	"fmt"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// Capture writes the visual state of every body into dst in snapshot
// order: the player first, then Cubes. dst must hold len(Cubes)+1.
func (s *Scene) Capture(dst []snapshot.Cube) {
	st := s.State(s.Player)
	dst[0] = snapshot.Cube{Position: st.Position, Rotation: st.Rotation, LinearVelocity: st.LinearVelocity}
	for i, id := range s.Cubes {
		st := s.State(id)
		dst[i+1] = snapshot.Cube{
			Position: st.Position, Rotation: st.Rotation,
			LinearVelocity: st.LinearVelocity, Interacting: s.interacting[i],
		}
	}
}

// InterpGame is the cube world as a snapshot-interpolation server's game
// (netmodel/interp.Game): the scene played with a script's inputs, over
// and over. Each time the script starts again the world restarts from the
// layout as built, and a body that leaves Bounds (blasted out of the
// field the codec can code) respawns where the layout put it, at rest.
// Both are teleports, which it reports (interp.Resetter) so that clients
// draw them as jumps, not as a flight through the world.
type InterpGame struct {
	Scene  *Scene
	Script Script
	// Bounds is the field a body must stay in; one that leaves it
	// respawns. NewInterpGame sets the snapshot codec's default position
	// bounds (snapshot.DefaultConfig).
	Bounds wire.Bounds
	tick   int
	start  Snapshot
	home   []physics.BodyState // every object's state as built, snapshot order
	reset  []bool              // objects the last Step teleported
	before []physics.BodyState // scratch: the states before a restart
	// Restarts and Respawns count the teleports.
	Restarts, Respawns uint64
}

// NewInterpGame builds the scene of layout and plays script on it.
func NewInterpGame(layout Layout, cfg Config, script Script) (*InterpGame, error) {
	s, err := New(layout, cfg)
	if err != nil {
		return nil, err
	}
	g := &InterpGame{Scene: s, Script: script, Bounds: snapshot.DefaultConfig().Position}
	s.Save(&g.start)
	g.reset = make([]bool, g.Objects())
	for i := range g.Objects() {
		g.home = append(g.home, s.State(g.object(i)))
	}
	return g, nil
}

// object returns the body of snapshot object i: the player, then Cubes.
func (g *InterpGame) object(i int) physics.BodyID {
	if i == 0 {
		return g.Scene.Player
	}
	return g.Scene.Cubes[i-1]
}

// Objects implements interp.Game: the player and the cubes.
func (g *InterpGame) Objects() int { return len(g.Scene.Cubes) + 1 }

// Step implements interp.Game: one tick of the script; the input is
// Input.Bits, as Predictor replays it. When the script starts again the
// world restarts first; after the step, bodies outside Bounds respawn.
func (g *InterpGame) Step() uint32 {
	clear(g.reset)
	var in Input
	if n := g.Script.Len(); n > 0 {
		if g.tick > 0 && g.tick%n == 0 {
			g.restart()
		}
		in = g.Script.At(g.tick % n)
	}
	g.tick++
	g.Scene.Step(in)
	g.respawn()
	return uint32(in.Bits())
}

// restart puts the world back as the layout built it, marking the
// objects that were anywhere else.
func (g *InterpGame) restart() {
	g.before = g.before[:0]
	for i := range g.Objects() {
		g.before = append(g.before, g.Scene.State(g.object(i)))
	}
	// The snapshot was taken from this very scene: Load cannot fail.
	if err := g.Scene.Load(&g.start); err != nil {
		panic(fmt.Sprintf("scene: restoring the interp world's start: %v", err))
	}
	for i, b := range g.before {
		if a := g.Scene.State(g.object(i)); a.Position != b.Position || a.Rotation != b.Rotation {
			g.reset[i] = true
		}
	}
	g.Restarts++
}

// respawn puts every object outside Bounds back home, at rest.
func (g *InterpGame) respawn() {
	for i := range g.Objects() {
		id := g.object(i)
		if p := g.Scene.State(id).Position; g.Bounds.Clamp(p) == p {
			continue
		}
		// A body the scene built always takes a valid state.
		// Awake, so that it settles if something took its place.
		st := g.home[i]
		st.AtRest = false
		if err := g.Scene.World.SetState(id, st); err != nil {
			panic(fmt.Sprintf("scene: respawning object %d: %v", i, err))
		}
		if i > 0 {
			g.Scene.interacting[i-1] = false
		}
		g.reset[i] = true
		g.Respawns++
	}
}

// Resets implements interp.Resetter: the objects the last Step restarted
// or respawned.
func (g *InterpGame) Resets(dst []bool) { copy(dst, g.reset) }

// Capture implements interp.Game.
func (g *InterpGame) Capture(dst []snapshot.Cube) { g.Scene.Capture(dst) }
