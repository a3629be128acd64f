package vecmath

import "math"

// Quat is a rotation quaternion X·i + Y·j + Z·k + W. Rotations are unit
// quaternions; q and -q are the same rotation.
type Quat struct{ X, Y, Z, W float64 }

// QuatIdentity is the rotation that does nothing.
var QuatIdentity = Quat{W: 1}

// QuatAxisAngle returns the rotation by angle radians about the unit axis.
func QuatAxisAngle(axis Vec3, angle float64) Quat {
	s, c := SinCos(angle / 2)
	return Quat{float64(axis.X * s), float64(axis.Y * s), float64(axis.Z * s), c}
}

// Mul returns the rotation q∘r: r first, then q.
func (q Quat) Mul(r Quat) Quat {
	return Quat{
		float64(q.W*r.X) + float64(q.X*r.W) + float64(q.Y*r.Z) - float64(q.Z*r.Y),
		float64(q.W*r.Y) - float64(q.X*r.Z) + float64(q.Y*r.W) + float64(q.Z*r.X),
		float64(q.W*r.Z) + float64(q.X*r.Y) - float64(q.Y*r.X) + float64(q.Z*r.W),
		float64(q.W*r.W) - float64(q.X*r.X) - float64(q.Y*r.Y) - float64(q.Z*r.Z),
	}
}

// Conj returns the conjugate, the inverse rotation of a unit quaternion.
func (q Quat) Conj() Quat { return Quat{-q.X, -q.Y, -q.Z, q.W} }

// Neg returns -q, the same rotation with all signs flipped.
func (q Quat) Neg() Quat { return Quat{-q.X, -q.Y, -q.Z, -q.W} }

// Dot returns the 4D dot product of q and r.
func (q Quat) Dot(r Quat) float64 {
	return float64(q.X*r.X) + float64(q.Y*r.Y) + float64(q.Z*r.Z) + float64(q.W*r.W)
}

// Normalize returns q/|q|; the zero quaternion becomes the identity.
func (q Quat) Normalize() Quat {
	l := math.Sqrt(q.Dot(q))
	if l == 0 {
		return QuatIdentity
	}
	inv := 1 / l
	return Quat{float64(q.X * inv), float64(q.Y * inv), float64(q.Z * inv), float64(q.W * inv)}
}

// Rotate returns v rotated by the unit quaternion q.
func (q Quat) Rotate(v Vec3) Vec3 {
	// v' = v + 2w(u×v) + 2u×(u×v), with u the vector part.
	u := Vec3{q.X, q.Y, q.Z}
	t := u.Cross(v).Scale(2)
	return v.MulAdd(q.W, t).Add(u.Cross(t))
}

// InvRotate returns v rotated by the inverse of the unit quaternion q.
func (q Quat) InvRotate(v Vec3) Vec3 { return q.Conj().Rotate(v) }

// Integrate returns q advanced by the angular velocity w (rad/s, world
// frame) over dt seconds, normalized: q + dt/2·(w,0)∘q.
func (q Quat) Integrate(w Vec3, dt float64) Quat {
	h := dt / 2
	d := Quat{w.X, w.Y, w.Z, 0}.Mul(q)
	return Quat{
		q.X + float64(h*d.X), q.Y + float64(h*d.Y), q.Z + float64(h*d.Z), q.W + float64(h*d.W),
	}.Normalize()
}

// Nlerp returns the normalized linear interpolation from q to r at t in
// [0, 1], along the shorter arc.
func (q Quat) Nlerp(r Quat, t float64) Quat {
	if q.Dot(r) < 0 {
		r = r.Neg()
	}
	return Quat{
		q.X + float64(t*(r.X-q.X)), q.Y + float64(t*(r.Y-q.Y)),
		q.Z + float64(t*(r.Z-q.Z)), q.W + float64(t*(r.W-q.W)),
	}.Normalize()
}

// Angle returns the angle in radians of the rotation from q to r, in [0, π].
func (q Quat) Angle(r Quat) float64 {
	d := math.Abs(q.Dot(r))
	if d > 1 {
		d = 1
	}
	return float64(2 * Acos(d))
}

// IsFinite reports whether no component is NaN or ±Inf.
func (q Quat) IsFinite() bool {
	return isFinite(q.X) && isFinite(q.Y) && isFinite(q.Z) && isFinite(q.W)
}
