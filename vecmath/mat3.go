package vecmath

// Mat3 is a 3×3 matrix stored by columns: M·v = C0·v.X + C1·v.Y + C2·v.Z.
type Mat3 struct{ C0, C1, C2 Vec3 }

// Diag returns the diagonal matrix with d on its diagonal.
func Diag(d Vec3) Mat3 { return Mat3{Vec3{X: d.X}, Vec3{Y: d.Y}, Vec3{Z: d.Z}} }

// QuatToMat3 returns the rotation matrix of the unit quaternion q.
func QuatToMat3(q Quat) Mat3 {
	x2, y2, z2 := q.X+q.X, q.Y+q.Y, q.Z+q.Z
	xx, yy, zz := float64(q.X*x2), float64(q.Y*y2), float64(q.Z*z2)
	xy, xz, yz := float64(q.X*y2), float64(q.X*z2), float64(q.Y*z2)
	wx, wy, wz := float64(q.W*x2), float64(q.W*y2), float64(q.W*z2)
	return Mat3{
		Vec3{1 - (yy + zz), xy + wz, xz - wy},
		Vec3{xy - wz, 1 - (xx + zz), yz + wx},
		Vec3{xz + wy, yz - wx, 1 - (xx + yy)},
	}
}

// MulVec returns m·v. It is written out, the products rounded and summed
// in the order Scale and MulAdd would, so that the compiler inlines it
// (cost 74 of 80): the pair cache and the solver call it per contact point.
// MulVec and MulTVec take a pointer: with a value receiver the inlined
// call still copies the 72-byte matrix for every product.
func (m *Mat3) MulVec(v Vec3) Vec3 {
	return Vec3{
		float64(m.C0.X*v.X) + float64(m.C1.X*v.Y) + float64(m.C2.X*v.Z),
		float64(m.C0.Y*v.X) + float64(m.C1.Y*v.Y) + float64(m.C2.Y*v.Z),
		float64(m.C0.Z*v.X) + float64(m.C1.Z*v.Y) + float64(m.C2.Z*v.Z),
	}
}

// MulTVec returns mᵀ·v.
func (m *Mat3) MulTVec(v Vec3) Vec3 { return Vec3{m.C0.Dot(v), m.C1.Dot(v), m.C2.Dot(v)} }

// Mul returns m·n.
func (m Mat3) Mul(n Mat3) Mat3 { return Mat3{m.MulVec(n.C0), m.MulVec(n.C1), m.MulVec(n.C2)} }

// Transpose returns mᵀ.
func (m Mat3) Transpose() Mat3 {
	return Mat3{
		Vec3{m.C0.X, m.C1.X, m.C2.X},
		Vec3{m.C0.Y, m.C1.Y, m.C2.Y},
		Vec3{m.C0.Z, m.C1.Z, m.C2.Z},
	}
}

// Add returns m + n.
func (m Mat3) Add(n Mat3) Mat3 { return Mat3{m.C0.Add(n.C0), m.C1.Add(n.C1), m.C2.Add(n.C2)} }

// Inverse returns m⁻¹, or the zero matrix when m is singular.
func (m Mat3) Inverse() Mat3 {
	r0 := m.C1.Cross(m.C2)
	r1 := m.C2.Cross(m.C0)
	r2 := m.C0.Cross(m.C1)
	det := m.C0.Dot(r0)
	if det == 0 {
		return Mat3{}
	}
	inv := 1 / det
	// Rows of the inverse are the cross products scaled by 1/det.
	return Mat3{r0.Scale(inv), r1.Scale(inv), r2.Scale(inv)}.Transpose()
}

// RotateInertia returns R·diag(d)·Rᵀ, a body-frame diagonal tensor expressed
// in the world frame.
func RotateInertia(r Mat3, d Vec3) Mat3 {
	rd := Mat3{r.C0.Scale(d.X), r.C1.Scale(d.Y), r.C2.Scale(d.Z)}
	return rd.Mul(r.Transpose())
}
