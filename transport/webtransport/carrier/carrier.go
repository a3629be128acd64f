// Package carrier is the client's side of a datagram carrier: a
// transport.PacketConn whose datagrams travel over something that is not
// a socket, such as a WebTransport session (a Go one in tests, the page's
// through the JS bridge in a browser tab). The netcode client driver
// (transport.NewClient) runs on it unchanged.
//
// A packet larger than the carrier's datagrams travels in fragments
// (package frag), both ways.
//
// It imports no network stack, so it builds for GOOS=js GOARCH=wasm.
package carrier

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/webtransport/frag"
)

// queueLen bounds the datagrams delivered and not yet read; more are
// dropped and counted.
const queueLen = 256

// Conn is a transport.PacketConn whose only peer is the server: every
// datagram written goes to send, whatever its address, and every datagram
// delivered reads as coming from the server's address (the one its token
// lists, which the netcode client checks).
type Conn struct {
	send   func([]byte) error
	server netip.AddrPort
	in     chan []byte
	done   chan struct{}
	timer  *time.Timer // the read deadline; used by the reader only

	mu       sync.Mutex
	deadline time.Time
	closed   bool
	dropped  uint64
	frags    frag.Reassembler // the received side of the fragments' counts too

	sendMu   sync.Mutex // guards the sending side
	limit    int        // the largest datagram sent
	nextID   uint16     // of the next packet sent in fragments
	split    uint64     // packets sent in fragments
	fragsOut uint64     // fragments sent
}

// New returns a Conn that writes with send (which must not keep b) and
// reads what Deliver is given, as from server.
func New(send func(b []byte) error, server netip.AddrPort) *Conn {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &Conn{send: send, server: server, in: make(chan []byte, queueLen), done: make(chan struct{}), timer: t, limit: frag.MaxDatagram}
}

// SetMaxDatagram lowers the largest datagram the Conn sends to n bytes,
// the carrier's own bound (a browser's datagrams.maxDatagramSize), if
// that is below frag.MaxDatagram; larger packets travel in fragments.
func (c *Conn) SetMaxDatagram(n int) error {
	if n < frag.MinDatagram {
		return fmt.Errorf("carrier: datagrams of at most %d bytes: netcode's packets need %d", n, frag.MinDatagram)
	}
	c.sendMu.Lock()
	c.limit = min(n, frag.MaxDatagram)
	c.sendMu.Unlock()
	return nil
}

// Deliver hands the Conn one received datagram; it copies b. A datagram
// that is empty or longer than netcode.MaxPacketBytes, or that finds the
// queue full or the Conn closed, is dropped and counted (Dropped). A
// fragment is held until its packet is whole (Fragments counts them).
func (c *Conn) Deliver(b []byte) {
	if len(b) == 0 || len(b) > netcode.MaxPacketBytes {
		c.drop()
		return
	}
	var p []byte // a copy of b, or the packet b completed
	if frag.IsFragment(b) {
		c.mu.Lock()
		if whole := c.frags.Add(b, time.Now()); whole != nil {
			p = append([]byte(nil), whole...)
		}
		c.mu.Unlock()
		if p == nil {
			return
		}
	} else {
		p = append([]byte(nil), b...)
	}
	select {
	case <-c.done:
		c.drop()
	case c.in <- p:
	default:
		c.drop()
	}
}

func (c *Conn) drop() {
	c.mu.Lock()
	c.dropped++
	c.mu.Unlock()
}

// Fragments returns the counts of the fragments sent and received.
func (c *Conn) Fragments() frag.Stats {
	c.mu.Lock()
	s := c.frags.Stats
	c.mu.Unlock()
	c.sendMu.Lock()
	s.PacketsSplit, s.FragmentsSent = c.split, c.fragsOut
	c.sendMu.Unlock()
	return s
}

// Dropped returns how many delivered datagrams were dropped.
func (c *Conn) Dropped() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// timeoutError is what a read that reaches its deadline returns.
type timeoutError struct{}

func (timeoutError) Error() string   { return "carrier: read deadline reached" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

var _ net.Error = timeoutError{}

// ReadFromUDPAddrPort returns the next delivered datagram, until the read
// deadline. One goroutine reads.
func (c *Conn) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	c.mu.Lock()
	d := c.deadline
	c.mu.Unlock()
	var expired <-chan time.Time
	if !d.IsZero() {
		wait := time.Until(d)
		if wait <= 0 {
			select {
			case p := <-c.in:
				return copy(b, p), c.server, nil
			default:
				return 0, netip.AddrPort{}, timeoutError{}
			}
		}
		c.timer.Reset(wait)
		defer c.timer.Stop()
		expired = c.timer.C
	}
	select {
	case p := <-c.in:
		return copy(b, p), c.server, nil
	case <-expired:
		return 0, netip.AddrPort{}, timeoutError{}
	case <-c.done:
		return 0, netip.AddrPort{}, net.ErrClosed
	}
}

// WriteToUDPAddrPort sends b to the server, whole or in fragments; addr
// is the server's in every datagram a netcode client writes.
func (c *Conn) WriteToUDPAddrPort(b []byte, _ netip.AddrPort) (int, error) {
	select {
	case <-c.done:
		return 0, net.ErrClosed
	default:
	}
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	n, err := frag.Split(b, c.limit, c.nextID, c.send)
	if n > 0 && len(b) > c.limit { // its fragments, n of them sent

		c.nextID++
		c.split++
		c.fragsOut += uint64(n)
	}
	if err != nil {
		return 0, err
	}
	return len(b), nil
}

// SetReadDeadline sets the deadline of the next reads.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return nil
}

// LocalAddr is a placeholder: the carrier has no address of its own.
func (c *Conn) LocalAddr() net.Addr { return &net.UDPAddr{IP: net.IPv4zero} }

// Close ends pending and later reads and writes.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("carrier: closed twice")
	}
	c.closed = true
	close(c.done)
	return nil
}
