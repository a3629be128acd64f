package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/netsim/proxy"
	"github.com/netphys/netphys/transport/reliable"
)

// The end-to-end test of issue 3: 64 netcode clients connect over real
// UDP on 127.0.0.1 through the network simulator's proxy, at 25 % loss
// and 250 ms one-way latency, and exchange payloads carrying reliable.io
// headers. The acks each side reports are checked against what the other
// side actually delivered, tracked by payload content.

const (
	e2eClients  = 64
	e2eLatency  = 250 * time.Millisecond
	e2eLoss     = 0.25
	e2eInterval = 20 * time.Millisecond // one packet per client every interval
)

var (
	e2eProtocol = netcode.ProtocolID(0x72656c6e65747369) // "relnetsi"
	e2eKey      = netcode.Key{42, 1, 2, 3}
	e2eQuiet    = slog.New(slog.NewTextHandler(io.Discard, nil))
)

// ledger holds the reliable endpoints of both sides with the test's
// bookkeeping. One mutex guards it all: the drivers' goroutines receive
// while the test goroutine sends, and checking an ack needs both sides.
type ledger struct {
	mu       sync.Mutex
	problems []string // violations seen on the drivers' goroutines
}

// ackBook is one reliable endpoint and what it sent, acked and delivered.
type ackBook struct {
	e       *reliable.Endpoint
	name    string
	next    int                       // number of the next payload sent
	carried map[reliable.Sequence]int // payload number of each sent sequence (newest)
	acked   map[int]bool
	arrived map[int]bool // payload numbers from the peer delivered here
}

func newAckBook(t *testing.T, name string) *ackBook {
	e, err := reliable.NewEndpoint(reliable.DefaultConfig(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return &ackBook{e: e, name: name, carried: map[reliable.Sequence]int{}, acked: map[int]bool{}, arrived: map[int]bool{}}
}

// send builds b's next packet, "name:number", and returns its datagrams,
// copied so that they can be written after the lock is released. Every
// eighth packet is padded to 2500 bytes and so travels as 3 fragments,
// all of which must arrive for the packet to.
func (l *ledger) send(b *ackBook) [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	payload := fmt.Appendf(nil, "%s:%d;", b.name, b.next)
	if b.next%8 == 7 {
		payload = append(payload, bytes.Repeat([]byte{'.'}, 2500-len(payload))...)
	}
	seq, dgs, err := b.e.SendPacket(time.Now(), payload)
	if err != nil {
		l.problems = append(l.problems, fmt.Sprintf("%s: send: %v", b.name, err))
		return nil
	}
	b.carried[seq] = b.next
	b.next++
	return cloneDatagrams(dgs)
}

// cloneDatagrams copies what SendPacket returned, which the endpoint
// reuses on its next SendPacket.
func cloneDatagrams(dgs [][]byte) [][]byte {
	out := make([][]byte, len(dgs))
	for i, d := range dgs {
		out[i] = bytes.Clone(d)
	}
	return out
}

// receive processes a datagram from peer at b and checks the acks it
// brings: each must name a payload the peer delivered, once.
func (l *ledger) receive(b, peer *ackBook, d []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, payload, err := b.e.ReceivePacket(time.Now(), d)
	if err != nil && !errors.Is(err, reliable.ErrStale) {
		l.problems = append(l.problems, fmt.Sprintf("%s: receive: %v", b.name, err))
		return
	}
	if payload != nil {
		var n int
		if _, err := fmt.Sscanf(string(payload), peer.name+":%d;", &n); err != nil {
			l.problems = append(l.problems, fmt.Sprintf("%s: payload %q is not from %s", b.name, payload, peer.name))
		} else if b.arrived[n] {
			l.problems = append(l.problems, fmt.Sprintf("%s: %q delivered twice", b.name, payload))
		}
		b.arrived[n] = true
	}
	for _, seq := range b.e.Acks() {
		n := b.carried[seq]
		switch {
		case b.acked[n]:
			l.problems = append(l.problems, fmt.Sprintf("%s: packet %d acked twice", b.name, n))
		case !peer.arrived[n]:
			l.problems = append(l.problems, fmt.Sprintf("%s: packet %d acked, never delivered to %s", b.name, n, peer.name))
		}
		b.acked[n] = true
	}
	b.e.ClearAcks()
}

// mismatches returns the first of b's payloads numbered below settled
// whose acked state differs from their delivery at the peer, up to max,
// and how many of them were delivered. l.mu is held.
func (b *ackBook) mismatches(peer *ackBook, settled, max int) (bad []int, delivered int) {
	for n := range settled {
		if peer.arrived[n] != b.acked[n] && len(bad) < max {
			bad = append(bad, n)
		}
		if peer.arrived[n] {
			delivered++
		}
	}
	return bad, delivered
}

func TestReliableOverNetcodeThroughNetsim(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()

	// The server's socket first: the proxy forwards to it, and the
	// server must know the proxy's address, which the tokens name.
	serverConn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	rough := netsim.Conditions{Latency: e2eLatency, Jitter: 10 * time.Millisecond, Loss: e2eLoss}
	px, err := proxy.Listen(proxy.Config{
		Listen: "127.0.0.1:0", Forward: serverConn.LocalAddr().String(), Seed: 3, Conditions: rough,
	})
	if err != nil {
		t.Fatal(err)
	}
	proxyDone := make(chan error, 1)
	proxyCtx, stopProxy := context.WithCancel(context.Background())
	go func() { proxyDone <- px.Run(proxyCtx) }()
	defer func() {
		stopProxy()
		if err := <-proxyDone; err != nil {
			t.Errorf("proxy: %v", err)
		}
	}()

	// One book per client on each side, by client id (the token's).
	// The server answers every packet with one of its own.
	var (
		l           ledger
		serverBooks [e2eClients]*ackBook
		clientBooks [e2eClients]*ackBook
		srvMu       sync.Mutex // guards srv and ids, set on other goroutines
		srv         *Server
		ids         = map[netcode.ClientIndex]int{}
	)
	for id := range e2eClients {
		serverBooks[id] = newAckBook(t, fmt.Sprintf("server>%d", id))
		clientBooks[id] = newAckBook(t, fmt.Sprintf("client%d", id))
	}
	cfg := DefaultServerConfig()
	cfg.Logger = e2eQuiet
	cfg.Netcode.ProtocolID = e2eProtocol
	cfg.Netcode.PrivateKey = e2eKey
	cfg.Netcode.MaxClients = e2eClients
	cfg.Netcode.PublicAddress = px.Addr()
	cfg.OnConnect = func(i netcode.ClientIndex, id netcode.ClientID, _ *netcode.UserData) {
		srvMu.Lock()
		defer srvMu.Unlock()
		ids[i] = int(id)
	}
	cfg.OnPayload = func(i netcode.ClientIndex, payload []byte) {
		srvMu.Lock()
		id, s := ids[i], srv
		srvMu.Unlock()
		l.receive(serverBooks[id], clientBooks[id], payload)
		for _, d := range l.send(serverBooks[id]) {
			if err := s.SendPayload(i, d); err != nil && !errors.Is(err, ErrClosed) {
				t.Errorf("server send: %v", err)
			}
		}
	}
	srvMu.Lock()
	srv, err = NewServer(serverConn, cfg)
	srvMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	clients := make([]*Client, e2eClients)
	for id := range clients {
		p := netcode.DefaultTokenParams()
		p.ProtocolID = e2eProtocol
		p.ClientID = netcode.ClientID(id)
		p.ServerAddresses = []netip.AddrPort{px.Addr()}
		tok, err := netcode.GenerateConnectToken(&p, time.Now(), &e2eKey, nil)
		if err != nil {
			t.Fatal(err)
		}
		ccfg := DefaultClientConfig()
		ccfg.Logger = e2eQuiet
		ccfg.OnPayload = func(payload []byte) { l.receive(clientBooks[id], serverBooks[id], payload) }
		if clients[id], err = Dial(tok, ccfg); err != nil {
			t.Fatal(err)
		}
		defer clients[id].Close()
	}
	for id, c := range clients {
		if err := c.WaitConnected(ctx); err != nil {
			t.Fatalf("client %d: %v (proxy %+v)", id, err, px.Counters())
		}
	}

	// Every client sends a packet each interval: 2 s at 25 % loss, then
	// the network heals (the latency stays) for 0.5 s. The packets sent
	// until then are the settled ones: the traffic goes on, healthy,
	// until each side's acks account for every settled packet the other
	// side delivered. Acks may come late, never wrongly: a false ack is
	// caught as it arrives, a missing one keeps the loop waiting until
	// the deadline and fails the test.
	sendFor := func(d time.Duration) {
		tick := time.NewTicker(e2eInterval)
		defer tick.Stop()
		for end := time.Now().Add(d); time.Now().Before(end); <-tick.C {
			for id, c := range clients {
				for _, dg := range l.send(clientBooks[id]) {
					if err := c.SendPayload(dg); err != nil {
						t.Fatalf("client %d send: %v", id, err)
					}
				}
			}
		}
	}
	sendFor(2 * time.Second)
	if err := px.SetConditions(netsim.Conditions{Latency: e2eLatency}); err != nil {
		t.Fatal(err)
	}
	sendFor(500 * time.Millisecond)
	var settledClient, settledServer [e2eClients]int
	l.mu.Lock()
	for id := range e2eClients {
		settledClient[id], settledServer[id] = clientBooks[id].next, serverBooks[id].next
	}
	l.mu.Unlock()
	settled := func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		for id := range e2eClients {
			up, _ := clientBooks[id].mismatches(serverBooks[id], settledClient[id], 1)
			down, _ := serverBooks[id].mismatches(clientBooks[id], settledServer[id], 1)
			if len(up)+len(down) > 0 {
				return false
			}
		}
		return true
	}
	for start := time.Now(); !settled() && time.Since(start) < 15*time.Second; {
		sendFor(100 * time.Millisecond)
	}

	if n := srv.Stats().ClientsConnected; n != e2eClients {
		t.Fatalf("%d clients connected, want %d", n, e2eClients)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.problems {
		t.Error(p)
	}
	deliveredUp, sentUp := 0, 0
	for id := range e2eClients {
		for _, dir := range []struct {
			from, to *ackBook
			settled  int
		}{{clientBooks[id], serverBooks[id], settledClient[id]}, {serverBooks[id], clientBooks[id], settledServer[id]}} {
			bad, delivered := dir.from.mismatches(dir.to, dir.settled, 5)
			for _, n := range bad {
				t.Errorf("%s packet %d: delivered %v, acked %v", dir.from.name, n, dir.to.arrived[n], dir.from.acked[n])
			}
			if dir.from == clientBooks[id] {
				deliveredUp += delivered
				sentUp += dir.settled
			}
		}
		if t.Failed() {
			t.FailNow() // one client's report is enough
		}
	}
	// A quarter of the datagrams of the first 2 s was lost, more of the
	// fragmented packets, none after.
	if lost := 1 - float64(deliveredUp)/float64(sentUp); lost < 0.05 || lost > 0.4 {
		t.Errorf("%.3f of %d client packets lost", lost, sentUp)
	}
	t.Logf("%d client packets settled, %d delivered; proxy %+v", sentUp, deliveredUp, px.Counters())
}
