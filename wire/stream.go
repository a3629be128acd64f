package wire

import (
	"errors"
	"math/bits"
)

// Errors returned by streams and Serialize functions. They are wrapped with
// %w and context; test them with errors.Is.
var (
	// ErrRange: a value to write lies outside its declared bounds, or is NaN
	// or ±Inf. Writers never clamp silently.
	ErrRange = errors.New("wire: value out of range")
	// ErrInvalid: a read produced a value the encoding cannot produce
	// (beyond a bound, non-zero padding, NaN, an unused code).
	ErrInvalid = errors.New("wire: invalid encoded value")
	// ErrTruncated: a read needs more bits than the buffer holds.
	ErrTruncated = errors.New("wire: truncated input")
	// ErrOverflow: a write needs more bits than the buffer holds.
	ErrOverflow = errors.New("wire: buffer full")
	// ErrCheck: a check marker read back differs from the one written.
	ErrCheck = errors.New("wire: check marker mismatch")
	// ErrConfig: a Serialize call was given impossible parameters (bit
	// count outside 1–64, empty range, non-positive resolution). It is a
	// programming error, reported instead of panicking.
	ErrConfig = errors.New("wire: invalid encoding parameters")
)

// Mode says what a Stream does with the values handed to it.
type Mode uint8

const (
	// Writing: values are read from the pointers and encoded.
	Writing Mode = iota
	// Reading: values are decoded and stored through the pointers.
	Reading
	// Measuring: values are read from the pointers and only counted, so a
	// sender can ask "does this fit?" without a buffer.
	Measuring
)

// String returns the mode's name.
func (m Mode) String() string {
	switch m {
	case Writing:
		return "writing"
	case Reading:
		return "reading"
	case Measuring:
		return "measuring"
	}
	return "unknown"
}

// Stream is the one interface behind every encoding: a Serialize function
// calls it the same way whether it writes, reads or measures, so the
// encoder and the decoder can never drift apart.
type Stream interface {
	// Mode reports whether the stream writes, reads or measures.
	Mode() Mode
	// Bits writes or counts the low n bits of v, 1 ≤ n ≤ 64, and returns
	// v; or reads n bits and returns them. Writing a value that does not
	// fit in n bits is ErrRange. (Values in and out rather than a pointer
	// keep callers' variables off the heap.)
	Bits(v uint64, n int) (uint64, error)
	// Align moves to the next byte boundary, writing zero bits; reading
	// checks that the skipped bits are zero. Streams without a byte
	// structure (the range coder) treat it as a no-op.
	Align() error
}

// BitsRequired returns the number of bits needed to hold every value in
// [0, span]; 0 when span is 0.
func BitsRequired(span uint64) int { return bits.Len64(span) }

// checkBits validates a bit count and, for writes, that v fits in it.
func checkBits(v uint64, n int) error {
	if n < 1 || n > 64 {
		return ErrConfig
	}
	if n < 64 && v>>n != 0 {
		return ErrRange
	}
	return nil
}
