package reliable

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Errors of an Endpoint. A dropped datagram's error says why; the same
// drop is also counted in Counters.
var (
	ErrPacketTooLarge = errors.New("reliable: packet too large")
	ErrStale          = errors.New("reliable: stale packet")
	ErrDuplicate      = errors.New("reliable: duplicate packet")
)

// Endpoint is one side of a reliable.io connection: it stamps outgoing
// payloads with a sequence and acks, splits large ones into fragments,
// reassembles incoming fragments, and turns the peer's ack bits into the
// list of own packets that arrived. It is a core without I/O: time is an
// argument, datagrams go in and out as byte slices. It is not safe for
// concurrent use.
type Endpoint struct {
	cfg        Config
	now        time.Time
	sequence   Sequence // next sequence to send
	sent       *sequenceBuffer[sentPacket]
	received   *sequenceBuffer[receivedPacket]
	reassembly *sequenceBuffer[reassembly]
	acks       []Sequence
	rtt        rttState
	stats      Stats
	counters   Counters
	tx         []byte   // every datagram of the last SendPacket, back to back
	out        [][]byte // SendPacket's result, slices of tx
}

type sentPacket struct {
	time  time.Time
	bytes int // payload + header + Config.PacketHeaderSize
	acked bool
}

type receivedPacket struct {
	time  time.Time
	bytes int // datagram + Config.PacketHeaderSize
}

// NewEndpoint returns an endpoint whose clock starts at now.
func NewEndpoint(cfg Config, now time.Time) (*Endpoint, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	txSize := MaxHeaderSize + min(cfg.MaxPacketSize, cfg.FragmentAbove)
	if cfg.MaxPacketSize > cfg.FragmentAbove {
		frag := cfg.fragmentsFor(cfg.MaxPacketSize)*(FragmentHeaderSize+cfg.FragmentSize) + MaxHeaderSize
		txSize = max(txSize, frag)
	}
	e := &Endpoint{
		cfg:        cfg,
		now:        now,
		sent:       newSequenceBuffer[sentPacket](cfg.SentPacketsBufferSize),
		received:   newSequenceBuffer[receivedPacket](cfg.ReceivedPacketsBufferSize),
		reassembly: newSequenceBuffer[reassembly](cfg.FragmentReassemblyBufferSize),
		acks:       make([]Sequence, 0, cfg.AckBufferSize),
		rtt:        newRTTState(cfg.RTTHistorySize),
		tx:         make([]byte, 0, txSize),
		out:        make([][]byte, 0, max(1, cfg.fragmentsFor(cfg.MaxPacketSize))),
	}
	return e, nil
}

// Config returns the endpoint's configuration.
func (e *Endpoint) Config() Config { return e.cfg }

// NextSequence returns the sequence the next SendPacket will use.
func (e *Endpoint) NextSequence() Sequence { return e.sequence }

// SendPacket stamps payload with the next sequence and the current acks
// and returns the datagrams to transmit: one, or one per fragment when
// the payload is larger than Config.FragmentAbove. The datagrams live in
// a buffer owned by the endpoint and are valid until the next SendPacket
// or Reset; the caller transmits them (or copies them) before that.
// The returned sequence is what Acks will report once the peer has the
// packet: record against it what the packet carried.
//
// A payload above Config.MaxPacketSize is refused with ErrPacketTooLarge
// and uses no sequence. An empty payload sends a header-only packet, which
// still carries acks.
func (e *Endpoint) SendPacket(now time.Time, payload []byte) (Sequence, [][]byte, error) {
	if len(payload) > e.cfg.MaxPacketSize {
		e.counters.PacketsTooLargeToSend++
		return 0, nil, fmt.Errorf("%w: %d bytes, maximum %d", ErrPacketTooLarge, len(payload), e.cfg.MaxPacketSize)
	}
	e.now = now
	seq := e.sequence
	e.sequence++
	ack, ackBits := e.received.ackBits()
	h := Header{Sequence: seq, Ack: ack, AckBits: ackBits}

	sp := e.sent.insert(seq) // never nil: seq is the newest
	*sp = sentPacket{time: now, bytes: e.cfg.PacketHeaderSize + len(payload)}

	e.tx, e.out = e.tx[:0], e.out[:0]
	if len(payload) <= e.cfg.FragmentAbove {
		e.tx = append(AppendHeader(e.tx, h), payload...)
		e.out = append(e.out, e.tx)
	} else {
		n := e.cfg.fragmentsFor(len(payload))
		for id := range n {
			chunk := payload[id*e.cfg.FragmentSize : min(len(payload), (id+1)*e.cfg.FragmentSize)]
			start := len(e.tx)
			e.tx = AppendFragment(e.tx, Fragment{Sequence: seq, ID: id, Count: n, Header: h, Payload: chunk})
			e.out = append(e.out, e.tx[start:len(e.tx):len(e.tx)])
		}
		e.counters.FragmentsSent += uint64(n)
	}
	e.counters.PacketsSent++
	return seq, e.out, nil
}

// ReceivePacket processes one datagram from the peer. When it completes a
// packet (a regular packet, or the last missing fragment of one) it
// returns the packet's sequence and payload; the payload aliases
// datagram or a reassembly buffer and is valid until the next
// ReceivePacket or Reset. When the datagram is a fragment that leaves its
// packet incomplete, payload is nil and err is nil. A header-only packet
// delivers an empty, non-nil payload.
//
// Dropped datagrams return an error: one wrapping ErrInvalid when
// malformed, ErrStale, ErrDuplicate or ErrPacketTooLarge otherwise. Each
// drop is counted. The acks a packet carries are processed only once the
// packet is accepted, so Acks never reports a sequence on the strength
// of a malformed or duplicate datagram.
func (e *Endpoint) ReceivePacket(now time.Time, datagram []byte) (Sequence, []byte, error) {
	e.now = now
	if len(datagram) == 0 {
		e.counters.PacketsInvalid++
		return 0, nil, ErrTruncated
	}
	if len(datagram) > e.cfg.MaxPacketSize+MaxHeaderSize+FragmentHeaderSize {
		e.counters.PacketsTooLargeToReceive++
		return 0, nil, fmt.Errorf("%w: %d-byte datagram", ErrPacketTooLarge, len(datagram))
	}
	if datagram[0]&prefixFragment != 0 {
		return e.receiveFragment(datagram)
	}
	e.counters.PacketsReceived++
	h, n, err := ParseHeader(datagram)
	if err != nil {
		e.counters.PacketsInvalid++
		return 0, nil, err
	}
	return e.receivePacket(h, datagram[n:], len(datagram))
}

// receivePacket accepts a parsed packet: it drops stale and duplicate
// sequences, records the sequence for the ack bits of the packets we
// send, and collects the acks the packet carries. wireBytes is the
// packet's size with its header, for the bandwidth figures.
func (e *Endpoint) receivePacket(h Header, payload []byte, wireBytes int) (Sequence, []byte, error) {
	if len(payload) > e.cfg.MaxPacketSize {
		e.counters.PacketsTooLargeToReceive++
		return 0, nil, fmt.Errorf("%w: %d-byte payload, maximum %d", ErrPacketTooLarge, len(payload), e.cfg.MaxPacketSize)
	}
	if e.received.stale(h.Sequence) {
		e.counters.PacketsStale++
		return 0, nil, fmt.Errorf("%w: sequence %d", ErrStale, h.Sequence)
	}
	if e.received.exists(h.Sequence) {
		e.counters.PacketsDuplicate++
		return 0, nil, fmt.Errorf("%w: sequence %d", ErrDuplicate, h.Sequence)
	}
	rp := e.received.insert(h.Sequence)
	*rp = receivedPacket{time: e.now, bytes: e.cfg.PacketHeaderSize + wireBytes}
	// A packet that arrived whole needs none of its fragments any more.
	e.reassembly.advance(h.Sequence)

	for i := range 32 {
		if h.AckBits&(1<<i) == 0 {
			continue
		}
		seq := h.Ack - Sequence(i)
		sp := e.sent.find(seq)
		if sp == nil || sp.acked {
			continue
		}
		if len(e.acks) == e.cfg.AckBufferSize {
			// Left unacked, so a later packet's ack bits can still report it.
			e.counters.AcksOverflowed++
			continue
		}
		e.acks = append(e.acks, seq)
		e.counters.PacketsAcked++
		sp.acked = true
		e.rtt.sample(seq, float64(e.now.Sub(sp.time))/float64(time.Millisecond), e.cfg.RTTSmoothingFactor)
	}
	return h.Sequence, payload, nil
}

// Acks returns the own sequences the peer acknowledged since the last
// ClearAcks, each once, in the order their acks arrived. The slice is
// valid until the next ReceivePacket, ClearAcks or Reset. At most
// Config.AckBufferSize are held: call ClearAcks after reading them.
func (e *Endpoint) Acks() []Sequence { return e.acks }

// ClearAcks empties the list returned by Acks.
func (e *Endpoint) ClearAcks() { e.acks = e.acks[:0] }

// Counters returns the endpoint's counters.
func (e *Endpoint) Counters() Counters { return e.counters }

// Reset returns the endpoint to its state after NewEndpoint, keeping its
// buffers: the next packet is sequence 0 again and nothing is remembered.
func (e *Endpoint) Reset(now time.Time) {
	e.now = now
	e.sequence = 0
	e.acks = e.acks[:0]
	e.counters = Counters{}
	e.stats = Stats{}
	e.rtt.reset()
	e.sent.reset()
	e.received.reset()
	e.reassembly.reset()
}

// emaStep moves avg toward sample by factor, snapping to the sample
// when they are already within 1e-5 as reliable.c does.
func emaStep(avg, sample, factor float64) float64 {
	if math.Abs(avg-sample) <= 0.00001 {
		return sample
	}
	return avg + float64((sample-avg)*factor)
}
