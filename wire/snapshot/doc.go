// Package snapshot holds the snapshot codecs of the snapshot-compression
// table: nine stages, each adding one technique to the previous, from
// uncompressed float32 state (321 bits per cube) to delta coding against
// acknowledged baselines with prediction and range coding. Stage 9 can
// predict by running the simulation itself (Simulator; scene.Predictor is
// the cube world's), sending the inputs it needs.
//
// These are pure functions: no network, no clock. A Codec encodes a
// Snapshot (the visual state of every cube) against a Reference (earlier
// snapshots the receiver is known to hold) and decodes it against the same
// Reference:
//
//	c := snapshot.Codec{Stage: snapshot.RangeCoded, Config: snapshot.DefaultConfig()}
//	ref := snapshot.Reference{Base: acked, Prev: ackedBefore, BaseAge: 6, PrevAge: 2}
//	pkt, err := c.Encode(buf, &current, ref)           // sender
//	err = c.Decode(pkt, &decoded, ref)                  // receiver, decoded.Cubes pre-sized
//
// # Contract
//
//   - The receiver decodes exactly c.Quantize(snapshot). Senders keep that
//     quantized snapshot (not their own floats) as the future baseline,
//     and measure errors against it.
//   - The Reference must be built from decoded snapshots that both sides
//     hold: Base and Prev are snapshots the receiver decoded and whose
//     arrival the sender learnt from acks. Which ones were used (their
//     sequence numbers) travels in the packet header, outside this
//     package. The cube count is the scene's, never read from a packet.
//   - Stages 1–8 are bit-packed (wire.Writer); stage 9 is range-coded
//     (wire.RangeEncoder). Encode, Decode and Size pick the stream.
//   - Decoding validates everything and never panics; a truncated packet of
//     stages 1–8 is wire.ErrTruncated. Every packet that decodes is the
//     canonical encoding of what it decodes to.
//   - Snapshots returned by Quantize and filled by Decode remember their
//     integer form, so coding against them again skips most of the work
//     (a 900-cube encode or decode takes well under a millisecond). They
//     may still be modified: a reference whose cubes changed is quantized
//     afresh. References are only read, so several goroutines may code
//     against the same snapshots at once.
//   - Decoding is bounded: no allocation or loop is sized by the packet
//     beyond the scene's cube count, and a stage-9 packet makes a codec
//     with a Simulator run it for at most Config.MaxSimulatedTicks ticks
//     (default 16, never more than 64): an older Base is predicted in
//     straight lines by both ends.
//   - Everything is deterministic (integer arithmetic, and float
//     arithmetic written to be bit-identical on every platform), so
//     sender and receiver compute the same predictions. A Simulator must
//     be too, and each end needs its own instance.
package snapshot
