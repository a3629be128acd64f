package reliable

import (
	"encoding/binary"
	"fmt"
)

// Errors of the fragment parser, beyond the packet header's.
var (
	ErrFragmentCount = fmt.Errorf("%w: fragment count above the limit", ErrInvalid)
	ErrFragmentID    = fmt.Errorf("%w: fragment id not below the fragment count", ErrInvalid)
	ErrFragmentSize  = fmt.Errorf("%w: fragment size does not match", ErrInvalid)
	ErrFragmentSeq   = fmt.Errorf("%w: fragment and packet header sequences differ", ErrInvalid)
)

// MaxFragments is the most fragments one packet can have: the count is
// stored minus one in a byte.
const MaxFragments = 256

// MaxFragmentSize is the largest fragment payload, in bytes. With the
// 5-byte fragment header and a 9-byte packet header a fragment datagram
// stays below 1200 bytes, safe under every path MTU a game meets.
const MaxFragmentSize = 1024

// Fragment is one piece of a packet larger than Config.FragmentAbove.
//
//	+--------+----------------+--------+-----------+
//	| 0x01   | sequence (LE16)| id (8) | count-1(8)|   fragment header, 5 bytes
//	+--------+----------------+--------+-----------+
//	| fragment 0 only: the packet Header (4-9 bytes)|
//	+-----------------------------------------------+
//	| payload bytes [id*size, id*size+len)          |
//	+-----------------------------------------------+
//
// Every fragment but the last carries exactly the fragment size of
// payload; the last carries the rest. The packet header travels only in
// fragment 0, so the acks of a fragmented packet count once it is whole.
type Fragment struct {
	Sequence Sequence
	ID       int    // 0 <= ID < Count
	Count    int    // 1..MaxFragments
	Header   Header // the packet header; fragment 0 only
	Payload  []byte // aliases the parsed datagram
}

// AppendFragment appends the datagram of f to b. For fragment 0 the
// packet header f.Header is written after the fragment header.
func AppendFragment(b []byte, f Fragment) []byte {
	b = append(b, prefixFragment)
	b = binary.LittleEndian.AppendUint16(b, uint16(f.Sequence))
	b = append(b, byte(f.ID), byte(f.Count-1))
	if f.ID == 0 {
		b = AppendHeader(b, f.Header)
	}
	return append(b, f.Payload...)
}

// ParseFragment parses a fragment datagram, with the limits of the
// receiver: at most maxFragments fragments of fragmentSize bytes each.
// Like reliable_read_fragment_header it checks that the id is below the
// count, that fragment 0's packet header is canonical and has the
// fragment's sequence, and that every fragment but the last is exactly
// fragmentSize bytes; it also refuses an empty last fragment, which no
// sender produces.
func ParseFragment(b []byte, maxFragments, fragmentSize int) (Fragment, error) {
	var f Fragment
	if len(b) < FragmentHeaderSize {
		return f, ErrTruncated
	}
	if b[0] != prefixFragment {
		return f, ErrPrefix
	}
	f.Sequence = Sequence(binary.LittleEndian.Uint16(b[1:]))
	f.ID = int(b[3])
	f.Count = int(b[4]) + 1
	if f.Count > maxFragments {
		return f, ErrFragmentCount
	}
	if f.ID >= f.Count {
		return f, ErrFragmentID
	}
	rest := b[FragmentHeaderSize:]
	if f.ID == 0 {
		h, n, err := ParseHeader(rest)
		if err != nil {
			return f, err
		}
		if h.Sequence != f.Sequence {
			return f, ErrFragmentSeq
		}
		f.Header = h
		rest = rest[n:]
	}
	last := f.ID == f.Count-1
	if len(rest) > fragmentSize || (!last && len(rest) != fragmentSize) || len(rest) == 0 {
		return f, ErrFragmentSize
	}
	f.Payload = rest
	return f, nil
}
