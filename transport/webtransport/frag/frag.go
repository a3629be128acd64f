// Package frag splits a netcode packet too large for one WebTransport
// datagram into two or three fragments, and puts them back together.
//
// A browser's WebTransport datagram holds less than netcode's largest
// packet (netcode.MaxPacketBytes, 1225 bytes): headless chromium reports
// datagrams.maxDatagramSize = 1215 on loopback, and less on paths with a
// smaller MTU. A packet that fits in MaxDatagram bytes travels whole, as
// before; a larger one travels as fragments, each a datagram:
//
//	0xff | id (2 bytes, little endian) | index<<4 | count | bytes of the packet
//
// 0xff is never the first byte of a netcode packet (its prefix byte is
// nseq<<4 | type with type at most 6), so a whole packet needs no header.
// A fragment lost is the packet lost, as on UDP: the receiver holds at
// most Pending incomplete packets, each for at most Timeout, in buffers of
// a fixed size; a fragment never sizes an allocation, and a packet put
// back together is never longer than netcode.MaxPacketBytes. What the
// packet says is netcode's to judge, as for a whole one.
package frag

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/netphys/netphys/transport/netcode"
)

const (
	// Marker is a fragment's first byte.
	Marker = 0xff
	// HeaderBytes is the length of a fragment's header.
	HeaderBytes = 4
	// MaxFragments is the most fragments a packet travels in.
	MaxFragments = 3
	// MaxDatagram is the largest datagram sent, whole packet or fragment:
	// below every browser's datagram on a path of the IPv6 minimum MTU
	// (1280 bytes, less QUIC's and WebTransport's overhead), so that only
	// the models' largest packets (state sync's, interp's snapshots) are
	// split, in two.
	MaxDatagram = 1150
	// MinDatagram is the smallest datagram limit a packet of
	// netcode.MaxPacketBytes fits in MaxFragments fragments of.
	MinDatagram = HeaderBytes + (netcode.MaxPacketBytes+MaxFragments-1)/MaxFragments
	// Pending is how many incomplete packets a Reassembler holds; a
	// fragment of another packet pushes out the oldest.
	Pending = 2
	// Timeout is how long a Reassembler waits for a packet's fragments:
	// a game packet later than this is of no use.
	Timeout = 500 * time.Millisecond
	// maxChunk is the most bytes of a packet one fragment carries.
	maxChunk = MaxDatagram - HeaderBytes
)

// Header is a fragment's header.
type Header struct {
	ID           uint16 // the packet's, the same in each of its fragments
	Index, Count int    // this fragment's place, 0 to Count-1, and how many there are
}

// IsFragment reports whether datagram b is a fragment (or claims to be
// one): every other datagram is a whole packet.
func IsFragment(b []byte) bool { return len(b) > 0 && b[0] == Marker }

// Parse decodes a fragment: its header, and the bytes of the packet it
// carries, a part of b.
func Parse(b []byte) (Header, []byte, error) {
	switch {
	case !IsFragment(b):
		return Header{}, nil, errors.New("frag: not a fragment")
	case len(b) <= HeaderBytes:
		return Header{}, nil, fmt.Errorf("frag: a fragment of %d bytes carries nothing", len(b))
	case len(b) > MaxDatagram:
		return Header{}, nil, fmt.Errorf("frag: a fragment of %d bytes, over %d", len(b), MaxDatagram)
	}
	h := Header{ID: binary.LittleEndian.Uint16(b[1:3]), Index: int(b[3] >> 4), Count: int(b[3] & 0x0f)}
	if h.Count < 2 || h.Count > MaxFragments || h.Index >= h.Count {
		return Header{}, nil, fmt.Errorf("frag: fragment %d of %d (want 2 to %d fragments)", h.Index, h.Count, MaxFragments)
	}
	return h, b[HeaderBytes:], nil
}

// Split sends p with send: whole if it fits in limit bytes, else in two
// or three fragments of packet id, of nearly equal length. It returns how
// many datagrams it sent. send must not keep its argument. limit is
// between MinDatagram and MaxDatagram. After an error of send, the
// count is of the datagrams sent before it.
func Split(p []byte, limit int, id uint16, send func([]byte) error) (int, error) {
	switch {
	case limit < MinDatagram || limit > MaxDatagram:
		return 0, fmt.Errorf("frag: a datagram limit of %d bytes: want %d to %d", limit, MinDatagram, MaxDatagram)
	case len(p) == 0 || len(p) > netcode.MaxPacketBytes:
		return 0, fmt.Errorf("frag: a packet of %d bytes: want 1 to %d", len(p), netcode.MaxPacketBytes)
	case IsFragment(p):
		return 0, errors.New("frag: a packet that starts with the fragment marker, which no netcode packet does")
	case len(p) <= limit:
		if err := send(p); err != nil {
			return 0, err
		}
		return 1, nil
	}
	chunk := limit - HeaderBytes
	n := (len(p) + chunk - 1) / chunk
	chunk = (len(p) + n - 1) / n // the same length but the last
	var buf [MaxDatagram]byte
	buf[0] = Marker
	binary.LittleEndian.PutUint16(buf[1:3], id)
	for i := range n {
		part := p[i*chunk : min((i+1)*chunk, len(p))]
		buf[3] = byte(i<<4 | n)
		if err := send(buf[:HeaderBytes+copy(buf[HeaderBytes:], part)]); err != nil {
			return i, err
		}
	}
	return n, nil
}

// Stats counts fragments both ways. A Reassembler counts the received
// side; a sender counts PacketsSplit and FragmentsSent.
type Stats struct {
	PacketsSplit       uint64 // packets sent in fragments
	FragmentsSent      uint64 // fragments sent
	FragmentsIn        uint64 // fragments received
	PacketsReassembled uint64 // packets put back together
	FragmentsDropped   uint64 // malformed, a duplicate, or more bytes than a packet holds
	PacketsLost        uint64 // incomplete packets given up: timed out, or pushed out by newer ones
}

// Add adds o's counts to s.
func (s *Stats) Add(o Stats) {
	s.PacketsSplit += o.PacketsSplit
	s.FragmentsSent += o.FragmentsSent
	s.FragmentsIn += o.FragmentsIn
	s.PacketsReassembled += o.PacketsReassembled
	s.FragmentsDropped += o.FragmentsDropped
	s.PacketsLost += o.PacketsLost
}

// slot is one incomplete packet.
type slot struct {
	used  bool
	id    uint16
	count int
	have  int // fragments held
	size  int // bytes held
	start time.Time
	lens  [MaxFragments]int // 0: not arrived (a fragment carries at least a byte)
	parts [MaxFragments][maxChunk]byte
}

// Reassembler puts packets back together from the fragments of one peer.
// It is not safe for concurrent use. Its zero value is ready.
type Reassembler struct {
	slots [Pending]slot
	out   [netcode.MaxPacketBytes]byte
	Stats Stats // the received side's counts
}

// Add takes fragment b (IsFragment), received at now. When b completes
// its packet, Add returns the packet, valid until the next call;
// otherwise nil.
func (r *Reassembler) Add(b []byte, now time.Time) []byte {
	r.Stats.FragmentsIn++
	var oldest *slot
	var s *slot
	h, part, err := Parse(b)
	for i := range r.slots {
		x := &r.slots[i]
		if x.used && now.Sub(x.start) > Timeout {
			r.Stats.PacketsLost++
			x.used = false
		}
		switch {
		case err != nil:
		case x.used && x.id == h.ID:
			s = x
		case oldest == nil || !x.used || (oldest.used && x.start.Before(oldest.start)):
			oldest = x
		}
	}
	switch {
	case err != nil:
		r.Stats.FragmentsDropped++
		return nil
	case s == nil:
		if oldest.used {
			r.Stats.PacketsLost++
		}
		s = oldest
		*s = slot{used: true, id: h.ID, count: h.Count, start: now}
	case s.count != h.Count || s.lens[h.Index] != 0:
		r.Stats.FragmentsDropped++
		return nil
	}
	if s.size+len(part) > netcode.MaxPacketBytes {
		r.Stats.FragmentsDropped++
		return nil
	}
	s.lens[h.Index] = copy(s.parts[h.Index][:], part)
	s.size += len(part)
	if s.have++; s.have < s.count {
		return nil
	}
	n := 0
	for i := range s.count {
		n += copy(r.out[n:], s.parts[i][:s.lens[i]])
	}
	s.used = false
	r.Stats.PacketsReassembled++
	return r.out[:n]
}
