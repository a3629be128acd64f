// Package reliable implements reliable.io's packet acks and fragmentation
// as a core without I/O, byte-compatible with the reference reliable.c.
//
// Every payload an Endpoint sends carries a 16-bit sequence and an
// acknowledgement of the peer's last 33 packets (the newest sequence
// received and 32 ack bits, bit i meaning "Ack-i arrived"). The endpoint
// turns the acks it receives into a list of its own sequences that
// reached the peer. Nothing is resent: the layer above keeps, per sent
// sequence, what the packet carried (a snapshot's delta baselines, the
// inputs it repeated) and acts on the acks, which is what the seed
// articles' delta compression and redundant inputs need.
//
// Payloads larger than Config.FragmentAbove are split into fragments of
// Config.FragmentSize bytes (at most 1024, at most 256 per packet) and
// reassembled on the other side in bounded buffers; a packet's acks are
// processed once it is whole.
//
// # Usage contract
//
// An Endpoint is a plain value advanced by calls that take the current
// time; it never reads the clock, starts goroutines or touches sockets.
// One driver owns it:
//
//	e, _ := reliable.NewEndpoint(reliable.DefaultConfig(), now)
//	for each tick {
//		seq, datagrams, err := e.SendPacket(now, payload)
//		remember[seq] = what the payload carried
//		for _, d := range datagrams { conn.Write(d) } // before the next SendPacket
//
//		for each datagram d received {
//			seq, payload, err := e.ReceivePacket(now, d)
//			if payload != nil { deliver(seq, payload) } // valid until the next ReceivePacket
//		}
//		for _, s := range e.Acks() { onAcked(remember[s]) }
//		e.ClearAcks()
//		e.Update(now) // refresh Stats: RTT, loss, bandwidth
//	}
//
// SendPacket returns slices of a buffer the endpoint reuses, and
// ReceivePacket's payload aliases the datagram or a reassembly buffer:
// both are valid until the next call of the same method. Acks reports
// each acknowledged sequence once. Acks are read only from packets the
// endpoint accepts: malformed, stale and duplicate datagrams carry none.
//
// # Differences from reliable.c
//
// The wire format, the default Config and the statistics are reliable.c's.
// The API returns datagrams and payloads instead of calling transmit and
// process callbacks, so a packet is accepted whenever it parses (there is
// no "process failed" that leaves it unacked). ParseHeader accepts only the
// canonical header encoding, which is all reliable.c ever writes, where
// reliable.c also accepts redundant forms of regular packets. Drops return
// an error as well as counting in Counters.
package reliable
