package scene

import (
	"errors"
	"fmt"
	"math"

	"github.com/netphys/netphys/wire"
)

// ArenaInput is one arena player's controls for one tick: move, jump,
// aim and shoot. Values are integers so that what the client predicts
// with is exactly what the server decodes. It satisfies
// predict.Input[ArenaInput]; the arena implements predict.Shooter on it.
type ArenaInput struct {
	// MoveX and MoveZ are the wished horizontal direction in world axes,
	// each in [-ArenaMoveMax, ArenaMoveMax], with a length of at most
	// ArenaMoveMax.
	MoveX, MoveZ int8
	// Yaw is the heading, 2π/65536 rad per unit, 0 looking along +Z and
	// growing towards +X. Pitch is the elevation in
	// [-ArenaPitchMax, ArenaPitchMax] (±π/2), positive up.
	Yaw   uint16
	Pitch int16
	Jump  bool
	Shoot bool
	// Behind is the shooter's lag-compensation claim, ticks: how far
	// behind its own tick were the other players it saw when it fired
	// (its interpolation delay plus the time their states took to reach
	// it). The predict client fills it in; the server caps what it buys
	// (predict.Config.MaxRewind). Sent only with Shoot.
	Behind uint8
}

// ArenaMoveMax is the length of a full move; ArenaPitchMax is π/2 in
// Pitch units.
const (
	ArenaMoveMax  = 127
	ArenaPitchMax = 16384
)

// ErrArenaInput is returned by MakeArenaInput for values no control can
// produce.
var ErrArenaInput = errors.New("scene: impossible arena input")

// MakeArenaInput quantizes controls given as floats: a move vector in
// world axes of length at most 1, and a yaw and pitch in radians. NaN or
// infinite values are ErrArenaInput (a broken controller must not reach
// the server); a longer move is shortened and the pitch clamped.
func MakeArenaInput(moveX, moveZ, yaw, pitch float64, jump, shoot bool) (ArenaInput, error) {
	for _, v := range [...]float64{moveX, moveZ, yaw, pitch} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ArenaInput{}, ErrArenaInput
		}
	}
	if l := math.Sqrt(float64(moveX*moveX) + float64(moveZ*moveZ)); l > 1 {
		moveX, moveZ = moveX/l, moveZ/l
	}
	turns := yaw / (2 * math.Pi)
	turns -= math.Floor(turns)
	in := ArenaInput{
		MoveX: int8(math.Round(moveX * ArenaMoveMax)),
		MoveZ: int8(math.Round(moveZ * ArenaMoveMax)),
		Yaw:   uint16(uint32(math.Round(turns*65536)) & 0xffff),
		Pitch: int16(math.Round(math.Max(-1, math.Min(1, pitch/(math.Pi/2))) * ArenaPitchMax)),
		Jump:  jump, Shoot: shoot,
	}
	x, z := int32(in.MoveX), int32(in.MoveZ)
	if l2 := x*x + z*z; l2 > ArenaMoveMax*ArenaMoveMax {
		// Rounding made it longer: scale down with integer arithmetic,
		// rounding towards zero, so that it is never longer than a full
		// move.
		l := int32(math.Ceil(math.Sqrt(float64(l2))))
		in.MoveX, in.MoveZ = int8(x*ArenaMoveMax/l), int8(z*ArenaMoveMax/l)
	}
	return in, nil
}

// YawRadians and PitchRadians return the aim in radians.
func (in ArenaInput) YawRadians() float64   { return float64(in.Yaw) * (2 * math.Pi / 65536) }
func (in ArenaInput) PitchRadians() float64 { return float64(in.Pitch) * (math.Pi / 2 / ArenaPitchMax) }

// Valid reports whether a client can send in: a move no longer than a
// full one, a pitch within the vertical, a claim only with a shot.
func (in ArenaInput) Valid() bool {
	x, z := int32(in.MoveX), int32(in.MoveZ)
	return x*x+z*z <= ArenaMoveMax*ArenaMoveMax && in.Pitch >= -ArenaPitchMax && in.Pitch <= ArenaPitchMax && (in.Shoot || in.Behind == 0)
}

// Serialize codes the input (predict codes a bit "same as the previous
// input" before it):
//
//	+-------+-------+-----+-------+------+-------+--------+
//	| moveX | moveZ | yaw | pitch | jump | shoot | behind |
//	| 8     | 8     | 16  | 16    | 1    | 1     | 8 if   |
//	|       |       |     |       |      |       | shoot  |
//	+-------+-------+-----+-------+------+-------+--------+
//
// Reading, a move longer than a full one (a speed hack) or a pitch
// beyond the vertical is wire.ErrInvalid: the server drops the packet.
func (in *ArenaInput) Serialize(s wire.Stream) error {
	mx, mz, p := uint8(in.MoveX), uint8(in.MoveZ), uint16(in.Pitch)
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
	if s.Mode() == wire.Reading {
		in.MoveX, in.MoveZ, in.Pitch, in.Behind = int8(mx), int8(mz), int16(p), 0
	}
	if in.Shoot {
		if err := wire.SerializeBits(s, &in.Behind, 8); err != nil {
			return err
		}
	}
	if s.Mode() == wire.Reading && !in.Valid() {
		return fmt.Errorf("%w: arena input %+v", wire.ErrInvalid, *in)
	}
	return nil
}

// SerializeRelayed implements predict.Relayer: the others learn a
// player's move and jump (8+8+1 bits), not its aim.
func (a *Arena) SerializeRelayed(s wire.Stream, in *ArenaInput) error {
	mx, mz := uint8(in.MoveX), uint8(in.MoveZ)
	for _, err := range [...]error{
		wire.SerializeBits(s, &mx, 8),
		wire.SerializeBits(s, &mz, 8),
		wire.SerializeBool(s, &in.Jump),
	} {
		if err != nil {
			return err
		}
	}
	if s.Mode() == wire.Reading {
		*in = ArenaInput{MoveX: int8(mx), MoveZ: int8(mz), Jump: in.Jump}
		if !in.Valid() {
			return fmt.Errorf("%w: move %d, %d", wire.ErrInvalid, int8(mx), int8(mz))
		}
	}
	return nil
}

// SameStep implements predict.Stepper: the aim matters only to a shot.
func (a *Arena) SameStep(x, y ArenaInput) bool {
	if !x.Shoot && !y.Shoot {
		x.Yaw, x.Pitch, y.Yaw, y.Pitch = 0, 0, 0, 0
	}
	return x == y
}

// Trigger implements predict.Shooter.
func (a *Arena) Trigger(in ArenaInput) (bool, uint8) { return in.Shoot, in.Behind }

// SetTrigger implements predict.Shooter.
func (a *Arena) SetTrigger(in ArenaInput, fire bool, behind uint8) ArenaInput {
	in.Shoot, in.Behind = fire, behind
	if !fire {
		in.Behind = 0
	}
	return in
}
