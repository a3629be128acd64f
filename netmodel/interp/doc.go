// Package interp is the snapshot-interpolation model (the second of the
// series, after deterministic lockstep): the server simulates, and each
// client simulates nothing, drawing the world as it was a render delay
// ago, between the two snapshots around its render clock.
//
// # Server
//
// NewServer takes a Game (step, capture; scene.InterpGame is the cube
// world's, the package Example a puck game of its own) and sends every client a snapshot every TickRate/PPS ticks
// (10, 20, 30 or 60 per second at 60 Hz), coded by Config.Codec (stage 9
// of wire/snapshot by default) against the newest snapshots that client
// acknowledged through its reliable.Endpoint. Every client decodes the
// same quantized snapshot, so the Encoder keeps one history for all, and
// clients with the same baselines share the encodings: at 30 pps, 64
// clients under 100 ms RTT and 5 % loss cost about 70 µs of CPU per
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
// now − delay, never jumping once started. The delay follows the measured
// delivery delays and loss so that at most DryTarget of the frames run
// dry (buffer.go explains the rule and the two anchors it beats: the
// article's fixed delay and Mirror's buffer).
//
// Between snapshots it draws linearly (nlerp) or on a
// Hermite curve (tangents from the neighbouring snapshots, or sent by
// the codec when Codec.Config.Velocity is set and SentVelocity is on);
// past the newest snapshot it holds it or, with Extrapolate, runs it on
// for at most 200 ms and blends back when data arrives. MaxDelay bounds
// what a stalled server does to the delay.
//
// # Time, ticks and the render clock
//
// Every call takes now, a time.Time from the driver's clock; the two
// ends' clocks need not agree, nor run at the same rate. The server's
// time is its tick: tick k is the state after k steps of
// Config.TickInterval from the start passed to NewServer, and snapshot
// Number n is the state after tick n·TickRate/PPS. View reports the tick
// shown as a float64 (fractional: between two snapshots). The render
// clock runs at the server's rate as the client measures it (the drift
// of the delivery delays' floor, followed up to ±10 %: a client or
// server clock off by that much), ±MaxTimeScale (5 %) to reach its
// target. When the link stalls (no snapshot for SlowGap intervals and
// less than SlowBelow buffered ahead) it slows in proportion, down to
// MinScale (0.2) of real time: a stall of 300 ms every 4 s shows as a
// moment of slow motion instead of a frozen world, for a mean delay
// under 250 ms (`netphys bench interp`'s spiky row). A longer gap (a
// link down for seconds) runs dry once the buffered snapshots are shown:
// the clock slows for MaxSlow (0.5 s) at most, then runs on at its rate
// while the client holds the newest snapshot (or extrapolates for at
// most ExtrapolationLimit); when data comes back the clock is at most
// 0.4 s further behind its target and takes that back at MaxTimeScale
// (8 s at 5 %), without a jump. The delay estimate leaves stalls out
// (SpikeFactor), so they do not raise the delay for the seconds after.
//
// # Resets
//
// An object that jumps (a teleport, a respawn, a puck re-served to the
// centre) is not interpolated across the jump when the game says so:
// a Game that also implements Resetter marks the objects each Step
// reset, every packet carries the resets after its baseline
// (ResetSection), and the client draws such an object where it was until
// the reset's tick and where it landed from it.
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
// --model interp` and `netphys load` run it over UDP (match);
// docs/interp.md has the tables.
package interp
