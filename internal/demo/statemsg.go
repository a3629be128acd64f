package demo

import (
	"errors"
	"fmt"

	"github.com/netphys/netphys/wire"
)

// MaxEntities bounds the entity indices a StateMessage may carry: the
// player is entity 0 and cube i is entity i+1.
const MaxEntities = 4096

// ErrMessage reports a state message that does not decode.
var ErrMessage = errors.New("demo: bad state message")

// EntityState is one entity's state in a StateMessage.
type EntityState struct {
	Index       int // 0 the player, i+1 cube i
	State       wire.BodyState
	Interacting bool
}

// StateMessage carries the full states of a run of consecutive entities,
// sampled at one authority tick. Layout (wire bit packer, LSB first):
//
//	+-----------+-------------------+-------------------+------------------------------+
//	| tick (32) | first (12 bits)   | count-1 (12 bits) | count × (BodyState, interact)|
//	+-----------+-------------------+-------------------+------------------------------+
//
// BodyState is wire.DefaultStateSpec's encoding: 111 bits at rest, 207 moving,
// with the interacting bit.
type StateMessage struct {
	Tick     uint32
	Entities []EntityState // consecutive indices starting at Entities[0].Index
}

var stateSpec = wire.DefaultStateSpec()

// headerBits is the size of the fixed part of a StateMessage.
const headerBits = 32 + 12 + 12

// Serialize reads, writes or measures the message. Reading appends to
// m.Entities, one entry per entity actually decoded.
func (m *StateMessage) Serialize(s wire.Stream) error {
	if err := wire.SerializeBits(s, &m.Tick, 32); err != nil {
		return err
	}
	var first, count int
	if s.Mode() != wire.Reading {
		if len(m.Entities) == 0 {
			return fmt.Errorf("%w: no entities", ErrMessage)
		}
		first, count = m.Entities[0].Index, len(m.Entities)
	}
	if err := wire.SerializeInt(s, &first, 0, MaxEntities-1); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &count, 1, MaxEntities); err != nil {
		return err
	}
	if first+count > MaxEntities {
		return fmt.Errorf("%w: entities %d..%d beyond %d", ErrMessage, first, first+count, MaxEntities)
	}
	for i := 0; i < count; i++ {
		var e EntityState
		if s.Mode() == wire.Reading {
			e.Index = first + i
		} else {
			e = m.Entities[i]
			if e.Index != first+i {
				return fmt.Errorf("%w: entity %d out of sequence", ErrMessage, e.Index)
			}
		}
		if err := serializeEntity(s, &e); err != nil {
			return fmt.Errorf("%w: entity %d: %w", ErrMessage, first+i, err)
		}
		if s.Mode() == wire.Reading {
			m.Entities = append(m.Entities, e)
		}
	}
	return nil
}

func serializeEntity(s wire.Stream, e *EntityState) error {
	if err := e.State.Serialize(s, stateSpec); err != nil {
		return err
	}
	return wire.SerializeBool(s, &e.Interacting)
}

// entityBits is the encoded size of one entity.
func entityBits(e *EntityState) int { return e.State.Bits(stateSpec) + 1 }

// clampState brings a simulated state inside the wire's bounds. A body
// thrown out of the world, or spinning faster than the spec allows, is
// clamped rather than dropped: the remote copy still hears of it.
func clampState(c wire.BodyState) wire.BodyState {
	c.Position = stateSpec.Position.Clamp(c.Position)
	c.LinearVelocity = stateSpec.LinearVelocity.Clamp(c.LinearVelocity)
	c.AngularVelocity = stateSpec.AngularVelocity.Clamp(c.AngularVelocity)
	return c
}

// packStates splits states into StateMessages of at most budget bytes each
// and encodes them with buf as scratch, calling send with each encoded
// message (valid until send returns).
func packStates(tick uint32, states []EntityState, budget int, buf []byte, send func([]byte) error) error {
	for start := 0; start < len(states); {
		bits, end := headerBits, start
		for end < len(states) && bits+entityBits(&states[end]) <= budget*8 {
			bits += entityBits(&states[end])
			end++
		}
		if end == start {
			return fmt.Errorf("%w: one entity exceeds the %d-byte budget", ErrMessage, budget)
		}
		msg := StateMessage{Tick: tick, Entities: states[start:end]}
		w := wire.NewWriter(buf)
		if err := msg.Serialize(w); err != nil {
			return err
		}
		if err := send(w.Bytes()); err != nil {
			return err
		}
		start = end
	}
	return nil
}
