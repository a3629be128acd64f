// Package detcheck holds the tests that enforce the determinism rules of
// docs/design.md §2 over this module's simulation packages, with the
// public checker of analysis/determinism (the one a game runs on its own
// code with netphys vet): the source rules, and no fused multiply-add in
// the compiled code for amd64 (GOAMD64=v3) or arm64.
//
// The source check catches the common mistake where it is written; the
// assembly check is the proof, because the Go compiler fuses across
// statements and inlined calls, which no source check can follow.
package detcheck

// SimulationPackages are the go list patterns, relative to the module
// root, of the packages that run inside a deterministic step.
// netmodel/statesync quantizes every state before each step, as the network
// does; the other models' float math (render clocks, playout delays,
// smoothing) never feeds a step, and their drivers read the clock.
var SimulationPackages = []string{"./vecmath/...", "./physics/...", "./scene/...", "./wire/...", "./netmodel/statesync/..."}
