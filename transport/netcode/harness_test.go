package netcode

import (
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
)

// The harness runs a server and clients in virtual time over a perfect
// in-memory network; tests intercept datagrams with the filter hook.

var (
	testProtocol = ProtocolID(0x1122334455667788)
	testServer   = netip.MustParseAddrPort("10.0.0.1:40000")
	testEpoch    = time.Unix(1700000000, 0)
)

// seeded returns a deterministic random source for keys and nonces.
func seeded(seed uint64) *rand.ChaCha8 {
	var s [32]byte
	s[0] = byte(seed)
	s[1] = byte(seed >> 8)
	return rand.NewChaCha8(s)
}

type harness struct {
	t       testing.TB
	now     time.Time
	key     Key
	server  *Server
	clients []*Client
	addrs   []netip.AddrPort
	// filter sees every datagram; returning false drops it.
	filter func(d *Datagram, toServer bool, from netip.AddrPort) bool
}

func newHarness(t testing.TB, maxClients int) *harness {
	t.Helper()
	h := &harness{t: t, now: testEpoch}
	h.key[0] = 0x42
	cfg := DefaultServerConfig()
	cfg.ProtocolID = testProtocol
	cfg.PrivateKey = h.key
	cfg.PublicAddress = testServer
	cfg.MaxClients = maxClients
	s, err := NewServer(cfg, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	h.server = s
	return h
}

// token issues a connect token for client id: the same bytes for the
// same id at the same second.
func (h *harness) token(id ClientID, timeoutSeconds int32) *ConnectToken {
	h.t.Helper()
	return h.tokenSeeded(id, timeoutSeconds, uint64(id)+100)
}

// tokenSeeded issues a connect token for client id whose keys and nonce
// come from seed: another token for the same id.
func (h *harness) tokenSeeded(id ClientID, timeoutSeconds int32, seed uint64) *ConnectToken {
	h.t.Helper()
	p := DefaultTokenParams()
	p.ProtocolID = testProtocol
	p.ClientID = id
	p.ServerAddresses = []netip.AddrPort{testServer}
	p.TimeoutSeconds = timeoutSeconds
	p.UserData[0] = byte(id)
	tok, err := GenerateConnectToken(&p, h.now, &h.key, seeded(seed))
	if err != nil {
		h.t.Fatal(err)
	}
	return tok
}

// addClient creates a client at address 10.0.1.n and connects it with tok.
func (h *harness) addClient(tok *ConnectToken) *Client {
	h.t.Helper()
	c := NewClient(DefaultClientConfig())
	if err := c.Connect(h.now, tok); err != nil {
		h.t.Fatal(err)
	}
	h.clients = append(h.clients, c)
	n := len(h.clients)
	h.addrs = append(h.addrs, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(1 + n/256), byte(n)}), 50000))
	return c
}

// step advances time by dt, updates everyone and delivers every datagram
// (and the answers they cause) until the network is quiet.
func (h *harness) step(dt time.Duration) {
	h.now = h.now.Add(dt)
	h.server.Update(h.now)
	for _, c := range h.clients {
		c.Update(h.now)
	}
	h.deliver()
}

func (h *harness) deliver() {
	for range 100 {
		moved := false
		for i, c := range h.clients {
			for _, d := range c.Send() {
				moved = true
				if h.filter == nil || h.filter(&d, true, h.addrs[i]) {
					h.server.Receive(h.now, h.addrs[i], d.Data)
				}
			}
		}
		for _, d := range h.server.Send() {
			moved = true
			for i, c := range h.clients {
				if h.addrs[i] == d.To && (h.filter == nil || h.filter(&d, false, testServer)) {
					c.Receive(h.now, testServer, d.Data)
				}
			}
		}
		if !moved {
			return
		}
	}
	h.t.Fatal("network never went quiet")
}

// run steps for total time d in 10 ms steps.
func (h *harness) run(d time.Duration) {
	for range int(d / (10 * time.Millisecond)) {
		h.step(10 * time.Millisecond)
	}
}

func (h *harness) connectAll() {
	h.t.Helper()
	h.run(500 * time.Millisecond)
	for i, c := range h.clients {
		if c.State() != StateConnected {
			h.t.Fatalf("client %d is %v, want connected", i, c.State())
		}
	}
}
