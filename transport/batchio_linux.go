//go:build linux

package transport

import (
	"net"
	"sync"

	"golang.org/x/net/ipv4"

	"github.com/netphys/netphys/transport/netcode"
)

// newBatcher batches a UDP socket's reads and writes with recvmmsg and
// sendmmsg (x/net's ReadBatch and WriteBatch; the socket's family does not
// matter to them on Linux); nil for any other PacketConn.
func newBatcher(conn PacketConn) batcher {
	uc, ok := conn.(*net.UDPConn)
	if !ok {
		return nil
	}
	return &mmsgBatcher{pc: ipv4.NewPacketConn(uc)}
}

// mmsgBatcher keeps its messages between calls, so steady traffic costs
// no allocation to write; a read costs x/net's address of each datagram.
type mmsgBatcher struct {
	pc    *ipv4.PacketConn
	rmsgs []ipv4.Message // read's, bound to its buffers at the first read

	wmu   sync.Mutex // guards the write side
	wmsgs []ipv4.Message
	waddr []net.UDPAddr // wmsgs[i].Addr is &waddr[i]
	wip   [][16]byte    // waddr[i].IP's array
}

func (m *mmsgBatcher) read(bufs [][]byte, got []received) (int, error) {
	if len(m.rmsgs) != len(bufs) {
		m.rmsgs = make([]ipv4.Message, len(bufs))
		for i := range m.rmsgs {
			m.rmsgs[i].Buffers = [][]byte{bufs[i]}
		}
	}
	n, err := m.pc.ReadBatch(m.rmsgs, 0)
	if err != nil {
		return 0, err
	}
	for i := range n {
		msg := &m.rmsgs[i]
		got[i] = received{n: msg.N}
		if ua, ok := msg.Addr.(*net.UDPAddr); ok {
			got[i].from = ua.AddrPort()
		}
		msg.Addr = nil
	}
	return n, nil
}

func (m *mmsgBatcher) write(dgs []netcode.Datagram) (failed int, first error) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if m.wmsgs == nil {
		m.wmsgs = make([]ipv4.Message, writeBatchMax)
		m.waddr = make([]net.UDPAddr, writeBatchMax)
		m.wip = make([][16]byte, writeBatchMax)
		for i := range m.wmsgs {
			m.wmsgs[i].Buffers = make([][]byte, 1)
			m.wmsgs[i].Addr = &m.waddr[i]
		}
	}
	for len(dgs) > 0 {
		k := min(len(dgs), writeBatchMax)
		for i, d := range dgs[:k] {
			a, ua := d.To.Addr(), &m.waddr[i]
			if a.Is4() {
				b := a.As4()
				ua.IP = append(m.wip[i][:0], b[:]...)
			} else {
				m.wip[i] = a.As16()
				ua.IP = m.wip[i][:]
			}
			ua.Port, ua.Zone = int(d.To.Port()), a.Zone()
			m.wmsgs[i].Buffers[0] = d.Data
		}
		// sendmmsg stops at the first datagram it cannot send and fails
		// only if that is the first: skip it and go on.
		for sent := 0; sent < k; {
			n, err := m.pc.WriteBatch(m.wmsgs[sent:k], 0)
			if err != nil || n <= 0 {
				failed++
				if first == nil {
					first = err
				}
				n = 1
			}
			sent += n
		}
		for i := range k {
			m.wmsgs[i].Buffers[0] = nil // the caller's datagrams are not kept
		}
		dgs = dgs[k:]
	}
	return failed, first
}
