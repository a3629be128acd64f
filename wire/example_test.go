package wire_test

import (
	"fmt"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// input is a message: one Serialize function writes, reads and measures it.
type input struct {
	Tick   uint32
	Left   bool
	Aim    vecmath.Quat
	Thrust float64
}

func (m *input) Serialize(s wire.Stream) error {
	if err := wire.SerializeBits(s, &m.Tick, 32); err != nil {
		return err
	}
	if err := wire.SerializeBool(s, &m.Left); err != nil {
		return err
	}
	if err := wire.SerializeQuat(s, &m.Aim, 10); err != nil {
		return err
	}
	return wire.SerializeFloat(s, &m.Thrust, wire.FloatRange{Min: 0, Max: 1, Res: 1.0 / 64})
}

func Example() {
	in := input{Tick: 1234, Left: true, Aim: vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), 0.5), Thrust: 0.7}

	var m wire.Measurer
	if err := in.Serialize(&m); err != nil {
		panic(err)
	}
	w := wire.NewWriter(make([]byte, m.Bytes()))
	if err := in.Serialize(w); err != nil {
		panic(err)
	}

	var out input
	if err := out.Serialize(wire.NewReader(w.Bytes())); err != nil {
		panic(err)
	}
	fmt.Println(m.BitCount(), "bits,", len(w.Bytes()), "bytes")
	fmt.Println(out.Tick, out.Left, out.Thrust)
	// Output:
	// 72 bits, 9 bytes
	// 1234 true 0.703125
}

// The state-synchronization article's cube state, at rest and moving.
func ExampleBodyState() {
	spec := wire.DefaultStateSpec()
	c := wire.BodyState{
		Position:        vecmath.V3(3.2, 0.5, -7.25),
		Rotation:        vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), 1),
		LinearVelocity:  vecmath.V3(1.5, 0, 0),
		AngularVelocity: vecmath.V3(0, 0, -3),
	}
	// Quantize on both sides: the sender continues from what the
	// receiver will decode.
	q, err := c.Quantize(spec)
	if err != nil {
		panic(err)
	}
	fmt.Printf("moving: %d bits, x %.6f\n", q.Bits(spec), q.Position.X)
	c.AtRest = true
	fmt.Printf("at rest: %d bits\n", c.Bits(spec))
	// Output:
	// moving: 206 bits, x 3.199951
	// at rest: 110 bits
}

// Bits coded under adaptive models cost a fraction of a bit when they are
// predictable; the measurer reports the exact byte count.
func ExampleRangeEncoder() {
	var model [1]wire.Prob
	wire.ResetProbs(model[:])
	e := wire.NewRangeMeasurer()
	for i := range 1000 {
		changed := i%50 == 0 // 2 % of the cubes changed
		if err := wire.SerializeModelBit(e, &model[0], &changed); err != nil {
			panic(err)
		}
	}
	n, _ := e.Finish()
	fmt.Println(n, "bytes for 1000 flags")
	// Output:
	// 23 bytes for 1000 flags
}
