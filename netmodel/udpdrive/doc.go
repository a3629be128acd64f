// Package udpdrive runs any network model on real UDP: a netmodel.Server
// on a netcode server, and a netmodel.Client on a netcode client, with
// the transport package's drivers underneath.
//
// The models stay cores without I/O. This package is what owns the rest:
// the goroutine that calls the model, the wall clock and one ticker.
// transport's goroutines read the sockets and hand each payload to a
// callback; here the callback only queues it, stamped with the time it
// arrived, and the model's goroutine takes the queue at the next frame:
//
//	transport goroutine:  payload ─► queue (arrival time) ◄─ connect / disconnect
//	model goroutine, every frame (Run):
//	    for each queued event, in order:  Join / Leave / Receive(arrival time, …)
//	    Update(now, send)  ─► SendPayload, at once
//
// netcode's connects and disconnects become Join and Leave (netcode's
// client index is the model's slot; a netmodel.Identified model gets
// JoinClient with the client id of the connect token instead of Join, so
// that it knows a player coming back); a Join the model refuses
// disconnects the client. Receive errors (datagrams the model dropped) are logged at
// debug level and counted in Traffic; an Update error stops the side. The
// time a model is given never goes backwards, and a Receive's time is when
// the datagram came off the socket, not when the frame ran, so the
// model's RTT and jitter figures are not quantized to frames. Arrival
// times come from the transport's clock (transport.ServerConfig.Now and
// transport.ClientConfig.Now); Step takes its
// time as an argument, so a test may step the sides itself on any clock,
// while Run steps them on the wall clock.
//
// # Usage
//
// The package's Example is a complete program: a lockstep server and two
// players on loopback, with connect tokens and a clean shutdown. In short
// (model is the server's netmodel.Server, newPlayer and draw the game's):
//
//	srv, err := udpdrive.NewServer(model, conn, cfg) // conn: a bound *net.UDPConn; cfg holds the private key
//	cli, err := udpdrive.Dial(ctx, token, func(slot int) (netmodel.Client, error) {
//		return newPlayer(slot) // built once netcode has given the slot
//	}, udpdrive.DefaultClientConfig())
//	err = udpdrive.Run(ctx, udpdrive.DefaultFrame, func(now time.Time) (bool, error) {
//		draw() // the models are safe to read here, between frames
//		return false, nil
//	}, srv, cli)
//
// A client whose model has a Running() bool method (lockstep.Client) and
// whose session has not started ClientConfig.StartWithin after its first
// Step stops with ErrNotStarted instead of waiting quietly.
//
// A process normally drives one side (`netphys serve`, `netphys play`);
// the demo runs the server and each player in a Run of its own, as
// separate processes would. One Run can also step several sides in a
// fixed order every frame, as simmatch steps them in virtual time.
//
// # Many matches on one port
//
// A Server drives one model at a time. Rooms drive many at once on one
// netcode server, one UDP port and one goroutine: each client's connect
// token names its match in its user data, a Lobby reads the name and
// builds the match for its first client, and each match (a Match: its
// model, slots numbered from 0, handshake, counts and cost) ends when
// its clients have left. A match's Update error or panic ends that match
// alone, its clients told why. Server and Rooms share Match, so the
// handshake, the byes and the counts are the same code.
//
// Each side counts its Traffic (with netmodel.PacketOverhead per
// datagram, as simmatch does), the wall time of its Steps (Cost: the
// model's CPU per frame as the clock sees it) and what it dropped
// (Dropped). Server.Replace hands the netcode server to a new model for
// the next match once every client of the last one has left.
//
// # Agreement, refusals and byes
//
// With ServerConfig.Agree and ClientConfig.Agree (a description of the
// match: model, config, game and layout, players) the client opens with a
// hello and the model sees it only if the descriptions are equal; else
// the client is refused with a message naming both ("server runs X; you
// asked for Y"), before any state or input flows. A client whose hello is
// Watching(description) asks to watch: a model that implements Spectated
// gets it by Watch instead of Join. A model that implements
// Releaser has the clients it is done with (dropped, and told why) sent a
// bye and disconnected, so that they cannot keep a finished match alive;
// Server.EndMatch does the same for every client after a model failed.
// Every refusal and bye carries its reason, which the client's Dial or
// Step return as a *RefusedError, and is counted (Server.Refusals).
package udpdrive
