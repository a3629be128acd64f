// Package predict is the network model of competitive action games:
// an authoritative server, client-side prediction with reconciliation,
// server reconciliation of late inputs, and lag-compensated shots (seed
// 002, the mobile shooter's physics; seed 004, prediction and server
// reconciliation). It is a core without I/O: explicit time, datagrams in
// and out, one reliable.Endpoint per peer. Server implements
// netmodel.Server and Client implements netmodel.Client.
//
// # The model
//
//   - The server steps the game at Config.TickRate with every player's
//     input for that tick, quantizes every body (quantize on both sides),
//     and sends each client the world at the new tick. It keeps a window
//     of Config.Window (the history P, 1 s) of saved states, the inputs
//     and the quantized bodies.
//   - A client runs ahead of the server by its one-way delay plus a
//     margin: the server reports how early the client's inputs arrived
//     (the worst case over Config.LeadWindow) and the client speeds its
//     tick clock up or down, or jumps it, to keep that at
//     Config.TargetLead ticks. Every packet carries every input the server
//     has not acknowledged (the acks are the endpoint's packet acks).
//   - The client predicts its player at once from its inputs, in its own
//     copy of the game. When the server's state of tick n arrives it is
//     compared with the prediction of n; a difference of more than the
//     quantization step in its player, or in a body near it, makes the
//     client load its saved state of n, apply the server's bodies and
//     step again through its later inputs (reconciliation). The visual
//     jump decays over Config.SmoothTime (Client.Rendered).
//   - The others are shown as the server had them, a few ticks in the
//     past (Client.Delay: the worst recent age of the newest state plus
//     Config.InterpExtra), interpolated across lost states.
//   - An input that has not arrived when its tick is stepped is guessed:
//     the player's previous controls, without a shot, for at most
//     Config.Grace (250 ms); then the zero input, so that a dead client's
//     ghost stands still instead of running on until it times out.
//   - A client that leaves stops its character at once: the inputs it
//     sent for the ticks ahead are forgotten and the character steps with
//     the zero input. If the driver named the client (Server.JoinClient,
//     netmodel.Identified: netcode's client id), the character stays in
//     the world for Config.RejoinGrace (30 s), its player number nobody
//     else's, and a client joining with the same id within it, on any
//     slot, plays it again from where it stands (ServerCounters.Rejoins);
//     after the grace it leaves (Joiner.Park). The others see it stand,
//     then walk on: no spawn, no stall, at most a rewind's correction for
//     the returning client's first, late inputs.
//   - An input that reaches the server after its tick was stepped with a
//     guess, by at most Config.MaxLate (100 ms), makes the server restore
//     that tick and step forward again, within the client's
//     Config.ResimBudget. A later input is dropped: a lag switch (packets
//     held back, then a burst) cannot rewrite more than MaxLate of its
//     character's path in what the others see. A late input whose rewind
//     the budget refuses still stays in history: it costs nothing more to
//     use it when another client's rewind replays that tick anyway. Hits
//     are committed (Server.TakeCommitted) only when their tick leaves the
//     window, since until then a late input can rewrite them.
//   - In a game that shoots (a Shooter), a shot carries a claim: how many
//     ticks behind its own tick the shooter saw the others. The server
//     resolves it against the bodies it had then; both sides call the
//     same Shooter.Shot, so they agree whenever they agree on the states.
//     The rewind a shot gets, the server's tick when the shot arrived (or
//     the shot's own tick, if it came early) minus the tick it is judged
//     at, is capped at Config.MaxRewind whatever the stamp: a claim
//     beyond is judged at the cap (ServerCounters.BehindClamped), a shot
//     that arrives more than MaxRewind after its tick is refused
//     (ShotsTooLate).
//
// # Usage contract
//
// A game implements Game[I] for its own input type I, which satisfies
// Input[I] (comparable, with a Serialize on *I: the constraint of
// netmodel/lockstep). Shots and lag compensation (Shooter), players that
// enter and leave (Joiner), contacts (Toucher), inputs that step alike
// (Stepper), what the others learn of an input (Relayer), knowing a
// re-simulated step (Resimulator) and putting back a body that left the
// spec (Escaper) are optional interfaces. The arena of package scene
// implements all but Resimulator, on scene.ArenaInput; this package's
// tests plug in a tiny shooter and, in the example, karts that neither
// shoot nor join. The server and every client each own a game built
// identically and left in its starting state.
//
//	srv, _ := predict.NewServer[MyInput](predict.DefaultConfig(), serverGame, now)
//	srv.Join(now, slot)                    // netcode connected a client
//	srv.Receive(now, slot, datagram)       // for each datagram; errors are counted drops
//	srv.Update(now, send)                  // every frame: ticks due, rewinds, states
//	hits = srv.TakeCommitted(hits[:0])     // outcomes that can no longer change
//
//	cl, _ := predict.NewClient[MyInput](predict.DefaultConfig(), clientGame, control, now)
//	cl.Receive(now, datagram)
//	cl.Update(now, send)                   // every frame: ticks due, inputs sent
//	bodies = cl.Rendered(bodies)           // what to draw
//
// control is called once per predicted tick with the client's View (the
// others as shown, its own predicted player) and returns the input.
//
// # Ticks and re-simulation
//
// Tick numbers the server's steps from NewServer; a client predicts the
// same numbers ahead of the server. It is not the physics tick of a
// game's world (see Tick). Steps happen three ways: a new server tick, a
// new predicted tick on a client, and a re-simulation of ticks already
// stepped (a server rewind for a late input, a client reconciliation
// with a server state). A Resimulator is told when the third kind starts
// and ends; a one-shot effect (a sound, a kill-feed line) must come from
// a step outside a re-simulation on a client, and on the server only
// from the hits TakeCommitted returns.
//
// # Bounds on what a peer can make the other do
//
// Decoders check every field and never allocate by a size read from the
// packet; the game's Serialize rejects inputs it cannot take (the arena:
// moves longer than a full one, pitches beyond the vertical) and the
// packet is dropped. The server drops inputs that arrive more than
// Config.MaxLate after their tick (a lag switch's burst rewrites at most
// MaxLate of its character's path in what the others see) or further
// ahead than Config.MaxAhead, repeats a silent player's controls for
// Config.Grace only, judges a shot at most MaxRewind before its own tick
// (refusing one that arrives later than that), lets the game refuse
// shots by its rules (ShotRefused: the arena's rate of fire), limits
// input packets per client and tick, and refuses rewinds over a client's
// budget; each refusal is counted by reason (ServerCounters.Refusals). A body outside the game's spec is counted and put back by the
// game (Escaper) or an error, never clamped. A client predicts at most
// Window ticks beyond the newest state it has.
package predict
