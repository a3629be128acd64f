// Package wire is netphys's codec toolkit: bit streams, quantization,
// smallest-three quaternions, relative encodings and an adaptive binary
// range coder.
//
// # One Serialize for write, read and measure
//
// Every encoding is one function over a Stream:
//
//	func (m *Msg) Serialize(s wire.Stream) error {
//		if err := wire.SerializeInt(s, &m.Count, 0, 900); err != nil {
//			return err
//		}
//		return wire.SerializeQuat(s, &m.Rot, 9)
//	}
//
// Run it on a Writer to encode into a caller's buffer (no allocation), on a
// Reader to decode, on a Measurer to count the bits without writing (a
// priority accumulator asks "does this fit?" that way). The writer and the
// reader cannot drift apart because they are the same code.
//
// # Contract
//
//   - Writing (and measuring) validates: an integer outside its range, a
//     float outside its bounds, NaN or ±Inf, a non-unit quaternion is
//     ErrRange. Nothing is clamped silently; callers quantize or clamp
//     first, on purpose.
//   - Reading is bounds-checked and validates: a read past the end is
//     ErrTruncated, a value the writer could not have produced is
//     ErrInvalid, a wrong check marker is ErrCheck. Nothing panics and
//     nothing allocates a size read from the input (byte blocks are
//     bounded by the caller's maximum and grow only with bytes present).
//   - Quantization is deterministic, bit-identical on every platform: the
//     sender can apply FloatRange.Quantize, Bounds.Quantize,
//     QuantizeQuatValue or BodyState.Quantize to its own simulation and
//     continue from exactly what the receiver decodes ("quantize on both
//     sides"). Quantizing a quantized value is the identity.
//   - Write-mode Serialize calls never modify the value they are given;
//     read-mode calls store the decoded (quantized) value.
//
// # Range coding
//
// RangeEncoder, its measuring twin NewRangeMeasurer and RangeDecoder are
// Streams too, and ModelStreams: SerializeModelBit codes a bit under an
// adaptive probability model (Prob), so a predictable bit costs a
// fraction of a bit. The adaptive models built on it (counting start,
// Exp-Golomb residuals, trees) are the snapshot codec's, in
// wire/snapshot: one set, where they are used. The same
// Serialize function runs on the bit packer (one bit per model bit) and
// on the range coder. Models are plain values both sides reset at the
// start of a message: a message must not depend on models adapted by
// earlier messages, which may have been lost. Call Finish on the encoder
// to get the byte count (the measurer's is exact) and on the decoder to
// check the input was consumed.
//
// # Bit order
//
// The bit packer stores values least significant bit first from the
// least significant bit of byte 0 (see Writer). Multi-part messages
// document their layout beside their Serialize function.
package wire
