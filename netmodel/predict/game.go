package predict

import (
	"github.com/netphys/netphys/wire"
)

// Game is what the model needs from a simulation. The server runs the
// authoritative copy and every client runs its own for prediction; both
// must step bit-identically from the same states and inputs (the arena of
// package scene does, and so does the tiny game of this package's tests).
//
// Bodies are numbered 0..Bodies()-1 and body p < Players() is player p's
// character. The model quantizes every body after every step with Spec
// (quantize on both sides), so that a client restarts its prediction from
// exactly the numbers the server continued from.
type Game interface {
	// Players is the number of player slots, at most MaxPlayers.
	Players() int
	// Bodies is the number of networked bodies, at most MaxBodies,
	// players first.
	Bodies() int
	// Spec is the quantization of a body on the wire and in both
	// simulations. Its bounds must hold every body the game can produce.
	Spec() wire.StateSpec

	// NewState returns an empty buffer for Save; Save copies everything
	// that influences the next Step into it and Load puts it back. The
	// server keeps one per tick of its window, a client one per
	// predicted tick. The model only loads states it saved.
	NewState() State
	Save(dst State)
	Load(src State) error

	// Body returns body i's state; SetBody overwrites it (the model only
	// sets states it quantized with Spec).
	Body(i int) wire.CubeState
	SetBody(i int, s wire.CubeState) error
	// Spawn puts player p's character in the game at its start; Park
	// takes it out. Both are part of the state Save captures.
	Spawn(p int)
	Park(p int)

	// Step advances the game by one fixed tick, moving player p by in[p]
	// (len(in) == Players(); parked players ignore theirs). Shots are not
	// the step's business: the model resolves them with Shot before it.
	Step(in []Input)
	// Touching reports whether player p touched another dynamic body in
	// the last Step: predictions that involve other bodies are reported
	// apart, since the client cannot know how the others will move.
	Touching(p int) bool
	// Shot resolves player p firing with in's aim from where the game has
	// it now, against the other players at the given states (present[i]
	// says whether player i is in the game). The server passes the states
	// of in.Behind ticks ago (lag compensation), a client the states it
	// was showing; both call the same function, so they agree whenever
	// they agree on the states.
	Shot(p int, in Input, targets []wire.CubeState, present []bool) (target int, hit bool)
}

// State is a Game's saved state, opaque to the model.
type State any

// Hit is the outcome of a shot that hit: the model's example of an
// irreversible outcome (a kill in a shooter). The server commits a hit
// only when its tick leaves the window, since a late input can still
// rewrite the ticks inside it.
type Hit struct {
	Tick    Tick // the shooter's tick
	Shooter int
	Target  int
}
