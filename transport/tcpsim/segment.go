package tcpsim

import (
	"errors"
	"fmt"

	"github.com/netphys/netphys/wire"
)

// Wire sizes, in bytes.
const (
	// HeaderSize is a segment's header: sequence and acknowledgement.
	HeaderSize = 8
	// MaxSegment is the largest datagram: a netcode payload.
	MaxSegment = 1200
)

// ErrSegment reports a datagram that is not a valid segment.
var ErrSegment = errors.New("tcpsim: invalid segment")

// Header is a segment's header.
type Header struct {
	Seq uint32 // stream offset of the first payload byte
	Ack uint32 // next stream offset expected from the peer
}

// Serialize codes the header.
func (h *Header) Serialize(s wire.Stream) error {
	if err := wire.SerializeBits(s, &h.Seq, 32); err != nil {
		return err
	}
	return wire.SerializeBits(s, &h.Ack, 32)
}

// ParseSegment splits a datagram into its header and payload, which
// aliases d.
func ParseSegment(d []byte, mss int) (Header, []byte, error) {
	var h Header
	if len(d) > HeaderSize+mss {
		return h, nil, fmt.Errorf("%w: %d bytes, at most %d", ErrSegment, len(d), HeaderSize+mss)
	}
	if err := h.Serialize(wire.NewReader(d)); err != nil {
		return h, nil, fmt.Errorf("%w: %w", ErrSegment, err)
	}
	return h, d[HeaderSize:], nil
}

// AppendSegment appends a segment to dst.
func AppendSegment(dst []byte, h Header, payload []byte) []byte {
	var b [HeaderSize]byte
	_ = h.Serialize(wire.NewWriter(b[:])) // 64 bits always fit
	return append(append(dst, b[:]...), payload...)
}

// after reports whether sequence a is after b, modulo 2³².
func after(a, b uint32) bool { return int32(a-b) > 0 }
