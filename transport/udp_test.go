package transport

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/netsim"
)

var (
	testProtocol = netcode.ProtocolID(0x6e65747068797321)
	testKey      = netcode.Key{7, 7, 7}
	quiet        = slog.New(slog.NewTextHandler(io.Discard, nil))
)

// startEchoServer serves on 127.0.0.1 and echoes every payload back.
func startEchoServer(t *testing.T, maxClients int) *Server {
	t.Helper()
	cfg := DefaultServerConfig()
	cfg.Netcode.ProtocolID = testProtocol
	cfg.Netcode.PrivateKey = testKey
	cfg.Netcode.MaxClients = maxClients
	cfg.Logger = quiet
	var srv *Server
	cfg.OnPayload = func(i netcode.ClientIndex, b []byte) {
		if err := srv.SendPayload(i, b); err != nil {
			t.Errorf("echo to %d: %v", i, err)
		}
	}
	srv, err := ListenServer("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func testToken(t testing.TB, srv netip.AddrPort, id uint64) *netcode.ConnectToken {
	t.Helper()
	p := netcode.DefaultTokenParams()
	p.ProtocolID = testProtocol
	p.ClientID = netcode.ClientID(id)
	p.ServerAddresses = []netip.AddrPort{srv}
	tok, err := netcode.GenerateConnectToken(&p, time.Now(), &testKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestUDPClientsExchangePayloads(t *testing.T) {
	const clients, messages = 6, 20
	srv := startEchoServer(t, 8)
	defer srv.Close()

	type received struct {
		sync.Mutex
		got []string
	}
	recv := make([]*received, clients)
	cs := make([]*Client, clients)
	for i := range cs {
		r := &received{}
		recv[i] = r
		cfg := DefaultClientConfig()
		cfg.Logger = quiet
		cfg.OnPayload = func(b []byte) {
			r.Lock()
			r.got = append(r.got, string(b))
			r.Unlock()
		}
		c, err := Dial(testToken(t, srv.Addr(), uint64(1000+i)), cfg)
		if err != nil {
			t.Fatal(err)
		}
		cs[i] = c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, c := range cs {
		if err := c.WaitConnected(ctx); err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	if n := srv.Stats().ClientsConnected; n != clients {
		t.Fatalf("server has %d clients, want %d", n, clients)
	}
	// Loopback rarely loses datagrams, but may under load: resend what is
	// missing until every echo is back, and require each exactly once.
	want := func(i, m int) string { return fmt.Sprintf("client %d message %d", i, m) }
	for round := 0; round < 50; round++ {
		missing := 0
		for i, c := range cs {
			recv[i].Lock()
			have := map[string]bool{}
			for _, s := range recv[i].got {
				have[s] = true
			}
			recv[i].Unlock()
			for m := range messages {
				if !have[want(i, m)] {
					missing++
					if err := c.SendPayload([]byte(want(i, m))); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if missing == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for i := range cs {
		recv[i].Lock()
		have := map[string]int{}
		for _, s := range recv[i].got {
			have[s]++
		}
		recv[i].Unlock()
		for m := range messages {
			if have[want(i, m)] < 1 {
				t.Fatalf("client %d never got %q back", i, want(i, m))
			}
		}
	}
	st := srv.Stats()
	if st.PayloadsReceived < clients*messages || st.Dropped() != st.Drops[netcode.DropAlreadyConnected] {
		t.Fatalf("server stats: %+v", st)
	}
	for _, c := range cs {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.Stats().ClientsConnected != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := srv.Stats().ClientsConnected; n != 0 {
		t.Fatalf("%d clients still connected after they closed", n)
	}
}

func TestUDPFullServerDenies(t *testing.T) {
	srv := startEchoServer(t, 1)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := DefaultClientConfig()
	cfg.Logger = quiet
	first, err := Dial(testToken(t, srv.Addr(), 1), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if err := first.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	second, err := Dial(testToken(t, srv.Addr(), 2), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if err := second.WaitConnected(ctx); err == nil || second.State() != netcode.StateDenied {
		t.Fatalf("second client: %v, state %v", err, second.State())
	}
}

// TestServer64ClientsVirtualTime runs the drivers, goroutines and all, on
// an in-memory network in virtual time: 64 clients connect over 20 ms
// links, each has 10 payloads echoed, then one client goes silent and the
// server times it out after the token's 5 s while the other 63 stay
// connected through the keep-alives, and the silent client times out in
// turn. About 11 s of protocol time.
func TestServer64ClientsVirtualTime(t *testing.T) {
	const clients, payloads = 64, 10
	vn := newVnet(t, netsim.Conditions{Latency: 20 * time.Millisecond})
	serverAddr := netip.MustParseAddrPort("10.0.0.1:40000")
	var (
		mu       sync.Mutex
		timedOut []netcode.ClientIndex
	)
	cfg := DefaultServerConfig()
	cfg.Netcode.ProtocolID, cfg.Netcode.PrivateKey, cfg.Netcode.MaxClients = testProtocol, testKey, clients
	cfg.Now, cfg.Logger = vn.Now, quiet
	var srv *Server
	cfg.OnPayload = func(i netcode.ClientIndex, b []byte) {
		if err := srv.SendPayload(i, b); err != nil {
			t.Errorf("echo to %d: %v", i, err)
		}
	}
	cfg.OnDisconnect = func(i netcode.ClientIndex, to bool) {
		mu.Lock()
		defer mu.Unlock()
		if to {
			timedOut = append(timedOut, i)
		}
	}
	srv, err := NewServer(vn.listen(serverAddr), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	echoes := make([][]string, clients)
	cs := make([]*Client, clients)
	addrs := make([]netip.AddrPort, clients)
	for i := range cs {
		p := netcode.DefaultTokenParams()
		p.ProtocolID, p.ClientID, p.TimeoutSeconds = testProtocol, netcode.ClientID(i+1), 5
		p.ServerAddresses = []netip.AddrPort{serverAddr}
		tok, err := netcode.GenerateConnectToken(&p, vn.Now(), &testKey, nil)
		if err != nil {
			t.Fatal(err)
		}
		ccfg := DefaultClientConfig()
		ccfg.Now, ccfg.Logger = vn.Now, quiet
		ccfg.OnPayload = func(b []byte) {
			mu.Lock()
			defer mu.Unlock()
			echoes[i] = append(echoes[i], string(b))
		}
		addrs[i] = netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 1, byte(i)}), 50000)
		if cs[i], err = NewClient(vn.listen(addrs[i]), tok, ccfg); err != nil {
			t.Fatal(err)
		}
		defer cs[i].Close()
	}
	vn.run(500 * time.Millisecond)
	for i, c := range cs {
		if c.State() != netcode.StateConnected {
			t.Fatalf("client %d is %v after 500 ms", i, c.State())
		}
	}

	for k := range payloads {
		for i, c := range cs {
			if err := c.SendPayload(fmt.Appendf(nil, "%d/%d", i, k)); err != nil {
				t.Fatal(err)
			}
		}
		vn.run(5 * time.Millisecond)
	}
	vn.run(100 * time.Millisecond)
	mu.Lock()
	for i := range cs {
		if len(echoes[i]) != payloads || echoes[i][0] != fmt.Sprintf("%d/0", i) || echoes[i][payloads-1] != fmt.Sprintf("%d/%d", i, payloads-1) {
			t.Errorf("client %d got echoes %q", i, echoes[i])
		}
	}
	mu.Unlock()

	silent := cs[7].ClientIndex()
	vn.blackhole(addrs[7])
	vn.run(5500 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(timedOut) != 1 || timedOut[0] != silent {
		t.Fatalf("server timed out slots %v, want only %d", timedOut, silent)
	}
	if st := srv.Stats(); st.ClientsConnected != clients-1 {
		t.Fatalf("%d clients connected, want %d", st.ClientsConnected, clients-1)
	}
	// The server's keep-alives stopped with the slot: the client times out
	// 5 s after the last one.
	mu.Unlock()
	vn.run(5 * time.Second)
	mu.Lock()
	if cs[7].State() != netcode.StateTimedOut {
		t.Fatalf("silent client is %v, want timed out", cs[7].State())
	}
}

// TestUDPQueuedPayloadsLeaveOnFlush: payloads queued for several clients
// (more than one batched write holds: the first batch leaves as it
// fills, the rest on Flush) all arrive, each client's in the order
// queued.
func TestUDPQueuedPayloadsLeaveOnFlush(t *testing.T) {
	const clients, each = 3, 30
	cfg := DefaultServerConfig()
	cfg.Netcode.ProtocolID = testProtocol
	cfg.Netcode.PrivateKey = testKey
	cfg.Netcode.MaxClients = clients
	cfg.Logger = quiet
	srv, err := ListenServer("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	got := make([]chan string, clients)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range clients {
		got[i] = make(chan string, each)
		ccfg := DefaultClientConfig()
		ccfg.Logger = quiet
		ccfg.OnPayload = func(b []byte) { got[i] <- string(b) }
		c, err := Dial(testToken(t, srv.Addr(), uint64(100+i)), ccfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.WaitConnected(ctx); err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	slot := map[netcode.ClientID]netcode.ClientIndex{}
	for i := range netcode.ClientIndex(clients) {
		slot[srv.ClientID(i)] = i
	}
	for m := range each {
		for i := range clients {
			if err := srv.QueuePayload(slot[netcode.ClientID(100+i)], fmt.Appendf(nil, "message %d", m)); err != nil {
				t.Fatal(err)
			}
		}
	}
	srv.Flush()
	for i := range clients {
		for m := range each {
			select {
			case s := <-got[i]:
				if want := fmt.Sprintf("message %d", m); s != want {
					t.Fatalf("client %d got %q, want %q", i, s, want)
				}
			case <-ctx.Done():
				t.Fatalf("client %d: message %d never came", i, m)
			}
		}
	}
	if err := srv.QueuePayload(netcode.ClientIndex(clients), []byte("x")); err == nil {
		t.Fatal("a payload queued for a slot past the last was taken")
	}
}
