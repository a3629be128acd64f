// Package netmodel is the layer of network models: the ways a physics
// simulation is shared between players over the Internet. Each model is a
// package below this one (lockstep, interp, statesync, predict), and each is
// a core without I/O in the style of etcd's raft: a plain value advanced by
// calls that take the current time, with datagrams in and datagrams out. It
// never opens a socket, reads the clock, starts a goroutine or draws
// unseeded randomness.
//
// Every model has the same star topology, the one netcode gives: one server
// (the relay, the authority or the host) and up to netcode's limit of
// clients, each in a slot. A model's server side implements Server and its
// client side implements Client, so that one set of drivers runs every
// model three ways from the same core:
//
//   - in virtual time over the network simulator (package simmatch): the
//     tests and the `netphys bench <model>` reports;
//   - in one process over real UDP through the simulator's proxy
//     (`netphys demo --model <model>`);
//   - as separate processes (`netphys serve --model <model>` and
//     `netphys play --model <model>`).
//
// A model keeps one reliable.Endpoint per peer: its packet acks drive the
// redundancy of inputs and the baselines of delta compression. The datagrams
// a model hands to its driver are the endpoint's (at most MaxDatagram
// bytes); the driver carries them as netcode payloads.
//
// A model never imports package scene: it declares the small interface it
// needs from a game (step with inputs, checksum, snapshot and restore,
// capture and apply of object state, priorities), scene implements it for
// the cube world, and each model's tests also plug in a tiny game of their
// own, so that a user sees how to plug in a game that is not ours.
//
// # The driver loop
//
//	srv := lockstep.NewServer(cfg, ...)      // a netmodel.Server
//	srv.Join(now, slot)                      // netcode connected a client
//	for each frame {                         // e.g. every 1/60 s
//		for each datagram d from slot {
//			srv.Receive(now, slot, d)        // errors are counted by the model; log them
//		}
//		if err := srv.Update(now, send); err != nil { // send(slot, datagram) for each one to send
//			stop: the session cannot go on (a desync, say)
//		}
//	}
//
// A client is driven the same way without slots. Update runs whatever the
// model has to do by now (simulation ticks, snapshots, resends), bounded per
// call so that a slow machine falls behind instead of spiralling.
package netmodel
