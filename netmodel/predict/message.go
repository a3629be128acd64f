package predict

import (
	"errors"
	"fmt"

	"github.com/netphys/netphys/wire"
)

// Limits of the wire format. They bound what a peer's bytes can make the
// receiver store or do, whatever the Config says.
const (
	// MaxInputs is the most inputs one packet carries: a client sends
	// every input the server has not acknowledged, up to this many.
	MaxInputs = 64
	// MaxPlayers is the most player slots a game may have.
	MaxPlayers = 32
	// MaxBodies is the most networked bodies a game may have.
	MaxBodies = 512
	// epochs is the number of clock-sync epochs before they wrap.
	epochs = 16
	// leadScale is the resolution of the input lead the server reports:
	// eighths of a tick, within ±leadLimit ticks.
	leadScale   = 8
	leadLimit   = 256
	leadUnknown = -leadLimit * leadScale // no input arrived in the window yet
)

var (
	// ErrMessage reports a packet that decoded but cannot be right: bits
	// after the end, a player slot the game does not have.
	ErrMessage = errors.New("predict: malformed message")
)

// inputPacket is what a client sends every tick: every input the server
// has not acknowledged, oldest first.
//
//	+-------+-------+-------+-------+----------------------------+
//	| epoch | first | count | since | count × (same, input)      |
//	| 4     | 32    | 7     | 7     | 1 bit, and the game's I    |
//	|       |       |       |       | coding if not same         |
//	+-------+-------+-------+-------+----------------------------+
//
// epoch is the client's clock-sync epoch: it grows when the client jumps
// its clock, so that the server restarts its lead measurement; inputs
// from since on were sampled in that epoch (the ones before were sampled
// in a burst while the clock caught up, and their lead means nothing).
// first is the tick of the first input. same = 1 means "equal to the
// input before" (the zero I for the first) and nothing follows: held
// controls cost one bit per redundant copy.
type inputPacket[I comparable, PI Input[I]] struct {
	epoch  uint8
	first  Tick
	count  int
	since  int
	inputs [MaxInputs]I
}

func (p *inputPacket[I, PI]) Serialize(s wire.Stream) error {
	if err := wire.SerializeInt(s, &p.epoch, 0, epochs-1); err != nil {
		return err
	}
	if err := wire.SerializeBits(s, &p.first, 32); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &p.count, 0, MaxInputs); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &p.since, 0, MaxInputs); err != nil {
		return err
	}
	if p.since > p.count {
		return fmt.Errorf("%w: inputs of the epoch from %d of %d", wire.ErrInvalid, p.since, p.count)
	}
	var prev I
	for i := 0; i < p.count; i++ {
		if err := serializeInput[I, PI](s, &p.inputs[i], prev); err != nil {
			return fmt.Errorf("predict: input %d: %w", i, err)
		}
		prev = p.inputs[i]
	}
	return nil
}

// playerInfo is what a state packet says about one player slot besides
// its body: whether it is in the game, the input it stepped with into
// this tick (what the game's Relayer relays of it, so that a client can
// extrapolate the other players), and whether it touched another
// dynamic body in that step.
type playerInfo[I any] struct {
	present  bool
	input    I
	touching bool
}

// statePacket is the server's state of the world at one tick, sent to one
// client. The counts of players and bodies are the game's, known to both
// sides, and are not sent.
//
//	+------+-----+-------+------+------+------+--------------------+-----------------+
//	| tick | you | epoch | lead | hits | base | players            | bodies          |
//	| 32   | 5   | 4     | 12   | 16,  | 1 or | present, relayed   | 1 bit "as in    |
//	|      |     |       |      | if a | 1+9  | input, touching    | base", else the |
//	|      |     |       |      | Shoo-|      | (1 bit if absent)  | BodyState       |
//	|      |     |       |      | ter  |      |                    |                 |
//	+------+-----+-------+------+------+------+--------------------+-----------------+
//
// you is the client's player slot; epoch echoes the newest clock epoch the
// server saw from it and lead is how early its inputs arrived (the minimum
// over Config.LeadWindow), in eighths of a tick, or leadUnknown. hits, in a
// game that shoots, counts the client's hits the server committed, modulo
// 2^16: the shooter's hit confirmation. base, when
// present, is how many ticks before tick the baseline is: a state the
// client acknowledged, whose unchanged bodies cost one bit (delta
// compression; a resting cube is the common case). Absent players' bodies
// are not sent. The relayed input is the game's Relayer coding, or the
// whole input's (the arena relays its move and jump: 8+8+1 bits).
type statePacket[I comparable, PI Input[I]] struct {
	tick    Tick
	you     int
	epoch   uint8
	lead    int32
	shooter bool   // the game shoots: hits travel
	hits    uint16 // the client's committed hits, modulo 2^16
	hasBase bool
	base    Tick // ticks before tick, 1..maxBaseAge
	players []playerInfo[I]
	bodies  []wire.BodyState
	relayer Relayer[I] // nil: the whole input
	// codes, when not nil, hold the bodies' bits for a writer: the
	// sender's, set to those of the frame the bodies are copied from.
	codes *bodyCodes
}

// maxBaseAge bounds how old a baseline may be, ticks: the largest window.
const maxBaseAge = 4 * MaxInputs

// baseline returns the bodies of the state of tick t and which players
// were present in it, or false: the sender's copy when writing, the
// receiver's when reading.
type baseline func(t Tick) (bodies []wire.BodyState, present []bool, ok bool)

func newStatePacket[I comparable, PI Input[I]](players, bodies int, relayer Relayer[I], shooter bool) *statePacket[I, PI] {
	return &statePacket[I, PI]{players: make([]playerInfo[I], players), bodies: make([]wire.BodyState, bodies), relayer: relayer, shooter: shooter}
}

// Serialize codes the packet; base finds the baseline's bodies, when the
// packet names one (writing: the sender's copy; reading: the receiver's).
func (p *statePacket[I, PI]) Serialize(s wire.Stream, spec wire.StateSpec, base baseline) error {
	if err := wire.SerializeBits(s, &p.tick, 32); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &p.you, 0, MaxPlayers-1); err != nil {
		return err
	}
	if s.Mode() == wire.Reading && p.you >= len(p.players) {
		return fmt.Errorf("%w: player slot %d of %d", ErrMessage, p.you, len(p.players))
	}
	if err := wire.SerializeInt(s, &p.epoch, 0, epochs-1); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &p.lead, -leadLimit*leadScale, leadLimit*leadScale-1); err != nil {
		return err
	}
	if p.shooter {
		if err := wire.SerializeBits(s, &p.hits, 16); err != nil {
			return err
		}
	}
	if err := wire.SerializeBool(s, &p.hasBase); err != nil {
		return err
	}
	var ref []wire.BodyState
	var refPresent []bool
	if p.hasBase {
		if err := wire.SerializeInt(s, &p.base, 1, maxBaseAge); err != nil {
			return err
		}
		var ok bool
		ref, refPresent, ok = base(p.tick - p.base)
		if !ok || len(ref) != len(p.bodies) || len(refPresent) != len(p.players) {
			return fmt.Errorf("%w: no baseline %d ticks before %d", ErrMessage, p.base, p.tick)
		}
	}
	for i := range p.players {
		pl := &p.players[i]
		if err := wire.SerializeBool(s, &pl.present); err != nil {
			return err
		}
		if !pl.present {
			if s.Mode() == wire.Reading {
				*pl = playerInfo[I]{}
			}
			continue
		}
		if s.Mode() == wire.Reading {
			var zero I
			pl.input = zero
		}
		var err error
		if p.relayer != nil {
			err = p.relayer.SerializeRelayed(s, &pl.input)
		} else {
			err = PI(&pl.input).Serialize(s)
		}
		if err != nil {
			return fmt.Errorf("predict: player %d's input: %w", i, err)
		}
		if err := wire.SerializeBool(s, &pl.touching); err != nil {
			return err
		}
	}
	for i := range p.bodies {
		if i < len(p.players) && !p.players[i].present {
			continue
		}
		// A player absent from the baseline has no body there to repeat.
		if ref != nil && (i >= len(p.players) || refPresent[i]) {
			same := p.bodies[i] == ref[i]
			if err := wire.SerializeBool(s, &same); err != nil {
				return err
			}
			if same {
				p.bodies[i] = ref[i]
				continue
			}
		}
		var err error
		if p.codes != nil && s.Mode() == wire.Writing {
			err = p.codes.write(s, spec, i, &p.bodies[i])
		} else {
			err = p.bodies[i].Serialize(s, spec)
		}
		if err != nil {
			return fmt.Errorf("predict: body %d: %w", i, err)
		}
	}
	return nil
}

// finish checks that a reader consumed the packet: only the zero padding
// of the last byte may remain.
func finish(r *wire.Reader) error {
	if r.BitsLeft() >= 8 {
		return fmt.Errorf("%w: %d bits after the end", ErrMessage, r.BitsLeft())
	}
	return r.Align()
}
