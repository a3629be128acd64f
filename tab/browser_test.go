package tab

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/netphys/netphys/internal/browsertest"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
	"github.com/netphys/netphys/transport/webtransport"
)

var (
	testProtocol = netcode.ProtocolID(0x6e65747068797321)
	testKey      = netcode.Key{7, 7, 7}
	quiet        = slog.New(slog.NewTextHandler(io.Discard, nil))
)

// buildOnce builds the wasm program once per test binary.
var buildOnce = sync.OnceValues(func() (Program, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return Build(ctx, ".")
})

// tabState mirrors globalThis.__tabState.
type tabState struct {
	State           string         `json:"state"`
	Index           int            `json:"index"`
	Echoed          int            `json:"echoed"`
	Drops           map[string]int `json:"drops"` // the netcode client's, by reason
	CarrierDropped  int            `json:"carrierDropped"`
	MaxDatagramSize int            `json:"maxDatagramSize"`
	Fragments       struct {
		PacketsSplit       int `json:"packetsSplit"`
		FragmentsSent      int `json:"fragmentsSent"`
		FragmentsIn        int `json:"fragmentsIn"`
		PacketsReassembled int `json:"packetsReassembled"`
		FragmentsDropped   int `json:"fragmentsDropped"`
		PacketsLost        int `json:"packetsLost"`
	} `json:"fragments"` // the carrier's
	Error string `json:"error"`
}

// waitTab polls the tab's state until ok holds or the page reports an error.
func waitTab(t *testing.T, b *browsertest.Browser, what string, ok func(tabState) bool) tabState {
	t.Helper()
	for {
		st, err := chromedp.Run(b.Context(), chromedp.Evaluate[tabState](`globalThis.__tabState ?? {}`))
		if err == nil && st.Error != "" {
			t.Fatalf("waiting for %s: the tab failed: %s", what, st.Error)
		}
		if err == nil && ok(st) {
			return st
		}
		if b.Context().Err() != nil {
			t.Fatalf("waiting for %s: last state %+v, err %v; page says %q", what, st, err, b.Text("#status"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func waitFor(t *testing.T, ctx context.Context, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestTabEchoOverWebTransport: a tab gets a connect token from the token
// service, opens a WebTransport session to a netcode server whose socket
// is a Mux, connects with netcode in wasm and gets its payloads echoed:
// authenticated netcode payloads both ways, through the browser's
// datagrams.
func TestTabEchoOverWebTransport(t *testing.T) {
	prog, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	mux, err := webtransport.NewMux(udp, webtransport.Config{Addr: "127.0.0.1:0", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	cfg := transport.DefaultServerConfig()
	cfg.Netcode.ProtocolID = testProtocol
	cfg.Netcode.PrivateKey = testKey
	cfg.Netcode.MaxClients = 4
	cfg.Logger = quiet
	var (
		srv       *transport.Server
		mu        sync.Mutex
		connected = map[netcode.ClientIndex]netcode.ClientID{}
		left      = map[netcode.ClientIndex]bool{} // true: timed out
	)
	cfg.OnConnect = func(i netcode.ClientIndex, id netcode.ClientID, _ *netcode.UserData) {
		mu.Lock()
		connected[i] = id
		mu.Unlock()
	}
	cfg.OnDisconnect = func(i netcode.ClientIndex, timedOut bool) {
		mu.Lock()
		left[i] = timedOut
		mu.Unlock()
	}
	ready := make(chan struct{})
	cfg.OnPayload = func(i netcode.ClientIndex, b []byte) {
		<-ready
		if err := srv.SendPayload(i, b); err != nil {
			t.Errorf("echo to %d: %v", i, err)
		}
	}
	srv, err = transport.NewServer(mux, cfg)
	close(ready)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	const clientID = 4242
	tokens := &tokenservice.Handler{
		Params:     netcode.DefaultTokenParams(),
		PrivateKey: testKey,
		Authenticate: func(*http.Request) (uint64, []byte, error) {
			return clientID, nil, nil
		},
		Logger: quiet,
	}
	tokens.Params.ProtocolID = testProtocol
	tokens.Params.ServerAddresses = []netip.AddrPort{srv.Addr()}
	h, err := Handler(prog, tokens, mux.InfoHandler())
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(h)
	defer web.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	b := browsertest.Start(t, ctx, 640, 360)
	b.Open(web.URL + "/?mode=echo")
	st := waitTab(t, b, "every payload echoed", func(s tabState) bool { return s.Echoed == 20 })
	t.Logf("tab: %+v", st)
	if st.State != netcode.StateConnected.String() {
		t.Errorf("tab's netcode state %q, want %q", st.State, netcode.StateConnected)
	}
	i := netcode.ClientIndex(st.Index)
	waitFor(t, ctx, "the tab's disconnect", func() bool {
		mu.Lock()
		defer mu.Unlock()
		_, ok := left[i]
		return ok
	})
	mu.Lock()
	if id := connected[i]; id != clientID || len(connected) != 1 {
		t.Errorf("connects %v: want the tab in slot %d with the token's client id %d", connected, i, clientID)
	}
	if left[i] {
		t.Errorf("the tab timed out instead of disconnecting")
	}
	mu.Unlock()
	ms := mux.Stats()
	if ms.SessionsAccepted != 1 || ms.DatagramsIn == 0 || ms.DatagramsOut == 0 {
		t.Errorf("mux stats %+v: want one session, datagrams both ways", ms)
	}
	// Keep-alives in flight when the tab disconnected may arrive after it
	// left; nothing may fail authentication or replay.
	drops := srv.Stats().Drops
	for _, r := range []netcode.DropReason{netcode.DropMalformed, netcode.DropDecrypt, netcode.DropReplayed, netcode.DropTokenInvalid} {
		if drops[r] != 0 {
			t.Errorf("the server dropped %d packets of the tab as %v", drops[r], r)
		}
	}
	for _, r := range []netcode.DropReason{netcode.DropMalformed, netcode.DropDecrypt, netcode.DropReplayed} {
		if n := st.Drops[r.String()]; n != 0 {
			t.Errorf("the tab dropped %d packets of the server as %v", n, r)
		}
	}
	if st.CarrierDropped != 0 {
		t.Errorf("the tab's carrier dropped %d datagrams", st.CarrierDropped)
	}
	if st.MaxDatagramSize < 1000 {
		t.Errorf("the session's largest datagram is %d bytes", st.MaxDatagramSize)
	}
	// Half the payloads are of netcode's largest size: their packets,
	// over a browser's datagram, went in two fragments each way, and none
	// of the server's sends failed.
	const large = 10
	if ms.SendErrors != 0 {
		t.Errorf("%d of the server's sends to the tab failed", ms.SendErrors)
	}
	if f := ms.Fragments; f.PacketsSplit != large || f.FragmentsSent != 2*large || f.PacketsReassembled != large || f.FragmentsDropped != 0 || f.PacketsLost != 0 {
		t.Errorf("the server's fragments %+v: want the %d large packets each way in two fragments, none dropped or lost", f, large)
	}
	if f := st.Fragments; f.PacketsSplit != large || f.FragmentsSent != 2*large || f.PacketsReassembled != large || f.FragmentsDropped != 0 {
		t.Errorf("the tab's fragments %+v: want the %d large packets each way in two fragments", f, large)
	}
}
