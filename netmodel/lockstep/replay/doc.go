// Package replay records a lockstep match to a file, plays it back
// bit-identically, and diagnoses a desync from two parties' recordings.
// It is generic over the game's input type, like package lockstep, and
// uses only lockstep's public API.
//
// # What a replay holds
//
// A lockstep match is its starting state and its inputs, so a replay is
// a header (the game, its variant such as the layout, the players, the
// tick) and then, tick by tick, every player's input coded by the game's
// own Serialize (one bit when it equals that player's previous one, as
// lockstep sends them) and the low 32 bits of the game's checksum every
// Header.SumEvery ticks. Four players of the cube world take ~2 kB a
// minute of inputs, plus 14 kB a minute of checksums at one a tick (the
// default: the exact first tick that differs) or 0.2 kB at one a second.
// The layout is on Header in format.go. Reading is bounds-checked: a
// malformed file is an error wrapping ErrFormat, never a panic, and the
// reader allocates at most MaxBlock bytes of file at a time and what
// Limits allows of ticks and states.
//
// # Recording
//
// Wrap the game the session steps; every Step becomes a recorded tick:
//
//	f, _ := os.Create("match.replay")
//	rec, _ := replay.NewRecorder[scene.Input](f, replay.NewHeader(cfg, "cube world", "cubes900", "server"))
//	srv.SetReferee(rec.Wrap(world))              // the server's own simulation, or
//	cl, _ := lockstep.NewClient[scene.Input](cfg, rec.Wrap(world), input, now) // a player's
//	...
//	rec.Close()                                  // a rollback client: rec.CloseAt(confirmed)
//
// A wrapped rollback client's Load forgets the ticks it undoes; the
// recorder keeps Header.Rollback ticks unwritten for that. Without a
// game to wrap, call Record once per confirmed tick.
//
// # Playing back
//
// Read loads a file; Verify re-simulates it and compares every recorded
// checksum; Playback steps it with pause, seek and any speed, seeking
// back by loading a state it saved on the way (Game.Save every
// KeepEvery ticks) and re-simulating from there.
//
// # Desync diagnosis
//
// A game that implements the optional Inspector lays its state out as
// named objects and fields. A wrapped game keeps its state after the last
// few ticks that are multiples of Header.ChecksumEvery; on a
// *lockstep.DesyncError, Game.Desync writes the one it names into the
// replay, after the inputs that led to it. Diagnose takes two replays of
// one match by two parties and reports the first tick whose recorded
// inputs differ, the first whose recorded checksums differ, the first
// after which the two re-simulations differ with the first object and
// field that differ, which party's recording disagrees with a
// re-simulation of its own inputs (its machine or build diverged), and
// what differs between the kept states.
package replay
