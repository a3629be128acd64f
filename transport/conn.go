package transport

import (
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/netphys/netphys/transport/netcode"
)

// PacketConn is what the drivers need from a datagram socket. *net.UDPConn
// implements it; tests and the network simulator may supply their own.
// WriteToUDPAddrPort may be called from several goroutines at once.
type PacketConn interface {
	ReadFromUDPAddrPort(b []byte) (n int, addr netip.AddrPort, err error)
	WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error)
	// SetReadDeadline is the drivers' timer: a read that times out runs an
	// update of the core. Deadlines are times of the driver's clock.
	SetReadDeadline(t time.Time) error
	LocalAddr() net.Addr
	Close() error
}

// DefaultTick is how often the drivers update their core when no packet
// arrives: ten times per keep-alive interval, so keep-alives leave within
// 10 ms of being due.
const DefaultTick = 10 * time.Millisecond

// readBufferBytes is larger than any valid packet, so an oversized datagram
// arrives whole and is refused by its size rather than truncated to a valid one.
const readBufferBytes = 2048

// socketBufferBytes is the socket buffer size the server asks for: about
// 3000 full-size packets.
const socketBufferBytes = 4 << 20

// deepenBuffers asks the kernel for socketBufferBytes of socket buffers, if
// conn is a socket; the kernel caps the request at net.core.rmem_max and
// wmem_max, and a refusal only leaves the defaults.
func deepenBuffers(conn PacketConn) {
	if b, ok := conn.(interface {
		SetReadBuffer(int) error
		SetWriteBuffer(int) error
	}); ok {
		_ = b.SetReadBuffer(socketBufferBytes)
		_ = b.SetWriteBuffer(socketBufferBytes)
	}
}

// isTimeout reports a read deadline that passed.
func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// localAddrPort returns the address a PacketConn is bound to.
func localAddrPort(c PacketConn) netip.AddrPort {
	if a, ok := c.LocalAddr().(*net.UDPAddr); ok {
		return a.AddrPort()
	}
	ap, _ := netip.ParseAddrPort(c.LocalAddr().String())
	return ap
}

// batch holds a copy of the datagrams a core produced, so they can be
// written after the driver's lock is released: a socket write never holds
// up the goroutines waiting for the core. Batches are pooled, so steady
// traffic does not allocate.
type batch struct {
	data []byte
	out  []netcode.Datagram
}

var batches = sync.Pool{New: func() any { return new(batch) }}

// takeBatch copies dgs, which the core owns until its next call, into a
// pooled batch; nil if there is nothing to send.
func takeBatch(dgs []netcode.Datagram) *batch {
	if len(dgs) == 0 {
		return nil
	}
	b := batches.Get().(*batch)
	n := 0
	for _, d := range dgs {
		n += len(d.Data)
	}
	if cap(b.data) < n {
		b.data = make([]byte, 0, n)
	}
	b.data, b.out = b.data[:0], b.out[:0]
	for _, d := range dgs {
		start := len(b.data)
		b.data = append(b.data, d.Data...) // within capacity: earlier slices stay valid
		b.out = append(b.out, netcode.Datagram{To: d.To, Data: b.data[start:len(b.data)]})
	}
	return b
}

// send writes the batch with w and returns it to the pool; b may be nil.
func (b *batch) send(w *datagramIO, log *slog.Logger) {
	if b == nil {
		return
	}
	w.write(b.out, log)
	clear(b.out) // drop the addresses' references before pooling
	batches.Put(b)
}

// ticks paces a driver's goroutine: it reads from the socket with the
// next tick as the read deadline, and says when that tick is due, so that
// the core is updated when no packet arrives.
type ticks struct {
	conn     PacketConn
	period   time.Duration
	next     time.Time // when the next tick is due
	deadline time.Time // the socket's read deadline, set when next moves
}

func newTicks(conn PacketConn, period time.Duration, now time.Time) ticks {
	return ticks{conn: conn, period: period, next: now.Add(period)}
}

// read reads with r until the next tick at the latest.
func (t *ticks) read(r *datagramIO, log *slog.Logger) (int, error) {
	if !t.next.Equal(t.deadline) {
		if err := t.conn.SetReadDeadline(t.next); err != nil {
			log.Debug("set read deadline", "err", err)
		}
		t.deadline = t.next
	}
	return r.read()
}

// due reports whether the tick is due at now; if so, the next one is due
// a period after now.
func (t *ticks) due(now time.Time) bool {
	if now.Before(t.next) {
		return false
	}
	t.next = now.Add(t.period)
	return true
}
