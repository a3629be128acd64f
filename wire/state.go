package wire

import (
	"fmt"

	"github.com/netphys/netphys/vecmath"
)

// StateSpec is the quantization of a rigid body's full state for state
// synchronization: what the sender applies to its own simulation before
// every step (quantize on both sides) and what goes on the wire.
type StateSpec struct {
	Position        Bounds // metres
	OrientationBits int    // bits per smallest-three component
	LinearVelocity  Bounds // m/s
	AngularVelocity Bounds // rad/s
}

// DefaultStateSpec returns the encoding of the state-synchronization
// article's cube state, sized for netphys's demo world:
//
//   - position: x, z in [-256, 256) m, y in [-16, 240) m, 4096 values
//     per metre (0.24 mm): 21 + 20 + 21 bits;
//   - orientation: smallest three, 15 bits per component: 47 bits;
//   - linear velocity: each axis in [-64, 64) m/s at 1/512 m/s: 3×16 bits;
//   - angular velocity: each axis in [-32, 32) rad/s at 1/1024 rad/s:
//     3×16 bits.
//
// The upper bounds stop one step short of the round figure so that each
// axis uses exactly a power of two of values. A cube at rest costs
// 62+47+1 = 110 bits and a moving one 110+96 = 206 bits.
func DefaultStateSpec() StateSpec {
	const posRes = 1.0 / 4096
	return StateSpec{
		Position: Bounds{
			Min: vecmath.V3(-256, -16, -256),
			Max: vecmath.V3(256-posRes, 240-posRes, 256-posRes),
			Res: posRes,
		},
		OrientationBits: 15,
		LinearVelocity:  symmetricBounds(64, 1.0/512),
		AngularVelocity: symmetricBounds(32, 1.0/1024),
	}
}

// symmetricBounds returns [-limit, limit-res) on every axis.
func symmetricBounds(limit, res float64) Bounds {
	return Bounds{
		Min: vecmath.V3(-limit, -limit, -limit),
		Max: vecmath.V3(limit-res, limit-res, limit-res),
		Res: res,
	}
}

// BodyState is the state of one body on the wire, the one body state every
// network model sends (statesync's objects, predict's bodies, interp's
// states of any spec, the state-sync demo's cubes). A body at rest sends
// no velocities; they decode as zero.
//
// Its fields are physics.BodyState's, in the same order, so each converts
// to the other with a plain conversion: wire.BodyState(s) of a physics
// state, physics.BodyState(b) of a wire state.
type BodyState struct {
	Position        vecmath.Vec3 // metres
	Rotation        vecmath.Quat // unit
	LinearVelocity  vecmath.Vec3 // m/s, ignored when AtRest
	AngularVelocity vecmath.Vec3 // rad/s, ignored when AtRest
	AtRest          bool
}

// Serialize codes the state in spec. Bit layout:
//
//	+----------+-------------+---------+--------------------------------+
//	| position | orientation | at rest | linear, angular velocity       |
//	| 3 axes   | 2 + 3·B     | 1 bit   | 3 axes each, only if not rest  |
//	+----------+-------------+---------+--------------------------------+
//
// Values outside the spec's bounds are ErrRange: clamp velocities in the
// simulation (as the article's engine does) rather than on the wire.
func (c *BodyState) Serialize(s Stream, spec StateSpec) error {
	if err := SerializeVec3(s, &c.Position, spec.Position); err != nil {
		return fmt.Errorf("wire: position: %w", err)
	}
	if err := SerializeQuat(s, &c.Rotation, spec.OrientationBits); err != nil {
		return fmt.Errorf("wire: orientation: %w", err)
	}
	if err := SerializeBool(s, &c.AtRest); err != nil {
		return err
	}
	if c.AtRest {
		if s.Mode() == Reading {
			c.LinearVelocity, c.AngularVelocity = vecmath.Vec3{}, vecmath.Vec3{}
		}
		return nil
	}
	if err := SerializeVec3(s, &c.LinearVelocity, spec.LinearVelocity); err != nil {
		return fmt.Errorf("wire: linear velocity: %w", err)
	}
	if err := SerializeVec3(s, &c.AngularVelocity, spec.AngularVelocity); err != nil {
		return fmt.Errorf("wire: angular velocity: %w", err)
	}
	return nil
}

// Bits returns the encoded size of c in bits.
func (c BodyState) Bits(spec StateSpec) int {
	n := spec.Position.Bits() + 2 + 3*spec.OrientationBits + 1
	if !c.AtRest {
		n += spec.LinearVelocity.Bits() + spec.AngularVelocity.Bits()
	}
	return n
}

// Quantize returns exactly the state a receiver decodes from c: the
// sender applies it to its own body before the next step, so both sides
// extrapolate from the same numbers. Quantizing a quantized state returns
// it unchanged (and it encodes to the same bits).
func (c BodyState) Quantize(spec StateSpec) (BodyState, error) {
	var err error
	q := BodyState{AtRest: c.AtRest}
	if q.Position, err = spec.Position.Quantize(c.Position); err != nil {
		return q, fmt.Errorf("wire: position: %w", err)
	}
	if q.Rotation, err = QuantizeQuatValue(c.Rotation, spec.OrientationBits); err != nil {
		return q, fmt.Errorf("wire: orientation: %w", err)
	}
	if c.AtRest {
		return q, nil
	}
	if q.LinearVelocity, err = spec.LinearVelocity.Quantize(c.LinearVelocity); err != nil {
		return q, fmt.Errorf("wire: linear velocity: %w", err)
	}
	if q.AngularVelocity, err = spec.AngularVelocity.Quantize(c.AngularVelocity); err != nil {
		return q, fmt.Errorf("wire: angular velocity: %w", err)
	}
	return q, nil
}

// QuantizeBody is Quantize for a body's state given as vecmath values: it
// returns the position, rotation and velocities the receiver will decode.
func (spec StateSpec) QuantizeBody(pos vecmath.Vec3, rot vecmath.Quat, lin, ang vecmath.Vec3, atRest bool) (BodyState, error) {
	return BodyState{Position: pos, Rotation: rot, LinearVelocity: lin, AngularVelocity: ang, AtRest: atRest}.Quantize(spec)
}
