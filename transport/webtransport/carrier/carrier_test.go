package carrier

import (
	"bytes"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/webtransport/frag"
)

// TestConnBounds: a delivered datagram reads back as from the server;
// empty and oversized datagrams and those beyond the queue are dropped and
// counted; a read past its deadline times out; writes go to send.
func TestConnBounds(t *testing.T) {
	server := netip.MustParseAddrPort("192.0.2.1:40000")
	var sent [][]byte
	c := New(func(b []byte) error { sent = append(sent, append([]byte(nil), b...)); return nil }, server)
	defer c.Close()

	c.Deliver([]byte("hello"))
	c.Deliver(nil)
	c.Deliver(make([]byte, netcode.MaxPacketBytes+1))
	if got := c.Dropped(); got != 2 {
		t.Errorf("dropped %d, want the empty and the oversized datagram", got)
	}
	b := make([]byte, 64)
	n, from, err := c.ReadFromUDPAddrPort(b)
	if err != nil || from != server || !bytes.Equal(b[:n], []byte("hello")) {
		t.Fatalf("read %q from %v (err %v), want hello from %v", b[:n], from, err, server)
	}
	for range queueLen + 3 {
		c.Deliver([]byte{1})
	}
	if got := c.Dropped(); got != 2+3 {
		t.Errorf("dropped %d, want 3 more beyond the queue of %d", got, queueLen)
	}
	for range queueLen {
		if _, _, err := c.ReadFromUDPAddrPort(b); err != nil {
			t.Fatal(err)
		}
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, _, err := c.ReadFromUDPAddrPort(b); err == nil {
		t.Fatal("a read with nothing delivered returned no error")
	} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Fatalf("read: %v, want a timeout", err)
	}
	if _, err := c.WriteToUDPAddrPort([]byte("out"), netip.AddrPort{}); err != nil || len(sent) != 1 || string(sent[0]) != "out" {
		t.Errorf("write: err %v, sent %q", err, sent)
	}
}

// TestConnFragments: under a browser's smaller datagram limit, a packet
// of netcode's largest size leaves in three fragments, none over the
// limit, and a Conn that is delivered them reads the packet whole; a
// limit too small for three fragments is refused.
func TestConnFragments(t *testing.T) {
	server := netip.MustParseAddrPort("192.0.2.1:40000")
	var rx *Conn
	const limit = 600
	tx := New(func(b []byte) error {
		if len(b) > limit {
			t.Errorf("a datagram of %d bytes, over the limit of %d", len(b), limit)
		}
		rx.Deliver(b)
		return nil
	}, server)
	rx = New(func([]byte) error { return nil }, server)
	defer tx.Close()
	defer rx.Close()
	if err := tx.SetMaxDatagram(frag.MinDatagram - 1); err == nil {
		t.Error("a datagram limit too small for three fragments was taken")
	}
	if err := tx.SetMaxDatagram(limit); err != nil {
		t.Fatal(err)
	}
	p := bytes.Repeat([]byte{0x15, 0x99}, netcode.MaxPacketBytes/2)
	if _, err := tx.WriteToUDPAddrPort(p, server); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, netcode.MaxPacketBytes)
	n, _, err := rx.ReadFromUDPAddrPort(b)
	if err != nil || !bytes.Equal(b[:n], p) {
		t.Fatalf("read %d bytes (err %v), want the %d-byte packet", n, err, len(p))
	}
	if s := tx.Fragments(); s.PacketsSplit != 1 || s.FragmentsSent != 3 {
		t.Errorf("sender's fragments %+v: want one packet in three", s)
	}
	if s := rx.Fragments(); s.FragmentsIn != 3 || s.PacketsReassembled != 1 || s.FragmentsDropped != 0 {
		t.Errorf("receiver's fragments %+v: want three in, one packet", s)
	}
}
