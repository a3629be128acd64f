package random

import (
	"math/rand"
	randv2 "math/rand/v2"
)

func bad(xs []int) float64 {
	f := rand.Float64()                                                     // want `math/rand.Float64 draws from a source the program did not seed`
	_ = randv2.IntN(3)                                                      // want `math/rand/v2.IntN draws`
	randv2.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] }) // want `math/rand/v2.Shuffle draws`
	return f
}

func good(seed uint64) float64 {
	r := randv2.New(randv2.NewPCG(seed, 0)) // a seed the peers share
	return r.Float64() + rand.New(rand.NewSource(int64(seed))).Float64()
}
