package maprange

type table map[string]int

func bad(m map[int]float64, t table) (s float64) {
	for _, v := range m { // want `range over a map: the order differs between runs`
		s = float64(s + v)
	}
	for range t { // want `range over a map`
	}
	return s
}

func good(xs []float64, keys []int, m map[int]float64) (s float64) {
	for _, v := range xs {
		s += v
	}
	for _, k := range keys {
		s += m[k] // a lookup is deterministic
	}
	for i := range 3 {
		s += float64(i)
	}
	return s
}
