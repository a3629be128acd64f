package reliable

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Wire sizes of the two headers, in bytes.
const (
	// MaxHeaderSize is the largest packet header: prefix, sequence, a
	// 16-bit ack and all four ack-bit bytes.
	MaxHeaderSize = 9
	// MinHeaderSize is the smallest: prefix, sequence and a one-byte ack
	// delta, with every ack bit set.
	MinHeaderSize = 4
	// FragmentHeaderSize is the fixed header in front of every fragment.
	FragmentHeaderSize = 5
)

// Errors of the header and fragment parsers. Every parse error wraps
// ErrInvalid, so callers can test for "malformed" without listing causes.
var (
	ErrInvalid      = errors.New("reliable: invalid datagram")
	ErrTruncated    = fmt.Errorf("%w: truncated", ErrInvalid)
	ErrPrefix       = fmt.Errorf("%w: wrong prefix byte", ErrInvalid)
	ErrNonCanonical = fmt.Errorf("%w: non-canonical packet header", ErrInvalid)
)

// Prefix-byte flags of the packet header (bit 0 is clear: bit 0 set means
// a fragment).
const (
	prefixFragment  = 1 << 0
	prefixAckByte0  = 1 << 1 // ack bits 0-7 follow (they are not all ones)
	prefixAckDelta  = 1 << 5 // ack is one byte, sequence-ack, not 16 bits
	prefixKnownBits = 0x3F
)

// Header is reliable.io's packet header: the packet's own sequence and an
// acknowledgement of the peer's packets. Bit i of AckBits set means "I
// received packet Ack-i" (so bit 0 is Ack itself). This is what
// reliable.c does; the prose of its STANDARD.md describes bit i as
// Ack-1-i and is wrong.
//
// The encoding compresses the common case where the peer's packets all
// arrive and the ack trails the sequence by little:
//
//	 0   1   2   3   4   5   6   7
//	+---+---+---+---+---+---+---+---+
//	| 0 | b0| b1| b2| b3| d | 0 | 0 |  prefix byte
//	+---+---+---+---+---+---+---+---+
//	| sequence (16 bits, little-endian)                     |
//	| d=1: sequence-ack (8 bits)  | d=0: ack (16 bits, LE)  |
//	| ack bits 0-7   if b0        (omitted: all ones)       |
//	| ack bits 8-15  if b1                                  |
//	| ack bits 16-23 if b2                                  |
//	| ack bits 24-31 if b3                                  |
//
// AppendHeader writes the one canonical encoding of a Header, byte for
// byte as reliable_write_packet_header. ParseHeader accepts only that
// encoding: reliable.c never emits anything else, and insisting on it
// makes the header round-trip exactly.
type Header struct {
	Sequence Sequence // this packet's sequence
	Ack      Sequence // newest peer sequence received
	AckBits  uint32   // bit i: peer packet Ack-i was received
}

// Size returns the encoded size of h in bytes (MinHeaderSize to MaxHeaderSize).
func (h Header) Size() int {
	n := 3 + 2
	if h.Sequence-h.Ack <= 255 {
		n = 3 + 1
	}
	for i := range 4 {
		if (h.AckBits>>(8*i))&0xFF != 0xFF {
			n++
		}
	}
	return n
}

// AppendHeader appends the canonical encoding of h to b.
func AppendHeader(b []byte, h Header) []byte {
	prefix := byte(0)
	for i := range 4 {
		if (h.AckBits>>(8*i))&0xFF != 0xFF {
			prefix |= prefixAckByte0 << i
		}
	}
	delta := h.Sequence - h.Ack // modulo 65536, as reliable.c's sequence_difference
	if delta <= 255 {
		prefix |= prefixAckDelta
	}
	b = append(b, prefix)
	b = binary.LittleEndian.AppendUint16(b, uint16(h.Sequence))
	if delta <= 255 {
		b = append(b, byte(delta))
	} else {
		b = binary.LittleEndian.AppendUint16(b, uint16(h.Ack))
	}
	for i := range 4 {
		if prefix&(prefixAckByte0<<i) != 0 {
			b = append(b, byte(h.AckBits>>(8*i)))
		}
	}
	return b
}

// ParseHeader reads a packet header from the front of b and returns it
// with its size in bytes. The rest of b is the payload.
func ParseHeader(b []byte) (Header, int, error) {
	var h Header
	if len(b) < 3 {
		return h, 0, ErrTruncated
	}
	prefix := b[0]
	if prefix&prefixFragment != 0 {
		return h, 0, ErrPrefix
	}
	if prefix&^prefixKnownBits != 0 {
		return h, 0, ErrNonCanonical
	}
	h.Sequence = Sequence(binary.LittleEndian.Uint16(b[1:]))
	n := 3
	if prefix&prefixAckDelta != 0 {
		if len(b) < n+1 {
			return h, 0, ErrTruncated
		}
		h.Ack = h.Sequence - Sequence(b[n])
		n++
	} else {
		if len(b) < n+2 {
			return h, 0, ErrTruncated
		}
		h.Ack = Sequence(binary.LittleEndian.Uint16(b[n:]))
		if h.Sequence-h.Ack <= 255 {
			return h, 0, ErrNonCanonical
		}
		n += 2
	}
	h.AckBits = 0xFFFFFFFF
	for i := range 4 {
		if prefix&(prefixAckByte0<<i) == 0 {
			continue
		}
		if len(b) < n+1 {
			return h, 0, ErrTruncated
		}
		if b[n] == 0xFF {
			return h, 0, ErrNonCanonical
		}
		h.AckBits &^= 0xFF << (8 * i)
		h.AckBits |= uint32(b[n]) << (8 * i)
		n++
	}
	return h, n, nil
}
