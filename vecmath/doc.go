// Package vecmath holds the deterministic math of netphys: 3-vectors,
// quaternions, 3×3 matrices and rigid transforms in float64, plus the few
// transcendental functions the simulation needs, written out by hand.
//
// Everything here produces bit-identical results on every platform Go
// supports. The rules (docs/design.md §2) are:
//
//   - Only +, -, *, / and math.Sqrt, math.Abs, math.Floor, math.Min/Max
//     from the standard library: IEEE 754 makes those exact.
//   - A product never meets a sum inside one expression: write
//     float64(a*b) + c, never a*b + c. The Go specification allows a
//     compiler to fuse a*b + c into one fused multiply-add, which rounds
//     once instead of twice; arm64 and amd64 with GOAMD64=v3 do it. An
//     explicit conversion forbids the fusion. A source check in
//     internal/detcheck enforces the rule over every simulation package.
//   - Sin, Cos and Atan2 are the functions of this package, not of math,
//     whose assembly versions differ by architecture.
package vecmath
