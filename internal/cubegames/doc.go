// Package cubegames registers the games netphys ships with the runtime
// (package match), through match's exported API only, as an outside game
// registers its own: the cube world (package scene) over lockstep
// (lockstep.go) and snapshot interpolation (interp.go), the shooter arena
// over client prediction (predict.go) and the VR table over state
// synchronization with distributed authority (statesync.go). Each model
// registers itself from init; cmd/netphys imports the package for that.
//
// The package is internal: these are the project's demo games, whose
// flags, keys and figures follow the CLI and the benches; the API a game
// builds on is match's, and scene's for the worlds.
package cubegames

import "time"

// ms is d in milliseconds, for figures.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
