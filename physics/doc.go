// Package physics is netphys's deterministic rigid-body engine: a World of
// static, kinematic and dynamic bodies (boxes, spheres, capsules, ground
// planes) stepped at a fixed rate, with persistent contacts, a substepped
// soft-contact solver, sleeping islands, ray/sweep/overlap queries, a pose
// history for lag compensation, and whole-world Snapshot, Restore and
// Checksum for lockstep, rollback and quantize-both-sides.
//
// # Determinism
//
// A World is a pure function of its Config, the calls made on it and
// their order: the same calls give bit-identical states on every run and on
// every architecture (amd64 and arm64 are checked in the tests). The code
// keeps the rules of docs/design.md §2: no map iteration, no goroutines, no wall
// clock, no architecture-dependent math, and every floating-point product
// that meets a sum is rounded explicitly so that the compiler cannot fuse
// it into an FMA. Bodies live in slots; every loop runs in slot or sorted
// pair order.
//
// # Usage contract
//
//   - Create a World with NewWorld(DefaultConfig()) (or a modified Config),
//     then bodies with CreateBody(def) starting from DefaultBodyDef(). Keep
//     the returned BodyID handles; a handle to a destroyed body is invalid
//     forever, even when its slot is reused.
//   - Forces and torques (ApplyForce, ApplyForceAtPoint, ApplyTorque) act
//     during the next Step only; impulses change the velocity at once. All
//     of them, and SetState with a moving state, wake the body's island.
//   - SetState with AtRest and zero velocities puts a body to rest without
//     waking anything: that is how the network applies resting states.
//   - A World is not safe for concurrent use. Run queries between steps.
//   - Snapshot/Restore capture everything that influences the next step
//     except the Config, the pre-step hook and the pose history.
//
// # The canonical step loop
//
//	w, _ := physics.NewWorld(physics.DefaultConfig())
//	ground := physics.DefaultBodyDef()
//	ground.Type = physics.Static
//	ground.Shape = collide.Shape{Kind: collide.Plane}
//	w.CreateBody(ground)
//	cube, _ := w.CreateBody(physics.DefaultBodyDef())
//	w.SetPreStep(func(w *physics.World) { /* quantize states here */ })
//	for {
//		w.ApplyForce(cube, input.Force()) // inputs for this tick
//		w.Step()                          // one fixed TimeStep
//		send(w.Tick(), w.Checksum())      // lockstep desync check
//	}
//
// A rollback client keeps a Snapshot per unconfirmed tick, and on a
// correction calls Restore and steps forward again with the corrected
// inputs; Restore followed by Step reproduces the original run bit for bit.
package physics
