package vecmath

// Transform is a rigid placement: rotate by Rot, then translate by Pos.
type Transform struct {
	Pos Vec3
	Rot Quat
}

// TransformIdentity places a body at the origin, unrotated.
var TransformIdentity = Transform{Rot: QuatIdentity}

// Apply maps the local point p to world coordinates.
func (t Transform) Apply(p Vec3) Vec3 { return t.Rot.Rotate(p).Add(t.Pos) }

// ApplyInv maps the world point p to local coordinates.
func (t Transform) ApplyInv(p Vec3) Vec3 { return t.Rot.InvRotate(p.Sub(t.Pos)) }

// Mul returns the transform t∘u: u first, then t.
func (t Transform) Mul(u Transform) Transform {
	return Transform{Pos: t.Apply(u.Pos), Rot: t.Rot.Mul(u.Rot)}
}

// Inverse returns the transform that undoes t.
func (t Transform) Inverse() Transform {
	inv := t.Rot.Conj()
	return Transform{Pos: inv.Rotate(t.Pos.Neg()), Rot: inv}
}
