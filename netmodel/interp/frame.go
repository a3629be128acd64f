package interp

import (
	"errors"

	"github.com/netphys/netphys/wire"
)

// Number counts the snapshots of a match: snapshot n is the state after
// tick n·Interval. Only its low 16 bits travel (Seq); each receiver
// restores the rest from the newest number it has seen.
type Number int64

// Seq is a snapshot's 16-bit sequence on the wire: Number mod 2¹⁶.
type Seq uint16

// Ring is how many snapshots each side keeps to code against, and one more
// than the largest age a frame can name: a baseline older than Ring-1
// snapshots is not used, and the snapshot goes out whole.
const Ring = 64

// HeaderBytes frames every snapshot packet: its sequence, the ages, in
// snapshots, of the baselines it was coded against (0: none), and whether
// a ResetSection follows. The body, the snapshot coded by the codec,
// follows the header (and the section).
//
//	+--------------------+--------------+--------------+------------+----------+
//	| sequence (16 bits) | base age (6) | prev age (6) | resets (1) | zero (3) |
//	+--------------------+--------------+--------------+------------+----------+
//
// A packet without resets is the same bytes as before the resets bit.
const HeaderBytes = 4

// Errors of the snapshot framing and decoding, each drop counted.
var (
	// ErrNoBaseline: a packet names a baseline the receiver does not hold.
	ErrNoBaseline = errors.New("interp: baseline not held by the receiver")
	// ErrStale: the packet's ring slot already holds a newer snapshot.
	ErrStale = errors.New("interp: snapshot older than the ring")
	// ErrFarAhead: the sequence is further ahead of the expected one than
	// any honest server sends.
	ErrFarAhead = errors.New("interp: snapshot sequence far ahead")
	// ErrTooLarge: a snapshot packet above Config.MaxPacketBytes.
	ErrTooLarge = errors.New("interp: snapshot packet too large")
	// ErrHeader: a header with non-zero padding, a Prev without a Base or
	// one Ring or more snapshots back, or a reset section out of range.
	ErrHeader = errors.New("interp: malformed snapshot header")
)

// Header is the framing of one snapshot packet.
type Header struct {
	Seq              Seq
	BaseAge, PrevAge int  // in snapshots, 0 to Ring-1 and together below Ring; 0: no such baseline
	Resets           bool // a ResetSection follows
}

// Serialize writes, reads or measures the header.
func (h *Header) Serialize(s wire.Stream) error {
	if err := wire.SerializeBits(s, &h.Seq, 16); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &h.BaseAge, 0, Ring-1); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &h.PrevAge, 0, Ring-1); err != nil {
		return err
	}
	if err := wire.SerializeBool(s, &h.Resets); err != nil {
		return err
	}
	var pad uint8
	if err := wire.SerializeBits(s, &pad, 3); err != nil {
		return err
	}
	// A Prev Ring snapshots back shares the new snapshot's ring slot: the
	// decoder would write over its own reference.
	if pad != 0 || (h.BaseAge == 0 && h.PrevAge != 0) || h.BaseAge+h.PrevAge >= Ring {
		return ErrHeader
	}
	return nil
}

// unwrap returns the number whose low 16 bits are seq nearest to near.
func unwrap(seq Seq, near Number) Number {
	const span = 1 << 16
	d := (Number(seq) - near) & (span - 1) // in [0, span)
	if d >= span/2 {
		d -= span
	}
	return near + d
}

// ringIndex maps a number to its slot; negative numbers too.
func ringIndex(n Number) int { return int(uint64(n) % Ring) }
