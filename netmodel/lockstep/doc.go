// Package lockstep is deterministic lockstep, the first network model of
// the articles, and its rollback variant: only inputs cross the network,
// and every player steps its own copy of the same deterministic game, so
// the bandwidth does not depend on what the game holds.
//
// # Topology and API
//
// One Server (a relay, and the referee when given the game with
// SetReferee) and 1 to 4 Clients, one per player, on netcode's star: the
// Server implements netmodel.Server, the Client netmodel.Client, and the
// drivers of package netmodel run them in virtual time (simmatch), over
// real UDP or as separate processes. A game implements Game (and
// optionally Resimulator) over an input type that implements Input; the
// runnable examples (Example, Example_rollback) show a whole match, and
// examples/pong an outside game with its own main.
//
// The client's Control is called once per tick, in order, with the
// player index and whether the game it shows is predicted: the keys of a
// human player or a script for a bot. The session starts when
// Config.Players clients have joined and answered; players are numbered
// in the order they joined.
//
// # Inputs over datagrams
//
// Every message repeats all of its sender's unacknowledged inputs, coded
// as the article does (the tick of the newest, the oldest input whole, a
// count, then per input one bit "same as the previous" or the input).
// The receiver acknowledges, explicitly in every message, the tick
// before which it holds every input (the client: one such tick per other
// player), and the sender drops what is acknowledged; a lost datagram
// costs one frame. The server forwards every player's inputs to every
// other player the same way. Each peer has a reliable.Endpoint: its sequences drop stale and duplicate datagrams, its
// packet acks retire checksum reports, its round trip and loss feed the
// delay. A peer that sends nothing, or acknowledges nothing new while
// inputs wait for it, for Config.Timeout is disconnected, and so is a
// player whose inputs lag the session clock by more than Config.MaxLag
// (progress, not presence): the client's Update returns ErrTimeout or the
// *DroppedError the server sent it; the server tells the others the tick
// from which the departed player's input is the zero input, and they
// fill it in themselves. Nothing is buffered beyond Config.Buffer ticks;
// when it is full the player whose inputs are missing is dropped, never
// those waiting for it. A full lobby starts Config.StartTimeout after it
// filled without the players whose round trip is still unknown.
//
// With Transport Stream the same messages go once each over a model of
// TCP (package tcpsim): the baseline whose stalls the article shows.
//
// # Time
//
// The server's session clock is the reference: tick n starts n·TickDuration
// after the session start, which the server places half the largest round
// trip ahead so that every player learns it in time. Every server message
// carries the session time; a client estimates the offset to its own
// clock from the fastest messages (the largest server − local, plus half
// the smallest round trip) and follows the estimate by slewing, never
// jumping, at most Config.Slew (5 %): clock drift is absorbed this way.
//
// A client samples its local input for tick n when the session clock
// reaches n, and simulates tick n when the session clock reaches n plus
// the input delay, if every player's input n is known (the playout delay
// buffer). The delay starts at Config.InitialDelay (the article's 100 ms)
// and adapts: the client measures how old every remote input is when it
// arrives (the whole path, sender → server → here), keeps the largest of
// the last 10 seconds, and adds Config.Margin and a margin that grows with
// the measured loss (the ticks of consecutive losses rarer than 1 in 1000).
// The delay moves toward that target by at most Slew of the elapsed time,
// so the game runs a few percent slow or fast instead of jumping. The
// session starts with InitialDelay (the article's 100 ms), or with the
// round trip measured in the lobby plus two frames when that is more:
// nothing has run yet, so that is no jump. When a tick is due and an
// input is still missing, the game stalls and the delay grows by the
// stall up to the target, so that it goes on at normal speed afterwards;
// a longer stall (a player lost for seconds) is caught up instead, at most
// Config.MaxCatchUp new ticks per Update (the article's 4: no spiral of
// death).
//
// # Rollback
//
// With Config.Rollback > 0 (DefaultRollbackConfig), a client simulates up
// to Rollback ticks beyond the inputs it has, predicting every missing
// input as that player's last one, saving the game before every tick
// simulated on a prediction. When an input arrives that differs from its
// prediction, the next Update loads the state before that tick and
// simulates again up to where it was. The delay then targets the
// measured need minus the rollback window, down to Config.MinDelay. A
// peer's bytes can cost at most Rollback re-simulated ticks per Update.
// A game that implements Resimulator is told when its steps are
// re-simulations, and one-shot effects stay out of them (see
// Resimulator).
//
// # Late join and rejoin
//
// With late join on (Transport Datagrams, Config.MaxSnapshotBytes > 0,
// games that implement Snapshotter) a server seats a client that joins
// the running session in the seat of a player who left or was dropped:
// its own seat if it had one (JoinClient, which a driver calls with the
// client id of the connect token), else the lowest free seat. A seat is
// held for the client id of the player who left it for
// Config.RejoinGrace (30 s): meanwhile a client with another id takes
// another free seat, or is refused with a reason that names the seat and
// the time left. A client id that left a seat or was dropped from it a
// second time takes no seat for MaxLag, twice as long after each next
// time, so that it cannot make the others wait for its inputs again and
// again by coming straight back (ServerStats.HeldOff).
//
// The joiner receives the game as bytes, the state before a tick, with
// its checksum, in chunks of 1 kB with selective acks (at most
// Config.SnapshotBurst per Update; a chunk not acknowledged goes again
// half a round trip later, twice as long after each next try while
// nothing new is acknowledged, so that a client that hoards its
// snapshot is not sprayed with it; a spectator whose snapshot does not
// progress for Timeout is let go), then every player's inputs since; it
// restores the game, checks that its checksum is the one sent, simulates
// forward to the present (MaxCatchUp ticks per Update) and reports
// checksums from the snapshot's tick on, verified as everyone's. Its
// seat's inputs are the zero input up to the tick it joins at, more than
// MaxLead beyond the session clock when it is seated, so that no client
// has simulated that far; the others learn the seat is back from the
// server's next message and never wait for the joiner before that tick.
// Stats report the snapshot's size, its tick, the join tick and when the
// joiner had the snapshot and had caught up.
//
// Where the server runs the referee (SetReferee) the state is the
// referee's. Otherwise a player's: the server asks a connected player for
// its state after a checkpoint tick no client has simulated yet, relays
// it (at most MaxSnapshotBytes) once every player's checksum of that
// tick is in, with the agreed checksum, and the joiner checks it. A
// source whose state does not match is accused once another player's
// state restores for the joiner, asked after the others from then on,
// and dropped (ReasonSnapshot) once joiners of two client ids accused it:
// one client's word drops nobody (a joiner for which two states fail is
// dropped instead: ReasonJoinFailed); one that sends nothing
// within Timeout too (ReasonSourceTimeout), one that cannot
// (no Snapshotter) is not asked again; the joiner waits, unseated, while
// another player is asked, and is refused when none is left (Released
// gives the reason). The others never wait for any of it.
//
// # Spectators
//
// NewSpectator's client takes no seat and sends no inputs: the server
// relays it every player's inputs and it simulates the ticks whose inputs
// are all known, its input delay behind the session clock (GGPO's
// spectators). Any number may watch; they join the lobby (in or beyond
// its seats: a spectator's first message frees the seat it was given) or
// the running session (then they get the referee's state first, or
// without a referee a player's, checked against the agreed checksum, as a
// late joiner does; a late client is seated once its first message says
// it plays or watches, so a spectator never takes a free seat nor counts
// as a late join). The players never wait for a spectator: one that
// falls out of the server's buffer, or is silent for Timeout, is dropped
// (ServerStats.WatchersDropped) and Released tells its driver why. A player's client is never made a
// spectator: joining when every seat is taken or held, it is refused at
// its first message with the reason (Released).
//
// # Desync detection
//
// Every client reports the checksum (low 32 bits of Game.Checksum) of the
// state after every tick that is a multiple of Config.ChecksumEvery, once
// every input of that tick is known. The server judges them: with a
// referee, the player whose checksum differs from the server's own is
// dropped (ReasonDesync) as soon as another player's equals it; without,
// the majority of three or more decides once every connected player has
// reported. The dropped player is told why (its client's Update returns a
// *DroppedError naming the tick) and the session goes on. A desync nobody
// can be blamed for (two players, a tie, or the referee against every
// player) stops the session: the server's Update returns a *DesyncError,
// keeps returning it, and tells the clients, whose Update returns it too.
// Released tells a driver when a dropped player has been told, so that it
// can close the connection. The trust model is in docs/lockstep.md.
//
// # Bad input
//
// Every message is decoded by one Serialize with bounds and validated as a
// whole before anything is applied: a count beyond Config.Window, inputs
// whose ticks leave a gap or lie beyond the buffer or Config.MaxLead ahead
// of the session clock, acknowledgements of inputs never sent, checksums
// of ticks whose inputs are not all known, input values the game's
// Serialize rejects. Such a message is dropped, counted (Stats.Rejected)
// and reported as an error wrapping ErrMalformed or ErrForged.
package lockstep
