package testfiles

func Step(a, b, c float64) float64 { return float64(a*b) + c }
