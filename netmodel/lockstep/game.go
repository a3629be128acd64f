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
//
// Ticks: lockstep tick n is the game's (n+1)-th Step, the first being
// tick 0. The state after tick n is the one the game holds once
// Client.Tick() is n+1, and the one Checksum hashes for tick n's report.
// A game that counts its own steps from 1 (package scene's physics tick)
// is at its tick n+1 after lockstep tick n.
//
// Everything else is optional, as interfaces the game may implement:
// Resimulator (told when a step is a re-simulation) and Snapshotter (its
// state as bytes, for a player who joins a running session).
type Game[I any] interface {
	// Step advances one tick with inputs[p] the input of player p.
	// A player who left, or whose seat nobody holds, steps with the zero
	// I: the zero value must mean "do nothing". Step runs again for
	// ticks it ran before when a rollback re-simulates them (see
	// Resimulator): one-shot effects do not belong in it.
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

// Resimulator is the optional capability of a game that wants to know
// when a step is a re-simulation: a rollback client calls
// Resimulating(true) before it loads a saved state to step again through
// ticks it stepped before (a prediction proved wrong), and
// Resimulating(false) after. It is the same hook, by the same name, as
// package predict's.
//
// One-shot effects (a sound, a particle burst, a goal shown) belong to
// steps outside a re-simulation, or better to ticks before the client's
// Stats().Confirmed, which no rollback can undo: a re-simulated step
// replays a tick that was already shown, and a predicted one may still
// be rewritten. Their record (a score, a log of goals) belongs to the
// state that Save and Load copy, so that a rollback undoes an event that
// did not happen after all.
type Resimulator interface {
	Resimulating(on bool)
}

// Snapshotter is the optional capability of a game whose state can be
// written as bytes and read back: what a player who joins a running
// session, or comes back after a drop, starts from. MarshalState writes
// everything Save would copy; UnmarshalState, on a game built as every
// player's is (the same layout, the same players), restores it so that
// the game steps on bit-identically to the one that wrote it: the same
// Checksum now and after every Step with the same inputs. UnmarshalState
// takes bytes from the network: anything that is not such a state must
// return an error and leave the game unchanged, never panic, and never
// allocate more than a small multiple of len(b).
type Snapshotter interface {
	MarshalState() ([]byte, error)
	UnmarshalState(b []byte) error
}
