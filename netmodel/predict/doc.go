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
//     Input for that tick, quantizes every body (quantize on both sides),
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
//   - An input that reaches the server after its tick was stepped with a
//     guess (the player's previous controls) makes the server restore
//     that tick and step forward again, within the window and within the
//     client's Config.ResimBudget. A late input whose rewind the budget
//     refuses still stays in history: it costs nothing more to use it when
//     another client's rewind replays that tick anyway. Hits are committed (Server.
//     TakeCommitted) only when their tick leaves the window, since until
//     then a late input can rewrite them.
//   - A shot carries Input.Behind: how many ticks behind its own tick the
//     shooter saw the others. The server, capped at Config.MaxRewind,
//     resolves it against the bodies it had then; both sides call the
//     same Game.Shot, so they agree whenever they agree on the states.
//
// # Usage contract
//
// A game implements Game (the arena of package scene does; this package's
// tests plug in a tiny game of their own). The server and every client
// each own a game built identically and left in its starting state.
//
//	srv, _ := predict.NewServer(predict.DefaultConfig(), serverGame, now)
//	srv.Join(now, slot)                    // netcode connected a client
//	srv.Receive(now, slot, datagram)       // for each datagram; errors are counted drops
//	srv.Update(now, send)                  // every frame: ticks due, rewinds, states
//	hits = srv.TakeCommitted(hits[:0])     // outcomes that can no longer change
//
//	cl, _ := predict.NewClient(predict.DefaultConfig(), clientGame, control, now)
//	cl.Receive(now, datagram)
//	cl.Update(now, send)                   // every frame: ticks due, inputs sent
//	bodies = cl.Rendered(bodies)           // what to draw
//
// control is called once per predicted tick with the client's View (the
// others as shown, its own predicted player) and returns the Input.
//
// # Bounds on what a peer can make the other do
//
// Decoders check every field and never allocate by a size read from the
// packet. The server drops inputs older than the window or further ahead
// than Config.MaxAhead, clamps moves longer than MoveMax, pitches beyond
// the vertical and Behind beyond MaxRewind, counts each in
// ServerCounters, limits input packets per client and tick, and refuses
// rewinds over a client's budget. A client predicts at most Window ticks
// beyond the newest state it has.
package predict
