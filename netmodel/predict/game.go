package predict

import (
	"github.com/netphys/netphys/wire"
)

// Game is what the model needs from a simulation whose players send
// inputs of type I. The server runs the authoritative copy and every
// client runs its own for prediction; both must step bit-identically
// from the same states and inputs (the arena of package scene does, and
// so do the small games of this package's tests and example).
//
// Bodies are numbered 0..Bodies()-1 and body p < Players() is player p's
// character. The model quantizes every body after every step with Spec
// (quantize on both sides), so that a client restarts its prediction from
// exactly the numbers the server continued from.
//
// Everything else is optional, as interfaces the game may implement:
// Shooter (shots and lag compensation), Joiner (players that enter and
// leave the world), Toucher (contacts, for the misprediction figures),
// Stepper (inputs that differ but step alike), Relayer (what the others
// learn of a player's input), Resimulator (told when a step is a
// re-simulation) and Escaper (puts back a body the spec cannot hold).
type Game[I any] interface {
	// Players is the number of player slots, at most MaxPlayers.
	Players() int
	// Bodies is the number of networked bodies, at most MaxBodies,
	// players first.
	Bodies() int
	// Spec is the quantization of a body on the wire and in both
	// simulations. A body outside its bounds after a step is an error
	// (ErrOutOfSpec) unless the game is an Escaper and puts it back.
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
	Body(i int) wire.BodyState
	SetBody(i int, s wire.BodyState) error

	// Step advances the game by one fixed tick with in[p] the input of
	// player p (len(in) == Players()). A player without a client, or
	// silent for longer than Config.Grace, gets the zero I: the zero
	// value must mean "do nothing". Shots are not the step's business:
	// a Shooter's shots are resolved by Shot before it.
	Step(in []I)
}

// State is a Game's saved state, opaque to the model.
type State any

// Shooter is the optional capability of a game whose players fire
// (hitscan) shots: lag compensation and committed hits. A game without it
// has no shots; the model never asks.
type Shooter[I any] interface {
	// Trigger reports whether in fires and, if so, its lag-compensation
	// claim: how many ticks behind its own tick the shooter saw the other
	// players. The server caps what the claim can buy (Config.MaxRewind).
	Trigger(in I) (fire bool, behind uint8)
	// SetTrigger returns in firing or not, with the claim behind (0 when
	// not firing). The client sets its claim with it; the server's guess
	// for a missing input never fires.
	SetTrigger(in I, fire bool, behind uint8) I
	// Shot resolves player p firing with in from where the game has it
	// now, against the other players at the given states (present[i]
	// says whether player i is in the game). The server passes the states
	// of the tick the shot is judged at (lag compensation), a client the
	// states it was showing; both call the same function, so they agree
	// whenever they agree on the states. ShotRefused is the game's rules
	// saying no (a rate of fire, say): counted, never a hit. Shot must not
	// change the game: what a shot does to the state (a cooldown) is
	// Step's business, since re-simulations step without calling Shot.
	Shot(p int, in I, targets []wire.BodyState, present []bool) (target int, outcome ShotOutcome)
}

// ShotOutcome is what Shooter.Shot decided.
type ShotOutcome uint8

const (
	ShotMissed  ShotOutcome = iota // fired, hit nothing
	ShotHit                        // fired and hit the target
	ShotRefused                    // the game's rules did not let the player fire
)

// Joiner is the optional capability of a game whose players enter and
// leave the world: Spawn puts player p's character in at its start when a
// client joins, Park takes it out when it leaves. Both are part of the
// state Save captures. Without it every player slot is always in the
// world (present) and a slot without a client steps with the zero input.
type Joiner interface {
	Spawn(p int)
	Park(p int)
}

// Toucher is the optional capability of a game that can tell whether
// player p touched another dynamic body in the last Step: predictions
// that involve other bodies are reported apart (ClientStats'
// Contact counts), since the client cannot know how the others move.
type Toucher interface {
	Touching(p int) bool
}

// Stepper is the optional capability of a game whose inputs can differ
// and still step alike (an aim that matters only to a shot): SameStep
// reports whether a and b step the game, and fire, the same way. The
// server skips the rewind for a late input that steps like its guess.
// Without it, inputs step alike only when equal.
type Stepper[I any] interface {
	SameStep(a, b I) bool
}

// Relayer is the optional capability of a game that tells each client
// only part of the others' inputs: the server sends every client each
// player's input of the last tick, which the client steps the others with
// until the next state. SerializeRelayed codes the part of in the others
// need (reading: that part, the rest zero); like Input's Serialize it
// must reject, when reading, any value the game cannot take. Without it
// the whole input is relayed.
type Relayer[I any] interface {
	SerializeRelayed(s wire.Stream, in *I) error
}

// Resimulator is the optional capability of a game that wants to know
// when a step is a re-simulation: the model calls Resimulating(true)
// before it steps again through ticks it stepped before (a server rewind
// for a late input, a client reconciliation with a server state) and
// Resimulating(false) after. One-shot effects (a sound, a particle burst,
// a kill-feed line) belong to steps outside a re-simulation on a client
// and, on the server, only to what Server.TakeCommitted returns: a
// re-simulated step replays what was already shown, and anything inside
// the window can still be rewritten.
type Resimulator interface {
	Resimulating(on bool)
}

// Escaper is the optional capability of a game that puts back a body
// that left its spec (flung out of the world, faster than the spec
// holds). After a step, a body outside the spec is counted
// (ServerCounters.OutOfSpec, ClientStats.OutOfSpec) and, if the game is
// an Escaper, passed to Escaped with the error; the game must then move
// it inside (a respawn, say), deterministically, since both sides do the
// same. A body still outside, or any outside in a game without Escaper,
// is an error of Server.Update or Client.Update wrapping ErrOutOfSpec:
// the model never clamps a body silently.
type Escaper interface {
	Escaped(i int, err error)
}

// Hit is the outcome of a shot that hit: the model's example of an
// irreversible outcome (a kill in a shooter). The server commits a hit
// only when its tick leaves the window, since a late input can still
// rewrite the ticks inside it.
type Hit struct {
	Tick    Tick // the shooter's tick
	Shooter int
	Target  int
}

// caps are a game's optional capabilities, found once.
type caps[I any] struct {
	shooter Shooter[I]
	joiner  Joiner
	toucher Toucher
	stepper Stepper[I]
	relayer Relayer[I]
	resim   Resimulator
	escaper Escaper
}

func capsOf[I any](g Game[I]) caps[I] {
	var c caps[I]
	c.shooter, _ = g.(Shooter[I])
	c.joiner, _ = g.(Joiner)
	c.toucher, _ = g.(Toucher)
	c.stepper, _ = g.(Stepper[I])
	c.relayer, _ = g.(Relayer[I])
	c.resim, _ = g.(Resimulator)
	c.escaper, _ = g.(Escaper)
	return c
}

// fires reports whether in fires, and its claim.
func (c *caps[I]) fires(in I) (bool, uint8) {
	if c.shooter == nil {
		return false, 0
	}
	return c.shooter.Trigger(in)
}

// sameStep reports whether a and b step the game the same way.
func sameStep[I comparable](c *caps[I], a, b I) bool {
	if c.stepper != nil {
		return c.stepper.SameStep(a, b)
	}
	return a == b
}

// guess is the server's stand-in for an input that has not arrived: the
// player's last controls, without the shot, which must never repeat.
func (c *caps[I]) guess(last I) I {
	if c.shooter == nil {
		return last
	}
	return c.shooter.SetTrigger(last, false, 0)
}

// touching reports whether player p touched a dynamic body in the last step.
func (c *caps[I]) touching(p int) bool { return c.toucher != nil && c.toucher.Touching(p) }

// resimulating tells the game a re-simulation starts or ends.
func (c *caps[I]) resimulating(on bool) {
	if c.resim != nil {
		c.resim.Resimulating(on)
	}
}
