package lockstep

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/netphys/netphys/wire"
)

// maxQueuedReports bounds the checksums waiting for an ack; older ones
// are dropped (the server just does not verify them).
const maxQueuedReports = 16

// finalize queues the checksums of predicted ticks whose inputs are now
// all known and proved right (a wrong one was re-simulated first).
func (c *Client[I, P]) finalize() {
	confirmed := c.confirmed()
	n := 0
	for n < len(c.pending) && c.pending[n].tick < confirmed {
		c.queueReport(c.pending[n])
		n++
	}
	c.pending = append(c.pending[:0], c.pending[n:]...)
}

func (c *Client[I, P]) queueReport(r report) {
	if len(c.reports) == maxQueuedReports {
		c.reports = append(c.reports[:0], c.reports[1:]...)
	}
	c.reports = append(c.reports, r)
	c.stats.Checksums++
	c.stats.LastChecksumTick, c.stats.LastChecksum = r.tick, r.sum
}

// acked drops the checksums an acknowledged message carried.
func (c *Client[I, P]) acked(token uint16) {
	upTo := c.carried[token%uint16(len(c.carried))]
	n := 0
	for n < len(c.reports) && c.reports[n].tick <= upTo {
		n++
	}
	c.reports = append(c.reports[:0], c.reports[n:]...)
}

// sendMessage sends the inputs the server lacks (at most Window, oldest
// first), the checksums it has not acknowledged and our ack.
func (c *Client[I, P]) sendMessage(now time.Time, send func([]byte)) error {
	m := &c.out
	m.inputs.inputs, m.reports = m.inputs.inputs[:0], m.reports[:0]
	m.watch = c.watch
	carried := Tick(-1)
	if c.state != stateLobby && c.watch {
		base := c.ackTick()
		for p := range c.cfg.Players {
			m.acks[p] = min(c.rings[p].have, base+maxAckSpread)
		}
	} else if c.state != stateLobby {
		// Acks spread no wider than the encoding allows: a smaller ack is
		// merely conservative.
		base := c.ackTick()
		for p := range c.cfg.Players {
			m.acks[p] = min(c.rings[p].have, base+maxAckSpread)
		}
		ring := &c.rings[c.me]
		from := c.serverHas
		if c.pipe.ordered() {
			from = max(from, c.sent)
		}
		ring.fill(&m.inputs, from, min(int(ring.have-from), c.cfg.Window))
		n := min(len(c.reports), maxReports)
		if c.hideSums {
			n = 0
		}
		for _, r := range c.reports[:n] {
			m.reports = append(m.reports, r)
			carried = r.tick
		}
	}
	m.snap = c.joining != nil
	if m.snap {
		m.snapOf, m.snapAck, m.verdict = c.joining.back, c.joining.ack, c.joining.verdict
		if c.hoard {
			m.snapAck, m.verdict = snapAck{}, verdictPending
		}
	}
	if err := c.transmit(now, send, carried); err != nil {
		return err
	}
	return c.sendSource(now, send)
}

// transmit encodes c.out and sends it; carried is the newest checksum
// tick it carries (-1: none).
func (c *Client[I, P]) transmit(now time.Time, send func([]byte), carried Tick) error {
	m := &c.out
	w := wire.NewWriter(c.buf)
	if err := serializeClient[I, P](w, m, c.cfg.Players, max(c.me, 0), c.cfg.Window, 0); err != nil {
		return fmt.Errorf("lockstep: encoding a message: %w", err)
	}
	b := w.Bytes()
	token, err := c.pipe.send(now, b, func(d []byte) {
		c.stats.PacketsSent++
		c.stats.BytesSent += uint64(len(d))
		c.stats.MaxPacket = max(c.stats.MaxPacket, len(d))
		send(d)
	})
	if errors.Is(err, errBacklog) {
		c.stats.Backlogged++
		return nil
	}
	if err != nil {
		return fmt.Errorf("lockstep: sending: %w", err)
	}
	c.carried[token%uint16(len(c.carried))] = carried
	if len(m.inputs.inputs) > 0 {
		c.sent = m.inputs.newest() + 1
	}
	return nil
}

// ackTick tells the server we hold every other player's inputs before it.
func (c *Client[I, P]) ackTick() Tick {
	t := Tick(math.MaxInt32)
	for p := range c.cfg.Players {
		if p != c.me {
			t = min(t, c.rings[p].have)
		}
	}
	if t == math.MaxInt32 {
		return c.rings[c.me].have
	}
	return t
}
