package interp

import "github.com/netphys/netphys/wire/snapshot"

// Game is what the server needs from a simulation: it steps it and
// captures what clients draw. Clients need nothing from it: they simulate
// nothing. scene.InterpGame is the cube world's; the tests have a tiny
// game of their own.
type Game interface {
	// Objects is the number of objects drawn, fixed for the match.
	Objects() int
	// Step advances the game one fixed tick (1/Config.TickRate s) and
	// returns the input it applied, in the codec Simulator's InputBits
	// (0 for a game without inputs): stage 9 with a Simulator sends the
	// inputs so that the client's simulation replays them.
	Step() uint32
	// Capture writes the visual state of every object into dst
	// (Objects() long). Positions outside the codec's bounds are clamped
	// by the server and counted in ServerCounters.Clamped.
	Capture(dst []snapshot.Cube)
}
