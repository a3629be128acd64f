package predict

import (
	"github.com/netphys/netphys/wire"
)

// Tick numbers the server's fixed steps of 1/Config.TickRate s, from 0
// when NewServer starts; a client's ticks are the same numbers (its
// prediction of server tick n is its tick n). The state at tick t is the
// world before the step that applies the inputs of tick t. Ticks wrap
// after 2³² (18 hours at 60 Hz, compared as signed differences).
//
// A Tick is not the game's own step count: a physics.World counts its
// steps from its creation (physics.Tick) and goes back with Restore, so
// the server's world is at physics tick n after n steps only until its
// first rewind, and a client's world counts from the state it started
// from, not from 0. A game that needs the model's tick keeps it in its
// own state, or counts steps from a state it was given.
type Tick uint32

// Input is the constraint on a game's input type I: a comparable value
// (a held control costs one bit on the wire, and a late input that equals
// the server's guess needs no rewind) whose pointer has one Serialize for
// write, read and measure. The model codes one bit "same as the previous
// input in the packet" before each input, and calls Serialize only for
// one that differs; reading, Serialize gets the zero I to fill.
// Serialize must reject, when reading, any value the game cannot take (a
// move longer than a full one, an aim beyond the vertical): the packet is
// dropped and counted (ServerCounters.BadPackets), never applied. The
// zero I must mean "do nothing": it is what a player without a client,
// or silent for longer than Config.Grace, steps with.
//
// This is the constraint of netmodel/lockstep: one input type plays in
// either model.
type Input[I any] interface {
	*I
	Serialize(s wire.Stream) error
}

// serializeInput codes one input, given the one before it in the packet:
// a bit "same as prev" and, if not, the game's own coding.
func serializeInput[I comparable, PI Input[I]](s wire.Stream, in *I, prev I) error {
	same := *in == prev
	if err := wire.SerializeBool(s, &same); err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		var zero I
		*in = zero
		if same {
			*in = prev
			return nil
		}
	} else if same {
		return nil
	}
	return PI(in).Serialize(s)
}
