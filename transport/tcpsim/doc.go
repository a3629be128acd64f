// Package tcpsim is a model of TCP in virtual time: the reliable, ordered
// byte stream the deterministic-lockstep article compares against, run
// over the network simulator's datagrams because this machine's kernel
// has no netem to make real TCP lose packets. It is a core without I/O,
// like the rest of netphys: time is an argument, segments go in and out as
// byte slices.
//
// What it keeps of TCP, because that is what makes a game stutter:
//   - segments of up to MSS bytes with cumulative acknowledgements, and
//     in-order delivery: data behind a lost segment waits in the receiver
//     until the hole is filled (head-of-line blocking);
//   - the retransmission timer of RFC 6298: SRTT and RTTVAR from one timed
//     segment at a time (Karn: never a retransmitted one), RTO = SRTT +
//     max(G, 4·RTTVAR) bounded below by Linux's 200 ms, doubled on every
//     expiry up to MaxRTO; on expiry everything outstanding is sent again
//     (go-back-N, as a stack without SACK does);
//   - fast retransmit after 3 duplicate acknowledgements and NewReno fast
//     recovery (RFC 6582): a partial ack retransmits the next hole;
//   - Reno congestion control counted in segments as Linux does: slow
//     start from 10, halving on fast retransmit, 1 segment after a
//     timeout;
//   - TCP_NODELAY: every Flush sends what was written, coalescing it into
//     full segments when the window holds data back.
//
// What it leaves out: the handshake and teardown, SACK, window scaling and
// flow-control stalls (the receive buffer is large and drained every
// frame), delayed acks beyond the driver's frame (acks leave at the next
// Flush), Nagle, timestamps, ECN.
//
// # Usage
//
//	c, _ := tcpsim.New(tcpsim.DefaultConfig(), now)
//	c.Write(msg)                    // queue bytes
//	c.Flush(now, send)              // segments due now: data, retransmits, acks
//	c.Receive(now, segment)         // a segment from the peer
//	buf = c.ReadAppend(buf)         // the bytes delivered in order so far
//	c.Update(now)                   // expire the retransmission timer
//
// Segment layout (little-endian):
//
//	seq    32 bits  stream offset of the first payload byte
//	ack    32 bits  the next stream offset the sender expects from its peer
//	payload         the rest of the datagram, up to MSS bytes
package tcpsim
