package scene

import "github.com/netphys/netphys/wire"

// Input is the state of the six buttons the articles' demo reads at the
// start of every frame: the arrows push the player, Space lifts it and
// blasts nearby cubes away, Z pulls nearby cubes in (katamari mode).
type Input struct {
	Left, Right, Up, Down, Space, Z bool
}

// InputBits is the number of bits an Input takes on the wire.
const InputBits = 6

// Bits packs the input into its six low bits, in field order from bit 0.
func (in Input) Bits() uint8 {
	var b uint8
	for i, on := range [...]bool{in.Left, in.Right, in.Up, in.Down, in.Space, in.Z} {
		if on {
			b |= 1 << i
		}
	}
	return b
}

// InputFromBits unpacks Bits; bits above the sixth are ignored.
func InputFromBits(b uint8) Input {
	return Input{
		Left: b&1 != 0, Right: b&2 != 0, Up: b&4 != 0, Down: b&8 != 0,
		Space: b&16 != 0, Z: b&32 != 0,
	}
}

// Serialize codes the input as its six Bits, the article's encoding and
// the lockstep model's input on the wire. Every 6-bit value is an input.
func (in *Input) Serialize(s wire.Stream) error {
	b := in.Bits()
	if err := wire.SerializeBits(s, &b, InputBits); err != nil {
		return err
	}
	*in = InputFromBits(b)
	return nil
}
