// Package interp is the snapshot-interpolation model (the second of the
// series, after deterministic lockstep): the server simulates, and each
// client simulates nothing, drawing the world as it was a render delay
// ago, between the two snapshots around its render clock.
//
// # Server
//
// NewServer takes a Game (step, capture; scene.InterpGame is the cube
// world's) and sends every client a snapshot every TickRate/PPS ticks
// (10, 20, 30 or 60 per second at 60 Hz), coded by Config.Codec (stage 9
// of wire/snapshot by default) against the newest snapshots that client
// acknowledged through its reliable.Endpoint. Every client decodes the
// same quantized snapshot, so the Encoder keeps one history for all, and
// clients with the same baselines share the encodings: at 30 pps, 64
// clients under 100 ms RTT and 5 % loss cost about 110 µs of CPU per
// client per snapshot, a fifth of a body coded per packet
// (BenchmarkServer64). Only snapshots the server sent to a client, in
// packets that client acknowledged, become its baselines (Baselines).
//
// # Client
//
// NewClient decodes the snapshots (16-bit sequence, restored across the
// wrap; a packet older than the newest is kept as a baseline but not
// drawn, one far ahead of what the server can have sent is dropped),
// acknowledges them, and runs a render clock in server ticks towards
// now − delay, at 1 ± MaxTimeScale (5 %) of real time, never jumping
// once started. The delay follows the measured delivery delays and loss
// so that at most DryTarget of the frames run dry (buffer.go explains
// the rule and the two anchors it beats: the article's fixed delay and
// Mirror's buffer). Between snapshots it draws linearly (nlerp) or on a
// Hermite curve (tangents from the neighbouring snapshots, or sent by
// the codec when Codec.Config.Velocity is set and SentVelocity is on);
// past the newest snapshot it holds it or, with Extrapolate, runs it on
// for at most 200 ms and blends back when data arrives. A server clock
// that drifts is followed (the delays are detrended, the clock's rate
// follows), and MaxDelay bounds what a stalled server does to the delay.
//
// # The driver loop
//
// Both sides are netmodel cores: time is an argument, datagrams go in
// and out, nothing reads a clock or touches a socket.
//
//	srv, _ := interp.NewServer(cfg, game, now)
//	srv.Join(now, slot)
//	every frame: srv.Receive(now, slot, d) for each datagram; srv.Update(now, send)
//
//	c, _ := interp.NewClient(cfg, game.Objects(), now)
//	every frame: c.Receive(now, d) for each datagram; c.Update(now, send)
//	cubes, tick, ok := c.View()   // draw cubes: the server's world at tick
//
// Errors from Receive are datagrams dropped and counted (ServerCounters,
// ClientCounters): malformed, a baseline the client does not hold, a
// sequence far ahead, a stale slot. `netphys bench interp` runs the model
// over the network simulator in virtual time; `netphys serve/play/demo
// --model interp` and `netphys load` run it over UDP (internal/match);
// docs/interp.md has the tables.
package interp
