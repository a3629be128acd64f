package vecmath

import "math"

// The standard library's trigonometric functions are implemented in
// assembly on some architectures and may differ in the last bit between
// them, so the simulation uses these instead: plain float64 arithmetic with
// every product rounded before it meets a sum. The kernels are the fdlibm
// minimax polynomials (also used by Go's pure-Go fallbacks); accuracy is a
// couple of ulp on |x| < 1e5, which is all a physics step needs.

// Cody–Waite split of π/2: piO2Hi + piO2Mid + piO2Lo, with enough trailing
// zero bits in the first two that k·piO2Hi is exact for |k| < 2^20.
const (
	piO2Hi  = 1.57079632673412561417e+00
	piO2Mid = 6.07710050650619224932e-11
	piO2Lo  = 2.02226624879595063154e-21
	twoOPi  = 6.36619772367581382433e-01
)

// SinCos returns sin(x) and cos(x).
func SinCos(x float64) (sin, cos float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.NaN(), math.NaN()
	}
	k := math.Floor(float64(x*twoOPi) + 0.5)
	r := x - float64(k*piO2Hi)
	r -= float64(k * piO2Mid)
	r -= float64(k * piO2Lo)
	s, c := sinKernel(r), cosKernel(r)
	switch int64(k) & 3 {
	case 0:
		return s, c
	case 1:
		return c, -s
	case 2:
		return -s, -c
	default:
		return -c, s
	}
}

// Sin returns sin(x).
func Sin(x float64) float64 { s, _ := SinCos(x); return s }

// Cos returns cos(x).
func Cos(x float64) float64 { _, c := SinCos(x); return c }

// sinKernel is sin on [-π/4, π/4].
func sinKernel(x float64) float64 {
	const (
		s1 = -1.66666666666666324348e-01
		s2 = 8.33333333332248946124e-03
		s3 = -1.98412698298579493134e-04
		s4 = 2.75573137070700676789e-06
		s5 = -2.50507602534068634195e-08
		s6 = 1.58969099521155010221e-10
	)
	z := float64(x * x)
	p := s5 + float64(z*s6)
	p = s4 + float64(z*p)
	p = s3 + float64(z*p)
	p = s2 + float64(z*p)
	p = s1 + float64(z*p)
	return x + float64(float64(x*z)*p)
}

// cosKernel is cos on [-π/4, π/4].
func cosKernel(x float64) float64 {
	const (
		c1 = 4.16666666666666019037e-02
		c2 = -1.38888888888741095749e-03
		c3 = 2.48015872894767294178e-05
		c4 = -2.75573143513906633035e-07
		c5 = 2.08757232129817482790e-09
		c6 = -1.13596475577881948265e-11
	)
	z := float64(x * x)
	p := c5 + float64(z*c6)
	p = c4 + float64(z*p)
	p = c3 + float64(z*p)
	p = c2 + float64(z*p)
	p = c1 + float64(z*p)
	return (1 - float64(0.5*z)) + float64(float64(z*z)*p)
}

// Atan returns the arctangent of x in radians, in [-π/2, π/2].
func Atan(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	neg := x < 0
	x = math.Abs(x)
	offset := 0.0
	invert := x > 1
	if invert {
		x = 1 / x
	}
	// tan(π/12) = 2 - √3. Above it, shift by π/6:
	// atan(x) = π/6 + atan((√3·x - 1)/(x + √3)).
	const tanPiO12, sqrt3, piO6 = 0.2679491924311227, 1.7320508075688772, 0.5235987755982988
	if x > tanPiO12 {
		x = (float64(sqrt3*x) - 1) / (x + sqrt3)
		offset = piO6
	}
	// Taylor series: |x| ≤ 0.268, so 14 terms reach below 1e-17.
	z := float64(x * x)
	sum := 0.0
	for n := 27; n >= 3; n -= 2 {
		term := 1 / float64(n)
		if (n/2)%2 == 1 {
			term = -term
		}
		sum = float64(z * (term + sum))
	}
	r := offset + (x + float64(x*sum))
	if invert {
		r = math.Pi/2 - r
	}
	if neg {
		r = -r
	}
	return r
}

// Atan2 returns the angle of the point (x, y) in radians, in [-π, π].
func Atan2(y, x float64) float64 {
	switch {
	case x > 0:
		return Atan(y / x)
	case x < 0 && y >= 0:
		return Atan(y/x) + math.Pi
	case x < 0:
		return Atan(y/x) - math.Pi
	case y > 0:
		return math.Pi / 2
	case y < 0:
		return -math.Pi / 2
	}
	return 0
}

// Acos returns the arccosine of x in radians, in [0, π]; x is clamped to
// [-1, 1].
func Acos(x float64) float64 {
	x = math.Max(-1, math.Min(1, x))
	return Atan2(math.Sqrt(float64(1-x)*float64(1+x)), x)
}
