package predict

import (
	"errors"
	"math"

	"github.com/netphys/netphys/wire"
)

// Tick numbers the server's fixed steps. The state at tick t is the world
// before the step that applies the inputs of tick t.
type Tick uint32

// Input is one player's controls for one tick: the action-game input the
// model is built for (move, jump, aim and shoot). Values are integers so
// that what the client predicts with is exactly what the server decodes.
type Input struct {
	// MoveX and MoveZ are the wished horizontal direction in world axes,
	// each in [-MoveMax, MoveMax], with a length of at most MoveMax.
	MoveX, MoveZ int8
	// Yaw is the heading, 2π/65536 rad per unit, 0 looking along +Z and
	// growing towards +X. Pitch is the elevation in [-PitchMax, PitchMax]
	// (±π/2), positive up.
	Yaw   uint16
	Pitch int16
	Jump  bool
	Shoot bool
	// Behind is the shooter's lag-compensation claim, ticks: how far
	// behind its own tick were the other players it saw when it fired
	// (its interpolation delay plus the time their states took to reach
	// it). The client fills it in; the server caps it (Config.MaxRewind).
	// Sent only with Shoot.
	Behind uint8
}

// MoveMax is the length of a full move; PitchMax is π/2 in Pitch units.
const (
	MoveMax  = 127
	PitchMax = 16384
)

// ErrInput is returned by MakeInput for values no control can produce.
var ErrInput = errors.New("predict: impossible input")

// MakeInput quantizes controls given as floats: a move vector in world
// axes of length at most 1, and a yaw and pitch in radians. NaN or infinite
// values are ErrInput (a broken controller must not reach the server); a
// longer move is shortened and the pitch clamped.
func MakeInput(moveX, moveZ, yaw, pitch float64, jump, shoot bool) (Input, error) {
	for _, v := range [...]float64{moveX, moveZ, yaw, pitch} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Input{}, ErrInput
		}
	}
	if l := math.Sqrt(float64(moveX*moveX) + float64(moveZ*moveZ)); l > 1 {
		moveX, moveZ = moveX/l, moveZ/l
	}
	turns := yaw / (2 * math.Pi)
	turns -= math.Floor(turns)
	in := Input{
		MoveX: int8(math.Round(moveX * MoveMax)),
		MoveZ: int8(math.Round(moveZ * MoveMax)),
		Yaw:   uint16(uint32(math.Round(turns*65536)) & 0xffff),
		Pitch: int16(math.Round(math.Max(-1, math.Min(1, pitch/(math.Pi/2))) * PitchMax)),
		Jump:  jump, Shoot: shoot,
	}
	in, _ = in.sanitize(math.MaxUint8)
	return in, nil
}

// YawRadians and PitchRadians return the aim in radians.
func (in Input) YawRadians() float64   { return float64(in.Yaw) * (2 * math.Pi / 65536) }
func (in Input) PitchRadians() float64 { return float64(in.Pitch) * (math.Pi / 2 / PitchMax) }

// sanitize clamps what a forged packet can carry but no client produces: a
// move longer than MoveMax (a speed hack), a pitch beyond the vertical, a
// lag-compensation claim beyond maxBehind. It reports whether it changed
// anything, so that the server can count it.
func (in Input) sanitize(maxBehind uint8) (Input, bool) {
	orig := in
	if in.MoveX < -MoveMax {
		in.MoveX = -MoveMax
	}
	if in.MoveZ < -MoveMax {
		in.MoveZ = -MoveMax
	}
	x, z := int32(in.MoveX), int32(in.MoveZ)
	if l2 := x*x + z*z; l2 > MoveMax*MoveMax {
		// Scale down with integer arithmetic, rounding towards zero so
		// that the result is never longer than MoveMax.
		l := int32(math.Ceil(math.Sqrt(float64(l2))))
		in.MoveX, in.MoveZ = int8(x*MoveMax/l), int8(z*MoveMax/l)
	}
	if in.Pitch > PitchMax {
		in.Pitch = PitchMax
	}
	if in.Pitch < -PitchMax {
		in.Pitch = -PitchMax
	}
	if !in.Shoot {
		in.Behind = 0
	}
	if in.Behind > maxBehind {
		in.Behind = maxBehind
	}
	return in, in != orig
}

// sameStep reports whether a and b make the simulation step the same
// way: the aim matters only to a shot.
func sameStep(a, b Input) bool {
	if !a.Shoot && !b.Shoot {
		a.Yaw, a.Pitch, b.Yaw, b.Pitch = 0, 0, 0, 0
	}
	return a == b
}

// guess is the server's stand-in for an input that has not arrived: the
// player's last controls, without the shot, which must never repeat.
func guess(last Input) Input {
	last.Shoot, last.Behind = false, 0
	return last
}

// Serialize codes one input, given the one before it in the packet.
//
//	+------+-------+-------+-----+-------+------+-------+--------+
//	| same | moveX | moveZ | yaw | pitch | jump | shoot | behind |
//	| 1    | 8     | 8     | 16  | 16    | 1    | 1     | 8 if   |
//	|      |       |       |     |       |      |       | shoot  |
//	+------+-------+-------+-----+-------+------+-------+--------+
//
// same = 1 means "equal to prev" and nothing follows: held controls cost
// one bit per redundant copy. The fields are raw bits, so a forged packet
// can hold a too-long move or a pitch beyond the vertical: the server
// sanitizes after decoding.
func (in *Input) Serialize(s wire.Stream, prev Input) error {
	same := *in == prev
	if err := wire.SerializeBool(s, &same); err != nil {
		return err
	}
	if same {
		if s.Mode() == wire.Reading {
			*in = prev
		}
		return nil
	}
	mx, mz := uint8(in.MoveX), uint8(in.MoveZ)
	p := uint16(in.Pitch)
	for _, err := range [...]error{
		wire.SerializeBits(s, &mx, 8),
		wire.SerializeBits(s, &mz, 8),
		wire.SerializeBits(s, &in.Yaw, 16),
		wire.SerializeBits(s, &p, 16),
		wire.SerializeBool(s, &in.Jump),
		wire.SerializeBool(s, &in.Shoot),
	} {
		if err != nil {
			return err
		}
	}
	if s.Mode() != wire.Reading {
		if in.Shoot {
			return wire.SerializeBits(s, &in.Behind, 8)
		}
		return nil
	}
	in.MoveX, in.MoveZ, in.Pitch, in.Behind = int8(mx), int8(mz), int16(p), 0
	if !in.Shoot {
		return nil
	}
	return wire.SerializeBits(s, &in.Behind, 8)
}
