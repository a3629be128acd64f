package transport

import (
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// vnet is an in-memory network in virtual time for the drivers: PacketConns
// on a netsim.Sim, and a clock that moves only when every driver is waiting
// in a read, straight to the next delivery or read deadline. The drivers
// run their own goroutines as in production; the test drives the clock
// with run. Minutes of protocol time take milliseconds.
type vnet struct {
	mu    sync.Mutex
	now   time.Time
	sim   *netsim.Sim
	conns map[netip.AddrPort]*vconn
	quiet *sync.Cond // signalled when a reader starts waiting
	cut   map[netip.AddrPort]bool
}

func newVnet(t *testing.T, cond netsim.Conditions) *vnet {
	sim, err := netsim.New(netsim.Config{Seed: 1, Conditions: cond})
	if err != nil {
		t.Fatal(err)
	}
	n := &vnet{now: time.Unix(1800000000, 0), sim: sim, conns: map[netip.AddrPort]*vconn{}, cut: map[netip.AddrPort]bool{}}
	n.quiet = sync.NewCond(&n.mu)
	return n
}

// Now is the clock to give the drivers.
func (n *vnet) Now() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.now
}

// listen returns a conn bound to addr.
func (n *vnet) listen(addr netip.AddrPort) *vconn {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := &vconn{net: n, addr: addr}
	c.wake = sync.NewCond(&n.mu)
	n.conns[addr] = c
	return c
}

// blackhole drops everything addr sends from now on.
func (n *vnet) blackhole(addr netip.AddrPort) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.cut[addr] = true
}

// settled reports, with n.mu held, whether every reader waits with
// nothing to read and its deadline ahead.
func (n *vnet) settled() bool {
	for _, c := range n.conns {
		if !c.waiting || len(c.inbox) > 0 || (!c.deadline.IsZero() && !n.now.Before(c.deadline)) {
			return false
		}
	}
	return true
}

// run advances the clock by d: each time the drivers have settled, it
// jumps to the next delivery or deadline, delivers and wakes the readers
// concerned.
func (n *vnet) run(d time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	end := n.now.Add(d)
	for {
		for !n.settled() {
			n.quiet.Wait()
		}
		next := end
		if due, ok := n.sim.NextDue(); ok && due.Before(next) {
			next = due
		}
		for _, c := range n.conns {
			if !c.deadline.IsZero() && c.deadline.Before(next) {
				next = c.deadline
			}
		}
		n.now = next
		for _, p := range n.sim.Receive(n.now) {
			if c := n.conns[p.To]; c != nil {
				c.inbox = append(c.inbox, p)
			}
		}
		for _, c := range n.conns {
			if len(c.inbox) > 0 || (!c.deadline.IsZero() && !n.now.Before(c.deadline)) {
				c.wake.Signal()
			}
		}
		if !n.now.Before(end) && n.settled() {
			return
		}
	}
}

// vconn is one socket of a vnet; it implements PacketConn.
type vconn struct {
	net      *vnet
	addr     netip.AddrPort
	wake     *sync.Cond
	inbox    []netsim.Packet
	deadline time.Time
	waiting  bool
	closed   bool
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "vnet: read deadline passed" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

var _ net.Error = timeoutError{}

func (c *vconn) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	for {
		switch {
		case c.closed:
			return 0, netip.AddrPort{}, net.ErrClosed
		case len(c.inbox) > 0:
			p := c.inbox[0]
			c.inbox = c.inbox[1:]
			return copy(b, p.Data), p.From, nil
		case !c.deadline.IsZero() && !n.now.Before(c.deadline):
			return 0, netip.AddrPort{}, timeoutError{}
		}
		c.waiting = true
		n.quiet.Signal()
		c.wake.Wait()
		c.waiting = false
	}
}

func (c *vconn) WriteToUDPAddrPort(b []byte, to netip.AddrPort) (int, error) {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	if !n.cut[c.addr] {
		n.sim.Send(n.now, c.addr, to, b)
	}
	return len(b), nil
}

func (c *vconn) SetReadDeadline(t time.Time) error {
	c.net.mu.Lock()
	defer c.net.mu.Unlock()
	c.deadline = t
	return nil
}

func (c *vconn) LocalAddr() net.Addr { return net.UDPAddrFromAddrPort(c.addr) }

func (c *vconn) Close() error {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	c.closed = true
	delete(n.conns, c.addr)
	c.wake.Signal()
	return nil
}
