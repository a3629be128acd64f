// Package detcheck holds the tests that enforce the determinism rules of
// docs/design.md §2 over the simulation packages: no floating-point product
// added or subtracted without a rounding conversion, no fused multiply-add
// in the compiled code for amd64 (GOAMD64=v3) or arm64, no iteration over
// maps, no wall clock and no architecture-dependent math functions.
//
// The source check catches the common mistake where it is written; the
// assembly check is the proof, because the Go compiler fuses across
// statements and inlined calls, which no source check can follow.
package detcheck
