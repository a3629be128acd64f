package transport

import (
	"net"
	"net/netip"
	"time"
)

// PacketConn is what the drivers need from a datagram socket. *net.UDPConn
// implements it; tests and the network simulator may supply their own.
type PacketConn interface {
	ReadFromUDPAddrPort(b []byte) (n int, addr netip.AddrPort, err error)
	WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error)
	// SetReadDeadline is the drivers' timer: a read that times out runs an
	// update of the core.
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
