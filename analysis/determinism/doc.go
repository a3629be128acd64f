// Package determinism is the static check of netphys's determinism rules,
// for the simulation code of any game: code that must compute the same
// bits on every run, in every process and on every CPU architecture,
// because lockstep, rollback, client prediction and quantize-both-sides
// peers step it independently and compare (or rely on) the results.
//
// The rules, each a category of the [Analyzer]'s diagnostics:
//
//	fma       a floating-point product meets a sum (a*b + c, x -= a*b, x/2 + c):
//	          the Go specification lets the compiler fuse the two into one
//	          multiply-add instruction, which rounds once instead of twice, and
//	          it does on arm64 and on amd64 with GOAMD64=v3 but not on plain
//	          amd64. Write float64(a*b) + c: an explicit conversion rounds the
//	          product and forbids the fusion. x/2 counts, it compiles to x*0.5.
//	          A complex multiplication or division is reported too: its parts
//	          are sums of products, which fuse the same way.
//	maprange  a range over a map: the order differs between runs.
//	clock     time.Now, time.Since, timers and sleeps: the wall clock differs
//	          between peers; time enters a step as an argument (a tick).
//	math      a math or math/cmplx function whose result is not exactly
//	          specified (Sin, Cos, Atan2, Exp, Log, Pow, Hypot, ...): its code
//	          differs between architectures (assembly on some, and the pure Go
//	          versions are compiled with fusion on arm64). Sqrt, Abs, Floor,
//	          Ceil, Trunc, Round, Mod, Min, Max, FMA and the bit functions are
//	          exact and allowed; netphys/vecmath has deterministic Sin, Cos,
//	          SinCos, Atan, Atan2 and Acos.
//	random    the top-level functions of math/rand, math/rand/v2 and
//	          crypto/rand: an unseeded source. A generator made from a seed the
//	          peers share (rand.New(rand.NewPCG(seed, 0))) is allowed.
//	select    a select with two or more communication cases: when several are
//	          ready Go picks one at random.
//
// What is simulation code. The rules apply to every non-test file of the
// packages the check is run on: a game names its simulation packages
// (netphys vet ./game/sim/...), and keeps drivers, rendering and tools in
// other packages. Test files (_test.go) are never checked. A deliberate
// exception inside a checked package is marked with a comment at the end
// of the flagged line, or alone on the line just above it, with the reason:
//
//	//netphys:nondeterministic debug overlay only, never feeds the step
//
// The source check catches the common mistake where it is written; it
// cannot follow a product into another statement or through an inlined
// call, where the compiler still fuses. [CheckFMA] is the proof: it
// compiles the packages for arm64 and for amd64 with GOAMD64=v3 and
// reports every fused multiply-add instruction in their code.
//
// Running it (go install github.com/netphys/netphys/cmd/netphys@latest):
//
//	netphys vet ./sim/...           # the source rules (no pattern: ".")
//	netphys vet --fma ./sim/...     # and the compiled-code check
//	go vet -vettool=$(command -v netphys) ./sim/...
//
// netphys vet prints one finding a line (file:line:col: message (rule))
// and exits with status 1 when there is any; --dir names the module the
// patterns are resolved in when it is not the current directory.
//
// or from Go with [Check] and [CheckFMA], or with [Analyzer] in any
// golang.org/x/tools/go/analysis driver (multichecker, unitchecker,
// analysistest).
package determinism
