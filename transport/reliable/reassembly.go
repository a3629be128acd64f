package reliable

import (
	"fmt"
)

// Errors of fragment reassembly.
var (
	ErrFragmentMismatch  = fmt.Errorf("%w: fragment count differs from the packet's other fragments", ErrInvalid)
	ErrDuplicateFragment = fmt.Errorf("%w: fragment", ErrDuplicate)
)

// reassembly collects the fragments of one packet. Its buffer is
// allocated the first time the slot is used, at the size the config
// allows (MaxFragments*FragmentSize), never at a size read from a
// datagram, and is reused by every later packet in the slot.
type reassembly struct {
	count    int       // fragments in the packet
	received int       // fragments stored so far
	have     [4]uint64 // bit id: fragment id stored
	header   Header    // from fragment 0
	size     int       // payload bytes, known once the last fragment is in
	buf      []byte
}

// receiveFragment stores a fragment and, when it was the last one
// missing, hands the whole packet to receivePacket.
func (e *Endpoint) receiveFragment(datagram []byte) (Sequence, []byte, error) {
	f, err := ParseFragment(datagram, e.cfg.MaxFragments, e.cfg.FragmentSize)
	if err != nil {
		e.counters.FragmentsInvalid++
		return 0, nil, err
	}
	if e.received.exists(f.Sequence) {
		e.counters.FragmentsDuplicate++
		return 0, nil, fmt.Errorf("%w: fragment %d of received packet %d", ErrDuplicate, f.ID, f.Sequence)
	}
	r := e.reassembly.find(f.Sequence)
	if r == nil {
		r = e.reassembly.insert(f.Sequence)
		if r == nil {
			e.counters.FragmentsStale++
			return 0, nil, fmt.Errorf("%w: fragment %d of packet %d", ErrStale, f.ID, f.Sequence)
		}
		// The ack of our next packets moves to the newest sequence seen,
		// whole or not, as in reliable.c.
		e.received.advance(f.Sequence)
		if r.buf == nil {
			r.buf = make([]byte, e.cfg.MaxFragments*e.cfg.FragmentSize)
		}
		*r = reassembly{count: f.Count, buf: r.buf}
	}
	if f.Count != r.count {
		e.counters.FragmentsInvalid++
		return 0, nil, fmt.Errorf("%w: %d, packet %d has %d", ErrFragmentMismatch, f.Count, f.Sequence, r.count)
	}
	word, bit := f.ID/64, uint64(1)<<(f.ID%64)
	if r.have[word]&bit != 0 {
		e.counters.FragmentsDuplicate++
		return 0, nil, fmt.Errorf("%w %d of packet %d", ErrDuplicateFragment, f.ID, f.Sequence)
	}
	r.have[word] |= bit
	r.received++
	copy(r.buf[f.ID*e.cfg.FragmentSize:], f.Payload)
	if f.ID == 0 {
		r.header = f.Header
	}
	if f.ID == r.count-1 {
		r.size = (r.count-1)*e.cfg.FragmentSize + len(f.Payload)
	}
	e.counters.FragmentsReceived++
	if r.received < r.count {
		return 0, nil, nil
	}
	e.reassembly.remove(f.Sequence)
	e.counters.PacketsReceived++
	// The slot's buffer stays valid until a later ReceivePacket reuses it.
	return e.receivePacket(r.header, r.buf[:r.size], r.header.Size()+r.size)
}
