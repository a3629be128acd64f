package statesync

import (
	"fmt"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// qstate is an object's state as the network carries it: the quantization
// indices of wire.StateSpec, in integers so that deltas and predictions
// are exact. Velocities of an object at rest are the indices of zero.
type qstate struct {
	pos      [3]int64
	rot      wire.SmallestThree
	rest     bool
	lin, ang [3]int64
}

// quantizer converts between physics states and qstates for one spec.
type quantizer struct {
	spec             wire.StateSpec
	zeroLin, zeroAng [3]int64
}

func newQuantizer(spec wire.StateSpec) (quantizer, error) {
	q := quantizer{spec: spec}
	zl, err := spec.LinearVelocity.Index(vecmath.Vec3{})
	if err != nil {
		return q, fmt.Errorf("%w: linear velocity bounds exclude 0: %w", ErrConfig, err)
	}
	za, err := spec.AngularVelocity.Index(vecmath.Vec3{})
	if err != nil {
		return q, fmt.Errorf("%w: angular velocity bounds exclude 0: %w", ErrConfig, err)
	}
	for i := range 3 {
		q.zeroLin[i], q.zeroAng[i] = int64(zl[i]), int64(za[i])
	}
	if _, err := wire.QuantizeQuat(vecmath.QuatIdentity, spec.OrientationBits); err != nil {
		return q, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return q, nil
}

// indices returns the quantization indices of v in b, clamped into b
// first: the simulation's states are clamped, never refused.
func indices(b wire.Bounds, v vecmath.Vec3) ([3]int64, error) {
	u, err := b.Index(b.Clamp(v))
	return [3]int64{int64(u[0]), int64(u[1]), int64(u[2])}, err
}

// quantize returns the network form of s. It fails only for NaN states.
func (q *quantizer) quantize(s physics.BodyState) (qstate, error) {
	var out qstate
	var err error
	if out.pos, err = indices(q.spec.Position, s.Position); err != nil {
		return out, err
	}
	if out.rot, err = wire.QuantizeQuat(s.Rotation, q.spec.OrientationBits); err != nil {
		return out, err
	}
	out.rest = s.AtRest
	if s.AtRest {
		out.lin, out.ang = q.zeroLin, q.zeroAng
		return out, nil
	}
	if out.lin, err = indices(q.spec.LinearVelocity, s.LinearVelocity); err != nil {
		return out, err
	}
	out.ang, err = indices(q.spec.AngularVelocity, s.AngularVelocity)
	return out, err
}

func value(b wire.Bounds, i [3]int64) vecmath.Vec3 {
	return b.Value([3]uint64{uint64(i[0]), uint64(i[1]), uint64(i[2])})
}

// body returns the state s stands for. The rotation is normalized, as
// the physics stores it, so that a state set from it reads back the same.
func (q *quantizer) body(s qstate) physics.BodyState {
	b := physics.BodyState{
		Position: value(q.spec.Position, s.pos),
		Rotation: s.rot.Quat(q.spec.OrientationBits).Normalize(),
		AtRest:   s.rest,
	}
	if !s.rest {
		b.LinearVelocity = value(q.spec.LinearVelocity, s.lin)
		b.AngularVelocity = value(q.spec.AngularVelocity, s.ang)
	}
	return b
}

// steps returns the largest index of each component's range.
func steps(b wire.Bounds) [3]int64 {
	return [3]int64{int64(b.Axis(0).Steps()), int64(b.Axis(1).Steps()), int64(b.Axis(2).Steps())}
}
