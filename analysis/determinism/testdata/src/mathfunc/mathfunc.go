package mathfunc

import (
	"math"
	"math/cmplx"
)

func bad(x, y float64) float64 {
	s := math.Sin(x)               // want `math.Sin may give different bits on another architecture; netphys/vecmath has a deterministic one`
	s += float64(math.Atan2(y, x)) // want `math.Atan2 may give different bits`
	s -= math.Exp(x) + math.Log(y) // want `math.Exp may give` `math.Log may give`
	s = math.Pow(s, 2)             // want `math.Pow may give`
	s = math.Hypot(s, x)           // want `math.Hypot may give`
	s = math.FMA(s, x, y)          // want `math.FMA is exact, but`
	_ = cmplx.Abs(complex(x, y))   // want `math/cmplx.Abs may give`
	return s
}

func good(x, y float64) float64 {
	s := math.Sqrt(x) + math.Abs(y)
	s = math.Floor(s) + math.Ceil(s) + math.Trunc(s) + math.Round(s)
	s = math.Mod(s, 3) + math.Min(s, x) + math.Max(s, y)
	s = math.Copysign(s, -1) + math.Inf(1) + float64(math.Float64bits(s)&1)
	_ = cmplx.Conj(complex(x, y))
	return s + math.Pi
}
