package fma

type meters float64

func bad(a, b, c float64, f, g float32, m, n meters) float64 {
	x := a*b + c     // want `floating-point product meets \+: .*float64\(a\*b\) \+ c`
	x = c - a*b      // want `floating-point product meets -`
	x -= (a * b)     // want `floating-point product meets -=`
	x += a * b       // want `floating-point product meets \+=`
	x += a/4 - c     // want `floating-point product meets -: .*division by a power of two`
	x = -(a * b) + c // want `floating-point product meets \+`
	x = c + 0.5*a    // want `floating-point product meets \+`
	y := f*g + f     // want `round the product first: float32\(a\*b\) \+ c`
	z := m*n + m     // want `round the product first: meters\(a\*b\) \+ c`
	return x + float64(y) + float64(z)
}

func good(a, b, c float64, i, j, k int, f, g float32) float64 {
	x := float64(a*b) + c
	x -= float64(a * b)
	_ = i*j + k             // integers never fuse
	x += float64(a/4) - a/3 // a/3 is a true division
	x += 2*3 + c            // a constant product is folded
	x += float64(float32(f*g) + f)
	x *= a * b // a product alone
	return x + float64(a*b*c)
}

func complexes(z, w complex128, u complex64) complex128 {
	p := z * w // want `complex multiplication: its real and imaginary parts are sums of products`
	p /= w     // want `complex division`
	u *= u     // want `complex multiplication`
	return p + complex128(u) + 2i*3 + complex(real(z), 0)
}
