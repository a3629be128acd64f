package vecmath

import "math"

// Vec3 is a 3-vector. In netphys worlds the unit is metres (or m/s, rad/s,
// newtons, depending on the quantity) and Y points up.
type Vec3 struct{ X, Y, Z float64 }

// V3 returns the vector (x, y, z).
func V3(x, y, z float64) Vec3 { return Vec3{x, y, z} }

// Add returns a + b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }

// Sub returns a - b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a.X - b.X, a.Y - b.Y, a.Z - b.Z} }

// Neg returns -a.
func (a Vec3) Neg() Vec3 { return Vec3{-a.X, -a.Y, -a.Z} }

// Scale returns s·a.
func (a Vec3) Scale(s float64) Vec3 {
	return Vec3{float64(a.X * s), float64(a.Y * s), float64(a.Z * s)}
}

// MulAdd returns a + s·b, rounding the product before the sum.
func (a Vec3) MulAdd(s float64, b Vec3) Vec3 {
	return Vec3{a.X + float64(s*b.X), a.Y + float64(s*b.Y), a.Z + float64(s*b.Z)}
}

// Mul returns the component-wise product of a and b.
func (a Vec3) Mul(b Vec3) Vec3 {
	return Vec3{float64(a.X * b.X), float64(a.Y * b.Y), float64(a.Z * b.Z)}
}

// Dot returns a·b.
func (a Vec3) Dot(b Vec3) float64 {
	return float64(a.X*b.X) + float64(a.Y*b.Y) + float64(a.Z*b.Z)
}

// Cross returns a×b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{
		float64(a.Y*b.Z) - float64(a.Z*b.Y),
		float64(a.Z*b.X) - float64(a.X*b.Z),
		float64(a.X*b.Y) - float64(a.Y*b.X),
	}
}

// LengthSq returns |a|².
func (a Vec3) LengthSq() float64 { return a.Dot(a) }

// Length returns |a|.
func (a Vec3) Length() float64 { return math.Sqrt(a.Dot(a)) }

// Normalize returns a/|a| and |a|; the zero vector stays zero.
func (a Vec3) Normalize() (Vec3, float64) {
	l := a.Length()
	if l == 0 {
		return Vec3{}, 0
	}
	return a.Scale(1 / l), l
}

// Abs returns the component-wise absolute value of a.
func (a Vec3) Abs() Vec3 { return Vec3{math.Abs(a.X), math.Abs(a.Y), math.Abs(a.Z)} }

// Min returns the component-wise minimum of a and b.
func (a Vec3) Min(b Vec3) Vec3 {
	return Vec3{math.Min(a.X, b.X), math.Min(a.Y, b.Y), math.Min(a.Z, b.Z)}
}

// Max returns the component-wise maximum of a and b.
func (a Vec3) Max(b Vec3) Vec3 {
	return Vec3{math.Max(a.X, b.X), math.Max(a.Y, b.Y), math.Max(a.Z, b.Z)}
}

// Lerp returns a + t·(b - a).
func (a Vec3) Lerp(b Vec3, t float64) Vec3 { return a.MulAdd(t, b.Sub(a)) }

// Comp returns component i (0 = X, 1 = Y, 2 = Z).
func (a Vec3) Comp(i int) float64 {
	switch i {
	case 0:
		return a.X
	case 1:
		return a.Y
	}
	return a.Z
}

// IsFinite reports whether no component is NaN or ±Inf.
func (a Vec3) IsFinite() bool { return isFinite(a.X) && isFinite(a.Y) && isFinite(a.Z) }

func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Perpendicular returns a unit vector orthogonal to the unit vector n, and
// n×Perpendicular(n) completes a right-handed basis. The choice is the
// branch-stable one of Duff et al., "Building an Orthonormal Basis, Revisited".
func Perpendicular(n Vec3) (t1, t2 Vec3) {
	sign := 1.0
	if n.Z < 0 {
		sign = -1
	}
	a := -1 / (sign + n.Z)
	b := float64(n.X*n.Y) * a
	t1 = Vec3{1 + float64(sign*float64(float64(n.X*n.X)*a)), float64(sign * b), float64(-sign * n.X)}
	t2 = Vec3{b, sign + float64(float64(n.Y*n.Y)*a), -n.Y}
	return t1, t2
}
