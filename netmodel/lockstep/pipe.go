package lockstep

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/transport/tcpsim"
)

// errBacklog: a stream pipe could not take a message because the peer
// has not acknowledged enough of the stream.
var errBacklog = errors.New("lockstep: stream backlog full")

// A pipe carries the messages of one peer: one message per datagram over
// a reliable.Endpoint (Datagrams), or framed in a byte stream over the TCP
// model (Stream). The session logic above it is the same.
type pipe interface {
	// send hands one message to the peer and transmits what is due through
	// out. The token names the message in acks. errBacklog means the
	// message was not taken: the stream's buffer is full.
	send(now time.Time, msg []byte, out func([]byte)) (token uint16, err error)
	// ordered reports whether every message sent is delivered, in order
	// (a stream): then each input is sent once, not until acknowledged.
	ordered() bool
	// receive takes one datagram and hands every message it completes to
	// deliver, whose error it returns.
	receive(now time.Time, datagram []byte, deliver func(msg []byte) error) error
	// update advances the pipe's clock and statistics.
	update(now time.Time)
	// acks calls f with the token of every message known delivered since
	// the last call.
	acks(f func(token uint16))
	// rtt returns the smoothed and the smallest recent round trip, 0
	// before a sample; loss the share of datagrams lost (0–1).
	rtt() (smoothed, least time.Duration)
	loss() float64
}

func newPipe(cfg *Config, now time.Time) (pipe, error) {
	if cfg.Transport == Stream {
		c, err := tcpsim.New(cfg.Stream, now)
		if err != nil {
			return nil, err
		}
		return &streamPipe{conn: c}, nil
	}
	e, err := reliable.NewEndpoint(cfg.Reliable, now)
	if err != nil {
		return nil, err
	}
	return &datagramPipe{ep: e}, nil
}

// datagramPipe sends each message as one packet of a reliable.Endpoint,
// whose packet acks tell which messages arrived and whose statistics give
// the round trip and the loss.
type datagramPipe struct{ ep *reliable.Endpoint }

func (p *datagramPipe) send(now time.Time, msg []byte, out func([]byte)) (uint16, error) {
	seq, dgs, err := p.ep.SendPacket(now, msg)
	if err != nil {
		return 0, err
	}
	for _, d := range dgs {
		out(d)
	}
	return uint16(seq), nil
}

func (p *datagramPipe) ordered() bool { return false }

func (p *datagramPipe) receive(now time.Time, d []byte, deliver func([]byte) error) error {
	_, payload, err := p.ep.ReceivePacket(now, d)
	if err != nil || payload == nil {
		return err
	}
	return deliver(payload)
}

func (p *datagramPipe) update(now time.Time) { p.ep.Update(now) }

func (p *datagramPipe) acks(f func(uint16)) {
	for _, s := range p.ep.Acks() {
		f(uint16(s))
	}
	p.ep.ClearAcks()
}

func (p *datagramPipe) rtt() (time.Duration, time.Duration) {
	s := p.ep.Stats()
	return s.RTT, s.RTTMin
}

func (p *datagramPipe) loss() float64 { return p.ep.Stats().PacketLoss / 100 }

// streamPipe frames each message with a 2-byte length in the byte stream
// of a tcpsim.Conn. Every message written is delivered (or the peer times
// out), so it is acknowledged as soon as it is written.
type streamPipe struct {
	conn    *tcpsim.Conn
	token   uint16
	acked   []uint16
	partial []byte // bytes of an incomplete message read from the stream
	frame   []byte
	broken  bool // a bad frame came: nothing after it can be framed again
}

func (p *streamPipe) send(now time.Time, msg []byte, out func([]byte)) (uint16, error) {
	p.frame = binary.LittleEndian.AppendUint16(p.frame[:0], uint16(len(msg)))
	p.frame = append(p.frame, msg...)
	if err := p.conn.Write(p.frame); err != nil {
		p.conn.Flush(now, out)
		return 0, fmt.Errorf("%w: %w", errBacklog, err)
	}
	p.conn.Flush(now, out)
	p.token++
	p.acked = append(p.acked[:0], p.token)
	return p.token, nil
}

func (p *streamPipe) ordered() bool { return true }

func (p *streamPipe) receive(now time.Time, d []byte, deliver func([]byte) error) error {
	if err := p.conn.Receive(now, d); err != nil {
		return err
	}
	if p.broken {
		// Read the bytes off so that the buffer does not fill; the peer
		// times out, since nothing of it is delivered.
		p.partial = p.conn.ReadAppend(p.partial[:0])[:0]
		return fmt.Errorf("%w: the stream broke at an earlier frame", ErrMalformed)
	}
	p.partial = p.conn.ReadAppend(p.partial)
	off := 0
	var err error
	for len(p.partial)-off >= 2 {
		n := int(binary.LittleEndian.Uint16(p.partial[off:]))
		if n > netmodel.MaxDatagram {
			// The stream is ordered: past a bad frame nothing can be
			// found again, and the peer will time out.
			p.partial, p.broken = p.partial[:0], true
			return fmt.Errorf("%w: %d-byte frame in the stream", ErrMalformed, n)
		}
		if len(p.partial)-off < 2+n {
			break
		}
		if e := deliver(p.partial[off+2 : off+2+n]); e != nil && err == nil {
			err = e
		}
		off += 2 + n
	}
	// Keep the incomplete frame at the front: the buffer never holds more
	// than one frame and what one datagram delivers.
	p.partial = p.partial[:copy(p.partial, p.partial[off:])]
	return err
}

func (p *streamPipe) update(now time.Time) { p.conn.Update(now) }

func (p *streamPipe) acks(f func(uint16)) {
	for _, t := range p.acked {
		f(t)
	}
	p.acked = p.acked[:0]
}

func (p *streamPipe) rtt() (time.Duration, time.Duration) {
	s := p.conn.Stats()
	return s.SRTT, s.MinRTT
}

func (p *streamPipe) loss() float64 {
	s := p.conn.Stats()
	if s.SegmentsSent == 0 {
		return 0
	}
	return float64(s.Retransmits) / float64(s.SegmentsSent)
}
