package escape

import (
	"math"
	"time"
)

func render(m map[int]float64, a, b, c float64) float64 {
	//netphys:nondeterministic the debug overlay's order does not matter
	for _, v := range m {
		c = float64(c + v)
	}
	t := time.Now() //netphys:nondeterministic logs only
	_ = t
	x := a*b + c //netphys:nondeterministic a rendering blend, never stepped
	//netphys:nondeterministic
	x += math.Sin(a)
	x += math.Cos(a) // want `math.Cos may give`
	//netphys:nondeterministicfoo is not the escape
	x += a * b // want `floating-point product meets \+=`
	return x
}

func trailing(a, b, c float64) float64 {
	x := float64(a*b) + c //netphys:nondeterministic covers this line only
	x += a * b            // want `floating-point product meets \+=`
	return x
}
