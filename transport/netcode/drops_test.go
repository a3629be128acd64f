package netcode

import (
	"net/netip"
	"testing"
	"time"
)

// connectedPair returns a harness with one connected client and a payload
// datagram it sent, captured before delivery.
func connectedPair(t *testing.T) (*harness, *Client, []byte) {
	h := newHarness(t, 2)
	c := h.addClient(h.token(1, 5))
	h.connectAll()
	if err := c.SendPayload(h.now, []byte("payload")); err != nil {
		t.Fatal(err)
	}
	out := c.Send()
	if len(out) != 1 {
		t.Fatalf("%d datagrams for one payload", len(out))
	}
	return h, c, append([]byte(nil), out[0].Data...)
}

// expectDrop feeds packet to the server and checks it was dropped for reason.
func expectServerDrop(t *testing.T, h *harness, from netip.AddrPort, packet []byte, reason DropReason) {
	t.Helper()
	before := h.server.Stats()
	h.server.Receive(h.now, from, append([]byte(nil), packet...))
	after := h.server.Stats()
	if after.Drops[reason] != before.Drops[reason]+1 || after.Dropped() != before.Dropped()+1 {
		t.Fatalf("want one %v drop; drops before %v after %v", reason, before.Drops, after.Drops)
	}
	if len(h.server.Send()) != 0 {
		t.Fatal("server answered a dropped packet")
	}
}

func TestServerDropsByReason(t *testing.T) {
	t.Run("tampered", func(t *testing.T) {
		h, _, p := connectedPair(t)
		p[len(p)-20] ^= 1
		expectServerDrop(t, h, h.addrs[0], p, DropDecrypt)
	})
	t.Run("tampered prefix", func(t *testing.T) {
		h, _, p := connectedPair(t)
		p[0] = p[0]&0xf0 | byte(PacketKeepAlive) // the type is associated data
		p = p[:1+SequenceBytes(0)+keepAliveBodyBytes+MACBytes]
		expectServerDrop(t, h, h.addrs[0], p, DropDecrypt)
	})
	t.Run("truncated", func(t *testing.T) {
		h, _, p := connectedPair(t)
		expectServerDrop(t, h, h.addrs[0], p[:len(p)-1], DropDecrypt)
		expectServerDrop(t, h, h.addrs[0], p[:17], DropMalformed)
		expectServerDrop(t, h, h.addrs[0], p[:0], DropMalformed)
	})
	t.Run("replayed", func(t *testing.T) {
		h, _, p := connectedPair(t)
		h.server.Receive(h.now, h.addrs[0], append([]byte(nil), p...))
		if got, ok := h.server.ReceivePayload(0); !ok || string(got) != "payload" {
			t.Fatalf("first copy not delivered: %q", got)
		}
		expectServerDrop(t, h, h.addrs[0], p, DropReplayed)
	})
	t.Run("unknown address", func(t *testing.T) {
		h, _, p := connectedPair(t)
		expectServerDrop(t, h, netip.MustParseAddrPort("10.9.9.9:1"), p, DropUnknownAddress)
	})
	t.Run("wrong protocol id", func(t *testing.T) {
		h := newHarness(t, 2)
		tok := h.token(1, 5)
		tok.ProtocolID++
		expectServerDrop(t, h, h.addrs0(), NewRequestPacket(tok).Append(nil), DropWrongProtocol)
	})
	t.Run("wrong version", func(t *testing.T) {
		h := newHarness(t, 2)
		req := NewRequestPacket(h.token(1, 5)).Append(nil)
		req[1+11] = '3'
		expectServerDrop(t, h, h.addrs0(), req, DropWrongVersion)
	})
	t.Run("expired token", func(t *testing.T) {
		h := newHarness(t, 2)
		req := NewRequestPacket(h.token(1, 5)).Append(nil)
		h.now = h.now.Add(30 * time.Second)
		expectServerDrop(t, h, h.addrs0(), req, DropTokenExpired)
	})
	t.Run("invalid token", func(t *testing.T) {
		h := newHarness(t, 2)
		req := NewRequestPacket(h.token(1, 5)).Append(nil)
		req[200] ^= 0x80
		expectServerDrop(t, h, h.addrs0(), req, DropTokenInvalid)
	})
	t.Run("wrong server", func(t *testing.T) {
		h := newHarness(t, 2)
		p := DefaultTokenParams()
		p.ProtocolID, p.ClientID = testProtocol, 1
		p.ServerAddresses = []netip.AddrPort{netip.MustParseAddrPort("10.0.0.2:40000")}
		tok, err := GenerateConnectToken(&p, h.now, &h.key, seeded(5))
		if err != nil {
			t.Fatal(err)
		}
		expectServerDrop(t, h, h.addrs0(), NewRequestPacket(tok).Append(nil), DropWrongServer)
	})
	t.Run("reused token", func(t *testing.T) {
		h := newHarness(t, 2)
		req := NewRequestPacket(h.token(1, 5)).Append(nil)
		h.server.Receive(h.now, h.addrs0(), append([]byte(nil), req...))
		h.server.Receive(h.now, h.addrs0(), append([]byte(nil), req...)) // same address: allowed
		if n := len(h.server.Send()); n != 2 {
			t.Fatalf("%d challenges for two requests from one address", n)
		}
		expectServerDrop(t, h, netip.MustParseAddrPort("10.7.7.7:7"), req, DropTokenReused)
	})
	t.Run("already connected", func(t *testing.T) {
		h, c, _ := connectedPair(t)
		expectServerDrop(t, h, h.addrs[0], c.request, DropAlreadyConnected)
	})
	t.Run("challenge at the server", func(t *testing.T) {
		h, _, _ := connectedPair(t)
		k := NewPacketKey(testProtocol, &Key{})
		var body ChallengeBody
		p, _ := k.Seal(nil, PacketChallenge, 1, body.Append(nil))
		expectServerDrop(t, h, h.addrs[0], p, DropUnexpectedType)
	})
	t.Run("forged challenge token", func(t *testing.T) {
		h := newHarness(t, 2)
		tok := h.token(1, 5)
		h.server.Receive(h.now, h.addrs0(), NewRequestPacket(tok).Append(nil))
		h.server.Send()
		var body ChallengeBody // a token the server never issued
		p, _ := NewPacketKey(testProtocol, &tok.ClientToServerKey).Seal(nil, PacketResponse, 0, body.Append(nil))
		expectServerDrop(t, h, h.addrs0(), p, DropChallengeInvalid)
	})
}

// addrs0 is the address of the harness's first client, even before it exists.
func (h *harness) addrs0() netip.AddrPort { return netip.MustParseAddrPort("10.0.1.1:50000") }

func TestClientDropsByReason(t *testing.T) {
	h := newHarness(t, 2)
	c := h.addClient(h.token(1, 5))
	h.connectAll()
	if err := h.server.SendPayload(h.now, 0, []byte("x")); err != nil {
		t.Fatal(err)
	}
	p := append([]byte(nil), h.server.Send()[0].Data...)
	check := func(from netip.AddrPort, packet []byte, reason DropReason) {
		t.Helper()
		before := c.Counters().Drops[reason]
		c.Receive(h.now, from, append([]byte(nil), packet...))
		if c.Counters().Drops[reason] != before+1 {
			t.Fatalf("want a %v drop, drops %v", reason, c.Counters().Drops)
		}
	}
	check(netip.MustParseAddrPort("10.0.0.9:40000"), p, DropUnknownAddress)
	tampered := append([]byte(nil), p...)
	tampered[3] ^= 4
	check(testServer, tampered, DropDecrypt)
	check(testServer, p[:10], DropMalformed)
	c.Receive(h.now, testServer, append([]byte(nil), p...))
	if got, ok := c.ReceivePayload(); !ok || string(got) != "x" {
		t.Fatalf("payload %q", got)
	}
	check(testServer, p, DropReplayed)
	check(testServer, c.request, DropUnexpectedType)
}

func TestEncryptionMappingExpiresAndIsBounded(t *testing.T) {
	t.Run("expires after the token timeout", func(t *testing.T) {
		h := newHarness(t, 2)
		tok := h.token(1, 2)
		h.server.Receive(h.now, h.addrs0(), NewRequestPacket(tok).Append(nil))
		out := h.server.Send()
		if len(out) != 1 {
			t.Fatal("no challenge")
		}
		c := NewClient(DefaultClientConfig())
		if err := c.Connect(h.now, tok); err != nil {
			t.Fatal(err)
		}
		c.Receive(h.now, testServer, append([]byte(nil), out[0].Data...))
		h.now = h.now.Add(2 * time.Second)
		h.server.Update(h.now)
		c.Update(h.now)
		resp := c.Send()
		if len(resp) != 1 || resp[0].Data[0]&0x0f != byte(PacketResponse) {
			t.Fatalf("client did not answer the challenge: %v", c.State())
		}
		expectServerDrop(t, h, h.addrs0(), resp[0].Data, DropUnknownAddress)
	})
	t.Run("bounded at four per slot", func(t *testing.T) {
		h := newHarness(t, 1)
		for i := range 4 {
			from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 3, 0, byte(i)}), 9)
			h.server.Receive(h.now, from, NewRequestPacket(h.token(ClientID(i+1), 5)).Append(nil))
		}
		if n := len(h.server.Send()); n != 4 {
			t.Fatalf("%d challenges for 4 requests", n)
		}
		expectServerDrop(t, h, netip.MustParseAddrPort("10.3.0.99:9"), NewRequestPacket(h.token(99, 5)).Append(nil), DropMappingsFull)
		// Once the handshakes expire their mappings make room again.
		h.now = h.now.Add(5 * time.Second)
		h.server.Receive(h.now, netip.MustParseAddrPort("10.3.0.98:9"), NewRequestPacket(h.token(98, 5)).Append(nil))
		if n := len(h.server.Send()); n != 1 {
			t.Fatalf("no challenge after the old mappings expired (%d)", n)
		}
	})
}

// TestHalfOpenHandshakesExpireWithoutTimeout: tokens with timeouts
// disabled (-1) still give their handshakes a deadline, so eight clients
// that never answer their challenges lock an honest one out of a 2-slot
// server for HandshakeTimeout only, not for ever.
func TestHalfOpenHandshakesExpireWithoutTimeout(t *testing.T) {
	h := newHarness(t, 2)
	for i := range 8 { // four mappings per slot: the table is full
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 4, 0, byte(i)}), 9)
		h.server.Receive(h.now, from, NewRequestPacket(h.token(ClientID(100+i), -1)).Append(nil))
	}
	if n := len(h.server.Send()); n != 8 {
		t.Fatalf("%d challenges for 8 requests", n)
	}
	honest := h.addClient(h.token(1, -1))
	h.run(time.Second)
	if st := h.server.Stats(); honest.State() == StateConnected || st.Drops[DropMappingsFull] == 0 {
		t.Fatalf("honest client %v with %d mappings_full drops: the table was not full", honest.State(), st.Drops[DropMappingsFull])
	}
	h.run(DefaultServerConfig().HandshakeTimeout)
	if honest.State() != StateConnected {
		t.Fatalf("honest client is %v after the half-open handshakes' deadline", honest.State())
	}
}
