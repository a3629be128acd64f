package netcode

import (
	"bytes"
	"net/netip"
	"testing"
	"time"
)

func TestHandshakeAndPayloads(t *testing.T) {
	h := newHarness(t, 4)
	var connected []ClientIndex
	h.server.cfg.OnConnect = func(i ClientIndex, id ClientID, ud *UserData) {
		if ud[0] != byte(id) {
			t.Errorf("user data of client %d: %x", id, ud[0])
		}
		connected = append(connected, i)
	}
	a := h.addClient(h.token(7, 5))
	b := h.addClient(h.token(8, 5))
	h.connectAll()
	if len(connected) != 2 || h.server.Stats().ClientsConnected != 2 {
		t.Fatalf("connected %v, stats %+v", connected, h.server.Stats())
	}
	if a.ClientIndex() != 0 || b.ClientIndex() != 1 || a.MaxClients() != 4 {
		t.Fatalf("indexes %d %d max %d", a.ClientIndex(), b.ClientIndex(), a.MaxClients())
	}
	if h.server.ClientID(1) != 8 {
		t.Fatalf("slot 1 holds client %d", h.server.ClientID(1))
	}
	for n := range 20 {
		msg := []byte{byte(n), 1, 2, 3}
		if err := a.SendPayload(h.now, msg); err != nil {
			t.Fatal(err)
		}
		if err := h.server.SendPayload(h.now, 1, msg); err != nil {
			t.Fatal(err)
		}
		h.step(16 * time.Millisecond)
		got, ok := h.server.ReceivePayload(0)
		if !ok || !bytes.Equal(got, msg) {
			t.Fatalf("server got %x %v, want %x", got, ok, msg)
		}
		got, ok = b.ReceivePayload()
		if !ok || !bytes.Equal(got, msg) {
			t.Fatalf("client got %x %v, want %x", got, ok, msg)
		}
	}
	// Idle for longer than the timeout: keep-alives hold the connections.
	h.run(8 * time.Second)
	if a.State() != StateConnected || h.server.Stats().ClientsConnected != 2 {
		t.Fatalf("idle connection dropped: %v, %+v", a.State(), h.server.Stats())
	}
	if d := h.server.Stats().Dropped(); d != 0 {
		// Only the responses repeated before the first keep-alive may drop.
		if d != h.server.Stats().Drops[DropAlreadyConnected] {
			t.Fatalf("unexpected drops: %+v", h.server.Stats().Drops)
		}
	}
	if a.Counters().Dropped() != 0 {
		t.Fatalf("client drops: %+v", a.Counters().Drops)
	}
}

func TestServerSendsKeepAliveBeforePayloadUntilConfirmed(t *testing.T) {
	h := newHarness(t, 2)
	c := h.addClient(h.token(1, 5))
	// Lose every keep-alive: the client only completes its handshake
	// through the keep-alive the server puts before a payload.
	h.filter = func(d *Datagram, toServer bool, _ netip.AddrPort) bool {
		return toServer || d.Data[0]&0x0f != byte(PacketKeepAlive)
	}
	h.run(300 * time.Millisecond)
	if c.State() != StateSendingResponse || h.server.Stats().ClientsConnected != 1 {
		t.Fatalf("client %v, server %d clients", c.State(), h.server.Stats().ClientsConnected)
	}
	h.filter = nil
	if err := h.server.SendPayload(h.now, 0, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	out := h.server.Send()
	if len(out) != 2 || out[0].Data[0]&0x0f != byte(PacketKeepAlive) || out[1].Data[0]&0x0f != byte(PacketPayload) {
		t.Fatalf("unconfirmed client got %d datagrams", len(out))
	}
	for _, d := range out {
		c.Receive(h.now, testServer, d.Data)
	}
	if c.State() != StateConnected {
		t.Fatalf("client %v after keep-alive and payload", c.State())
	}
	if got, ok := c.ReceivePayload(); !ok || string(got) != "hello" {
		t.Fatalf("payload %q %v", got, ok)
	}
	h.step(200 * time.Millisecond) // the client's keep-alive confirms it
	if !h.server.clients[0].confirmed {
		t.Fatal("server did not confirm the client")
	}
	if err := h.server.SendPayload(h.now, 0, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if out := h.server.Send(); len(out) != 1 {
		t.Fatalf("confirmed client got %d datagrams for one payload", len(out))
	}
}

func TestServerConnectionLessSequenceStartsAtTopHalf(t *testing.T) {
	h := newHarness(t, 1)
	c := h.addClient(h.token(1, 5))
	c.Update(h.now)
	for _, d := range c.Send() {
		h.server.Receive(h.now, h.addrs[0], d.Data)
	}
	out := h.server.Send()
	if len(out) != 1 {
		t.Fatalf("%d answers to a request", len(out))
	}
	hd, err := ParseHeader(out[0].Data)
	if err != nil || hd.Type != PacketChallenge || hd.Sequence != 1<<63 {
		t.Fatalf("challenge header %+v %v", hd, err)
	}
	if len(out[0].Data) >= RequestPacketBytes {
		t.Fatalf("challenge of %d bytes amplifies a %d-byte request", len(out[0].Data), RequestPacketBytes)
	}
}

func TestFullServerDenies(t *testing.T) {
	h := newHarness(t, 2)
	h.addClient(h.token(1, 5))
	h.addClient(h.token(2, 5))
	h.connectAll()
	late := h.addClient(h.token(3, 5))
	h.run(300 * time.Millisecond)
	if late.State() != StateDenied {
		t.Fatalf("third client is %v, want denied", late.State())
	}
	if h.server.Stats().DeniedSent == 0 {
		t.Fatal("denied not counted")
	}
	// A slot frees: a new token connects.
	h.clients[0].Disconnect(h.now)
	h.step(10 * time.Millisecond)
	if h.server.Stats().ClientsConnected != 1 {
		t.Fatalf("%d clients after a disconnect", h.server.Stats().ClientsConnected)
	}
	again := NewClient(DefaultClientConfig())
	if err := again.Connect(h.now, h.token(4, 5)); err != nil {
		t.Fatal(err)
	}
	h.clients[2] = again
	h.run(300 * time.Millisecond)
	if again.State() != StateConnected {
		t.Fatalf("client after a slot freed: %v", again.State())
	}
}

func TestTimeouts(t *testing.T) {
	t.Run("server times out a silent client", func(t *testing.T) {
		h := newHarness(t, 2)
		c := h.addClient(h.token(1, 2))
		h.connectAll()
		h.filter = func(_ *Datagram, toServer bool, _ netip.AddrPort) bool { return !toServer }
		var timedOut bool
		h.server.cfg.OnDisconnect = func(_ ClientIndex, to bool) { timedOut = to }
		h.run(2100 * time.Millisecond)
		if h.server.Stats().ClientsConnected != 0 || !timedOut || h.server.Stats().TimedOut != 1 {
			t.Fatalf("server stats %+v", h.server.Stats())
		}
		_ = c
	})
	t.Run("client times out a silent server", func(t *testing.T) {
		h := newHarness(t, 2)
		c := h.addClient(h.token(1, 2))
		h.connectAll()
		h.filter = func(_ *Datagram, toServer bool, _ netip.AddrPort) bool { return toServer }
		h.run(2100 * time.Millisecond)
		if c.State() != StateTimedOut {
			t.Fatalf("client %v", c.State())
		}
	})
	t.Run("request times out", func(t *testing.T) {
		h := newHarness(t, 2)
		c := h.addClient(h.token(1, 1))
		h.filter = func(*Datagram, bool, netip.AddrPort) bool { return false }
		h.run(1100 * time.Millisecond)
		if c.State() != StateRequestTimedOut {
			t.Fatalf("client %v", c.State())
		}
	})
	t.Run("response times out", func(t *testing.T) {
		h := newHarness(t, 2)
		c := h.addClient(h.token(1, 1))
		h.filter = func(d *Datagram, toServer bool, _ netip.AddrPort) bool {
			return d.Data[0] == byte(PacketRequest) || !toServer && d.Data[0]&0x0f == byte(PacketChallenge)
		}
		h.run(1100 * time.Millisecond)
		if c.State() != StateResponseTimedOut {
			t.Fatalf("client %v", c.State())
		}
	})
	t.Run("token expires during the handshake", func(t *testing.T) {
		h := newHarness(t, 2)
		c := h.addClient(h.token(1, -1)) // timeouts disabled
		h.filter = func(*Datagram, bool, netip.AddrPort) bool { return false }
		h.run(31 * time.Second)
		if c.State() != StateTokenExpired {
			t.Fatalf("client %v", c.State())
		}
	})
}

func TestDisconnectBothWays(t *testing.T) {
	h := newHarness(t, 2)
	a := h.addClient(h.token(1, 5))
	b := h.addClient(h.token(2, 5))
	h.connectAll()
	a.Disconnect(h.now)
	h.step(10 * time.Millisecond)
	if h.server.Connected(0) || a.State() != StateDisconnected {
		t.Fatalf("slot 0 %v, client %v", h.server.Connected(0), a.State())
	}
	// The redundant copies after the first find no mapping any more.
	if got := h.server.Stats().Drops[DropUnknownAddress]; got != uint64(DefaultClientConfig().DisconnectPackets-1) {
		t.Fatalf("%d redundant disconnects counted, want %d", got, DefaultClientConfig().DisconnectPackets-1)
	}
	if err := h.server.Disconnect(h.now, 1); err != nil {
		t.Fatal(err)
	}
	h.step(10 * time.Millisecond)
	if b.State() != StateDisconnected || h.server.Stats().ClientsConnected != 0 {
		t.Fatalf("client %v, %d connected", b.State(), h.server.Stats().ClientsConnected)
	}
}

// TestReplaceSilentClient: a client that crashed (silent) comes back from
// a new address with a fresh token for its client id and takes a slot
// after ReplaceSilentAfter, not after its 10 s timeout; the old slot is
// released as timed out. A client id still heard is refused.
func TestReplaceSilentClient(t *testing.T) {
	crash := func(h *harness) {
		// From now on the first client's datagrams go nowhere, both ways.
		first := h.addrs[0]
		h.filter = func(d *Datagram, toServer bool, from netip.AddrPort) bool {
			return from != first && d.To != first
		}
	}
	t.Run("silent slot replaced", func(t *testing.T) {
		h := newHarness(t, 2)
		h.addClient(h.token(7, 10))
		h.connectAll()
		var left []bool
		h.server.cfg.OnDisconnect = func(_ ClientIndex, timedOut bool) { left = append(left, timedOut) }
		crash(h)
		h.run(200 * time.Millisecond)
		back := h.addClient(h.tokenSeeded(7, 10, 1007))
		h.run(500 * time.Millisecond)
		if back.State() == StateConnected {
			t.Fatal("the client id was replaced after 0.7 s of silence, before ReplaceSilentAfter (1 s)")
		}
		h.run(time.Second)
		st := h.server.Stats()
		if back.State() != StateConnected || st.ClientsConnected != 1 || st.Replaced != 1 || len(left) != 1 || !left[0] {
			t.Fatalf("after 1.7 s: client %v, stats %+v, disconnects %v; want connected, one slot, one replaced (timed out)", back.State(), st, left)
		}
		if id := h.server.ClientID(back.ClientIndex()); id != 7 {
			t.Errorf("slot %d holds client id %d, want 7", back.ClientIndex(), id)
		}
	})
	t.Run("client id still heard", func(t *testing.T) {
		h := newHarness(t, 2)
		h.addClient(h.token(7, 10))
		h.connectAll()
		other := h.addClient(h.tokenSeeded(7, 10, 1007))
		h.run(3 * time.Second)
		if other.State() == StateConnected || h.server.Stats().Drops[DropAlreadyConnected] == 0 || h.server.Stats().Replaced != 0 {
			t.Fatalf("a second connection for a client id still heard: %v, stats %+v; want refused as already connected", other.State(), h.server.Stats())
		}
	})
	t.Run("replacement off", func(t *testing.T) {
		h := newHarness(t, 2)
		h.server.cfg.ReplaceSilentAfter = 0
		h.addClient(h.token(7, 10))
		h.connectAll()
		crash(h)
		back := h.addClient(h.tokenSeeded(7, 10, 1007))
		h.run(3 * time.Second)
		if back.State() == StateConnected {
			t.Fatal("with ReplaceSilentAfter 0 a silent client id was replaced before its timeout")
		}
	})
}
