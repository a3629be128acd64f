package lockstep

import "github.com/netphys/netphys/wire"

// Input is the constraint on a game's input type I: a comparable value
// (equal inputs cost one bit on the wire, and a prediction is checked by
// comparison) whose pointer has one Serialize for write, read and measure.
// Serialize must reject, when reading, any value the game cannot take
// (bits out of range): such messages are dropped, never applied.
type Input[I any] interface {
	*I
	Serialize(s wire.Stream) error
}

// Game is what lockstep needs from a deterministic simulation. The same
// inputs from the same start must give bit-identical states on every
// machine, which Checksum proves.
type Game[I any] interface {
	// Step advances one tick with inputs[p] the input of player p.
	Step(inputs []I)
	// Checksum hashes the whole state.
	Checksum() uint64
	// Save copies the current state into slot, 0 ≤ slot < Config.Rollback,
	// and Load restores the state saved there; the client keeps the state
	// before every tick it simulated on predicted inputs. Pure lockstep
	// (Rollback 0) never calls them.
	Save(slot int)
	Load(slot int)
}
