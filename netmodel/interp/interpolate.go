package interp

import (
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire/snapshot"
)

// keyframe is one buffered snapshot on the client's timeline.
type keyframe struct {
	t     float64 // server time, ticks
	cubes []snapshot.Cube
	reset []int64 // the tick of each object's last reset; empty: none
}

// resetAfter reports whether object i's last reset in k is after tick t:
// k's state of it does not continue one at or before t.
func (k *keyframe) resetAfter(i int, t float64) bool {
	return k != nil && len(k.reset) != 0 && float64(k.reset[i]) > t
}

// lerpCube draws cube i at fraction u from a to b: position lerp,
// orientation nlerp the short way round.
func lerpCube(a, b *snapshot.Cube, u float64) snapshot.Cube {
	return snapshot.Cube{
		Position:    a.Position.Lerp(b.Position, u),
		Rotation:    nlerp(a.Rotation, b.Rotation, u),
		Interacting: a.Interacting,
	}
}

// nlerp interpolates two rotations along the shorter arc and normalizes.
func nlerp(a, b vecmath.Quat, u float64) vecmath.Quat {
	if a.Dot(b) < 0 {
		b = b.Neg()
	}
	return a.Nlerp(b, u)
}

// hermiteCube draws cube i at fraction u from a to b on the cubic Hermite
// curve whose tangents are the central differences through the
// neighbours before a (prev, nil: none) and after b (next, nil: none).
//
// With sent velocities (tickRate > 0) the tangents are the snapshots' own
// LinearVelocity, in m/s, converted to m per tick.
func hermiteCube(prev, a, b, next *keyframe, i int, u float64, tickRate float64) snapshot.Cube {
	ca, cb := &a.cubes[i], &b.cubes[i]
	out := lerpCube(ca, cb, u)
	var va, vb vecmath.Vec3
	if tickRate > 0 {
		va, vb = ca.LinearVelocity.Scale(1/tickRate), cb.LinearVelocity.Scale(1/tickRate)
		if ca.Position == cb.Position && va == (vecmath.Vec3{}) && vb == (vecmath.Vec3{}) {
			return out
		}
	} else {
		if ca.Position == cb.Position && (prev == nil || prev.cubes[i].Position == ca.Position) &&
			(next == nil || next.cubes[i].Position == cb.Position) {
			return out // at rest: no curve
		}
		va, vb = velocity(prev, b, i, a, b), velocity(a, next, i, a, b)
	}
	span := b.t - a.t
	u2 := float64(u * u)
	u3 := float64(u2 * u)
	h00 := float64(2*u3) - float64(3*u2) + 1
	h10 := u3 - float64(2*u2) + u
	h01 := float64(-2*u3) + float64(3*u2)
	h11 := u3 - u2
	p := ca.Position.Scale(h00).Add(va.Scale(float64(h10 * span))).Add(cb.Position.Scale(h01)).Add(vb.Scale(float64(h11 * span)))
	out.Position = p
	return out
}

// velocity returns cube i's velocity (m per tick) from keyframe from to
// keyframe to; a nil end falls back to the segment a–b.
func velocity(from, to *keyframe, i int, a, b *keyframe) vecmath.Vec3 {
	if from == nil {
		from = a
	}
	if to == nil {
		to = b
	}
	return to.cubes[i].Position.Sub(from.cubes[i].Position).Scale(1 / (to.t - from.t))
}

// extrapolateCube runs cube i on from b for ahead ticks at the velocity
// and spin from a to b.
func extrapolateCube(a, b *keyframe, i int, ahead float64) snapshot.Cube {
	ca, cb := &a.cubes[i], &b.cubes[i]
	out := *cb
	if ca.Position == cb.Position && ca.Rotation == cb.Rotation {
		return out
	}
	k := ahead / (b.t - a.t)
	out.Position = cb.Position.Add(cb.Position.Sub(ca.Position).Scale(k))
	out.Rotation = continueRotation(ca.Rotation, cb.Rotation, k)
	return out
}

// continueRotation returns Δ^k·b, Δ = b·a⁻¹: the turn from a to b
// continued for k more times its duration.
func continueRotation(a, b vecmath.Quat, k float64) vecmath.Quat {
	d := b.Mul(a.Conj())
	if d.W < 0 {
		d = d.Neg()
	}
	vlen := vecmath.V3(d.X, d.Y, d.Z).Length()
	if vlen < 1e-12 {
		return b
	}
	half := vecmath.Atan2(vlen, d.W)
	sk, ck := vecmath.SinCos(float64(half * k))
	f := sk / vlen
	dk := vecmath.Quat{X: float64(d.X * f), Y: float64(d.Y * f), Z: float64(d.Z * f), W: ck}
	return dk.Mul(b).Normalize()
}
