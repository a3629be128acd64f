package tcpsim

import (
	"errors"
	"fmt"
	"time"
)

// ErrBufferFull is returned by Write when the send buffer cannot take the
// bytes: the peer has not acknowledged enough.
var ErrBufferFull = errors.New("tcpsim: send buffer full")

// Stats are a connection's figures.
type Stats struct {
	SRTT, RTTVar, RTO time.Duration // RFC 6298's estimates; RTO with backoff
	MinRTT            time.Duration // smallest sample, 0 before one
	Cwnd              float64       // congestion window, segments
	SegmentsSent      uint64        // data and pure acks
	SegmentsReceived  uint64
	Retransmits       uint64 // data segments sent again
	FastRetransmits   uint64 // entries into fast recovery
	Timeouts          uint64 // retransmission timer expiries
	Invalid           uint64 // datagrams dropped as malformed or acking unsent data
	BytesDelivered    uint64 // stream bytes handed to the reader
}

// Conn is one end of a modelled TCP connection, already established.
type Conn struct {
	cfg Config

	// Send side: snd holds the stream from una on.
	snd      []byte
	una      uint32   // oldest unacknowledged offset
	nxt      uint32   // next offset to send
	max      uint32   // highest offset sent
	inflight []uint32 // end offsets of the segments sent and not acknowledged
	cwnd     float64
	ssthresh float64
	dupAcks  int
	recovery bool
	recover  uint32 // NewReno: fast recovery ends when this is acknowledged
	resend   bool   // retransmit the segment at una at the next Flush

	srtt, rttvar, rto time.Duration
	timing            bool
	timedEnd          uint32
	timedAt           time.Time
	deadline          time.Time // retransmission timer; zero when stopped

	// Receive side.
	rcvNxt   uint32
	ooo      []oooSegment // out of order, sorted by seq
	oooBytes int
	readable []byte // in order, not yet read
	ackOwed  bool   // in-order data arrived: acknowledge it
	dupOwed  int    // out-of-order or duplicate segments: one ack each
	out      []byte // the segment being built
	stats    Stats
}

type oooSegment struct {
	seq  uint32
	data []byte
}

// New returns an established connection; now starts its clock.
func New(cfg Config, now time.Time) (*Conn, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Conn{
		cfg: cfg, cwnd: float64(cfg.InitialWindow), ssthresh: 1 << 30, rto: cfg.InitialRTO,
		out: make([]byte, 0, HeaderSize+cfg.MSS),
	}, nil
}

// Write queues p to be sent. It takes all of p or, when the send buffer
// cannot hold it, none and returns ErrBufferFull.
func (c *Conn) Write(p []byte) error {
	if len(c.snd)+len(p) > c.cfg.SendBuffer {
		return fmt.Errorf("%w: %d bytes queued, %d more", ErrBufferFull, len(c.snd), len(p))
	}
	c.snd = append(c.snd, p...)
	return nil
}

// Buffered returns the bytes written and not yet acknowledged.
func (c *Conn) Buffered() int { return len(c.snd) }

// ReadAppend appends the bytes delivered in order since the last call to
// dst and returns it.
func (c *Conn) ReadAppend(dst []byte) []byte {
	dst = append(dst, c.readable...)
	c.stats.BytesDelivered += uint64(len(c.readable))
	c.readable = c.readable[:0]
	return dst
}

// Stats returns the connection's figures.
func (c *Conn) Stats() Stats {
	s := c.stats
	s.SRTT, s.RTTVar, s.RTO, s.Cwnd = c.srtt, c.rttvar, c.rto, c.cwnd
	return s
}

// Update expires the retransmission timer: RFC 6298 §5.5–5.7 and Reno's
// loss window. The segments go out at the next Flush.
func (c *Conn) Update(now time.Time) {
	if c.deadline.IsZero() || now.Before(c.deadline) || c.una == c.max {
		return
	}
	c.stats.Timeouts++
	c.ssthresh = max(float64(len(c.inflight))/2, 2)
	c.cwnd = 1
	c.rto = min(2*c.rto, c.cfg.MaxRTO)
	c.nxt, c.inflight = c.una, c.inflight[:0] // go back N
	c.recovery, c.dupAcks, c.timing, c.resend = false, 0, false, false
	c.deadline = time.Time{}
}

// Flush sends through out what is due now: a fast retransmission, new
// (or, after a timeout, repeated) data as the congestion window allows,
// and the acknowledgements owed. The segments are valid only during out.
func (c *Conn) Flush(now time.Time, out func([]byte)) {
	sentData := false
	if c.resend && c.una != c.max {
		end := c.una + uint32(min(c.cfg.MSS, len(c.snd)))
		c.sendData(now, c.una, end, out)
		sentData = true
	}
	c.resend = false
	for float64(len(c.inflight)) < c.cwnd {
		end := c.una + uint32(len(c.snd))
		if !after(end, c.nxt) {
			break
		}
		n := min(uint32(c.cfg.MSS), end-c.nxt)
		c.sendData(now, c.nxt, c.nxt+n, out)
		c.inflight = append(c.inflight, c.nxt+n)
		c.nxt += n
		if after(c.nxt, c.max) {
			c.max = c.nxt
		}
		sentData = true
	}
	acks := c.dupOwed
	if c.ackOwed && !sentData {
		acks++
	}
	for range min(acks, 8) {
		c.emit(Header{Seq: c.nxt, Ack: c.rcvNxt}, nil, out)
	}
	c.ackOwed, c.dupOwed = false, 0
}

// sendData sends the stream bytes [from, to) in one segment.
func (c *Conn) sendData(now time.Time, from, to uint32, out func([]byte)) {
	if after(to, c.max) && !c.timing {
		c.timing, c.timedEnd, c.timedAt = true, to, now
	}
	if !after(to, c.max) || from != c.nxt {
		c.stats.Retransmits++
	}
	if c.deadline.IsZero() {
		c.deadline = now.Add(c.rto)
	}
	c.emit(Header{Seq: from, Ack: c.rcvNxt}, c.snd[from-c.una:to-c.una], out)
}

func (c *Conn) emit(h Header, payload []byte, out func([]byte)) {
	c.out = AppendSegment(c.out[:0], h, payload)
	c.stats.SegmentsSent++
	out(c.out)
}

// Receive takes one segment from the peer: its acknowledgement, then its
// data.
func (c *Conn) Receive(now time.Time, d []byte) error {
	h, payload, err := ParseSegment(d, c.cfg.MSS)
	if err != nil {
		c.stats.Invalid++
		return err
	}
	if after(h.Ack, c.max) {
		c.stats.Invalid++
		return fmt.Errorf("%w: ack %d of data never sent (up to %d)", ErrSegment, h.Ack, c.max)
	}
	c.stats.SegmentsReceived++
	c.processAck(now, h.Ack, len(payload) > 0)
	if len(payload) > 0 {
		c.processData(h.Seq, payload)
	}
	return nil
}

func (c *Conn) processAck(now time.Time, ack uint32, hasData bool) {
	if !after(ack, c.una) {
		// A duplicate ack: a pure ack that moves nothing while data is
		// outstanding (RFC 5681).
		if ack != c.una || hasData || c.una == c.max {
			return
		}
		c.dupAcks++
		switch {
		case c.recovery:
			c.cwnd++ // each dup ack is a segment that left the network
		case c.dupAcks == c.cfg.DupAckThreshold:
			c.stats.FastRetransmits++
			c.ssthresh = max(float64(len(c.inflight))/2, 2)
			c.cwnd = c.ssthresh + float64(c.cfg.DupAckThreshold)
			c.recovery, c.recover, c.resend = true, c.max, true
		}
		return
	}
	acked := ack - c.una
	c.snd = append(c.snd[:0], c.snd[acked:]...)
	c.una = ack
	if after(c.una, c.nxt) {
		c.nxt = c.una
	}
	n := 0
	for n < len(c.inflight) && !after(c.inflight[n], ack) {
		n++
	}
	c.inflight = append(c.inflight[:0], c.inflight[n:]...)
	c.dupAcks = 0
	if c.timing && !after(c.timedEnd, ack) {
		c.timing = false
		c.sampleRTT(now.Sub(c.timedAt))
	}
	switch {
	case c.recovery && !after(c.recover, ack):
		c.recovery, c.cwnd = false, c.ssthresh
	case c.recovery:
		c.resend = true // a partial ack: the next hole is lost too
	case c.cwnd < c.ssthresh:
		c.cwnd++
	default:
		c.cwnd += 1 / c.cwnd
	}
	c.deadline = time.Time{}
	if c.una != c.max {
		c.deadline = now.Add(c.rto)
	}
}

// sampleRTT is RFC 6298 §2.2–2.3 with α = 1/8, β = 1/4; a new sample
// also ends any backoff.
func (c *Conn) sampleRTT(r time.Duration) {
	if c.stats.MinRTT == 0 || r < c.stats.MinRTT {
		c.stats.MinRTT = r
	}
	if c.srtt == 0 {
		c.srtt, c.rttvar = r, r/2
	} else {
		d := c.srtt - r
		if d < 0 {
			d = -d
		}
		c.rttvar = (3*c.rttvar + d) / 4
		c.srtt = (7*c.srtt + r) / 8
	}
	c.rto = min(max(c.srtt+max(c.cfg.Granularity, 4*c.rttvar), c.cfg.MinRTO), c.cfg.MaxRTO)
}

func (c *Conn) processData(seq uint32, p []byte) {
	// Trim what was already received.
	if !after(seq+uint32(len(p)), c.rcvNxt) {
		c.dupOwed++
		return
	}
	if after(c.rcvNxt, seq) {
		p = p[c.rcvNxt-seq:]
		seq = c.rcvNxt
	}
	if seq != c.rcvNxt {
		c.dupOwed++ // out of order: ack at once, it is a duplicate ack
		c.storeOutOfOrder(seq, p)
		return
	}
	if c.held()+len(p) > c.cfg.ReceiveBuffer {
		return // no room: the sender will retransmit
	}
	c.readable = append(c.readable, p...)
	c.rcvNxt += uint32(len(p))
	c.ackOwed = true
	// Pull in what the hole held back.
	for len(c.ooo) > 0 && !after(c.ooo[0].seq, c.rcvNxt) {
		s := c.ooo[0]
		c.ooo = c.ooo[1:]
		c.oooBytes -= len(s.data)
		if end := s.seq + uint32(len(s.data)); after(end, c.rcvNxt) {
			c.readable = append(c.readable, s.data[c.rcvNxt-s.seq:]...)
			c.rcvNxt = end
		}
	}
	if len(c.ooo) == 0 {
		c.ooo = nil // let the backing array go
	}
}

// segmentCharge is what each out-of-order segment held costs against
// ReceiveBuffer besides its bytes, as Linux charges a buffer's truesize:
// a peer sending one-byte segments with holes between them cannot make
// the receiver keep tens of thousands of them and search them all on
// every arrival.
const segmentCharge = 64

// held is what the receive side holds, charged against ReceiveBuffer.
func (c *Conn) held() int { return len(c.readable) + c.oooBytes + segmentCharge*len(c.ooo) }

func (c *Conn) storeOutOfOrder(seq uint32, p []byte) {
	if int(seq-c.rcvNxt)+len(p) > c.cfg.ReceiveBuffer || c.held()+len(p)+segmentCharge > c.cfg.ReceiveBuffer {
		return
	}
	i := 0
	for i < len(c.ooo) && after(seq, c.ooo[i].seq) {
		i++
	}
	if i < len(c.ooo) && c.ooo[i].seq == seq && len(c.ooo[i].data) >= len(p) {
		return // already held
	}
	s := oooSegment{seq: seq, data: append([]byte(nil), p...)}
	if i < len(c.ooo) && c.ooo[i].seq == seq {
		c.oooBytes += len(p) - len(c.ooo[i].data)
		c.ooo[i] = s
		return
	}
	c.ooo = append(c.ooo, oooSegment{})
	copy(c.ooo[i+1:], c.ooo[i:])
	c.ooo[i] = s
	c.oooBytes += len(p)
}
