// Package examples holds outside games built on netphys through its public
// packages only (never internal/, never package scene), one per network
// model, each a command of its own:
//
//   - pong: two-player pong on rollback lockstep (netmodel/lockstep), also
//     registered with the runtime (package match) and hosted by it over
//     UDP with tokens (hosted.go);
//   - avalanche: boxes tumbling down a ramp on the physics engine, sent to
//     clients by snapshot interpolation (netmodel/interp);
//   - sumo: hovercraft sumo on client prediction and server reconciliation
//     (netmodel/predict), with its own input type and players that join;
//   - bulldozers: co-op, players drive cubes that push towers of crates
//     over, on state synchronization with distributed authority
//     (netmodel/statesync), with no hands and no avatars (virtual time
//     only).
//
// Each runs in virtual time over the network simulator (netmodel/simmatch)
// or over real UDP (netmodel/udpdrive), and `go test ./examples/...` builds
// and runs each both ways. The README's section "Plugging in your own game"
// quotes them; a test here checks that the quotes match the files.
package examples
