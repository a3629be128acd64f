// Package scene is the cube world of the networked-physics articles, built
// on package physics: a player cube pushed around by forces from a
// six-button Input, hundreds of cubes that turn "interacting" (red) when
// the player touches them and spread that state through their contacts,
// space to lift the player and blast cubes away, z for katamari mode, and
// the stacked towers and pyramids of the VR sample.
//
// A Scene is deterministic: the same Setup and the same Input sequence give
// bit-identical worlds on every machine (Checksum proves it), which is what
// deterministic lockstep and rollback rely on. The canonical loop is
//
//	s, err := scene.New(scene.Cubes900, scene.DefaultConfig())
//	for {
//		s.Step(sampleInput()) // one fixed step, 1/60 s by default
//		render(s)
//	}
//
// For deterministic lockstep, NewPlayers builds 2 to 4 player cubes, one
// on each side of the layout, stepped by StepPlayers with one Input per
// player; Lockstep wraps such a scene as a lockstep.Game, and PlayerBot
// plays each player's turn of the scripted minute.
package scene
