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
