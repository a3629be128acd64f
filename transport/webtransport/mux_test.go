package webtransport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	wt "github.com/quic-go/webtransport-go"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/webtransport/carrier"
)

var (
	testProtocol = netcode.ProtocolID(0x6e65747068797321)
	testKey      = netcode.Key{7, 7, 7}
	quiet        = slog.New(slog.NewTextHandler(io.Discard, nil))
)

// loopbackMux starts a Mux over a loopback UDP socket, its endpoint on a
// loopback port of its own, logging nowhere.
func loopbackMux(t *testing.T, cfg Config) *Mux {
	t.Helper()
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr, cfg.Logger = "127.0.0.1:0", quiet
	mux, err := NewMux(udp, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return mux
}

// startEcho serves netcode on a Mux over a loopback UDP socket and echoes
// every payload back.
func startEcho(t *testing.T) (*transport.Server, *Mux) {
	t.Helper()
	mux := loopbackMux(t, Config{})
	cfg := transport.DefaultServerConfig()
	cfg.Netcode.ProtocolID = testProtocol
	cfg.Netcode.PrivateKey = testKey
	cfg.Netcode.MaxClients = 4
	cfg.Logger = quiet
	var srv *transport.Server
	ready := make(chan struct{})
	cfg.OnPayload = func(i netcode.ClientIndex, b []byte) {
		<-ready
		if err := srv.SendPayload(i, b); err != nil {
			t.Errorf("echo to %d: %v", i, err)
		}
	}
	srv, err := transport.NewServer(mux, cfg)
	close(ready)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, mux
}

func testToken(t testing.TB, srv netip.AddrPort, id uint64, key netcode.Key) *netcode.ConnectToken {
	t.Helper()
	p := netcode.DefaultTokenParams()
	p.ProtocolID = testProtocol
	p.ClientID = netcode.ClientID(id)
	p.ServerAddresses = []netip.AddrPort{srv}
	tok, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// dialSession opens a WebTransport session to mux as a page would: the
// URL and the certificate's hash from its Info.
func dialSession(t *testing.T, ctx context.Context, mux *Mux) *wt.Session {
	t.Helper()
	info := mux.Info("127.0.0.1:1")
	want, err := base64.StdEncoding.DecodeString(info.CertHash)
	if err != nil {
		t.Fatal(err)
	}
	tr := &wt.Transport{
		TLSClientConfig: &tls.Config{
			InsecureSkipVerify: true, // verified below by hash, as serverCertificateHashes does
			VerifyConnection: func(st tls.ConnectionState) error {
				if len(st.PeerCertificates) == 0 {
					return errors.New("no certificate")
				}
				if h := sha256.Sum256(st.PeerCertificates[0].Raw); !bytes.Equal(h[:], want) {
					return fmt.Errorf("certificate hash %x, want %x", h, want)
				}
				return nil
			},
		},
		QUICConfig: &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true},
	}
	t.Cleanup(func() { tr.Close() })
	rsp, s, err := tr.Dial(ctx, info.URL, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", info.URL, err)
	}
	if rsp.StatusCode != 200 {
		t.Fatalf("dial %s: status %d", info.URL, rsp.StatusCode)
	}
	return s
}

// browserClient is a netcode client over a WebTransport session, as the
// tab runs it: the carrier Conn under the unchanged client driver. sent
// keeps a copy of every datagram it sent, for the replay test.
type browserClient struct {
	*transport.Client
	conn *carrier.Conn
	mu   sync.Mutex
	sent [][]byte
	got  chan []byte
}

func dialBrowser(t *testing.T, ctx context.Context, mux *Mux, s *wt.Session, tok *netcode.ConnectToken) *browserClient {
	t.Helper()
	bc := &browserClient{got: make(chan []byte, 64)}
	bc.conn = carrier.New(func(b []byte) error {
		bc.mu.Lock()
		bc.sent = append(bc.sent, append([]byte(nil), b...))
		bc.mu.Unlock()
		return s.SendDatagram(b)
	}, tok.ServerAddresses[0])
	go func() {
		for {
			b, err := s.ReceiveDatagram(context.Background())
			if err != nil {
				return
			}
			bc.conn.Deliver(b)
		}
	}()
	cfg := transport.DefaultClientConfig()
	cfg.Logger = quiet
	cfg.OnPayload = func(b []byte) { bc.got <- b }
	c, err := transport.NewClient(bc.conn, tok, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	bc.Client = c
	if err := c.WaitConnected(ctx); err != nil {
		t.Fatalf("browser client: %v", err)
	}
	return bc
}

// TestBrowserAndUDPClientsShareAServer: a netcode client over WebTransport
// and one over UDP connect to the same server with tokens for its UDP
// address, and both get their payloads echoed.
func TestBrowserAndUDPClientsShareAServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv, mux := startEcho(t)
	udpGot := make(chan []byte, 64)
	ucfg := transport.DefaultClientConfig()
	ucfg.Logger = quiet
	ucfg.OnPayload = func(b []byte) { udpGot <- b }
	uc, err := transport.Dial(testToken(t, srv.Addr(), 1, testKey), ucfg)
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	if err := uc.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	bc := dialBrowser(t, ctx, mux, dialSession(t, ctx, mux), testToken(t, srv.Addr(), 2, testKey))

	const messages = 20
	for k := range messages {
		if err := uc.SendPayload(fmt.Appendf(nil, "udp %d", k)); err != nil {
			t.Fatal(err)
		}
		if err := bc.SendPayload(fmt.Appendf(nil, "browser %d", k)); err != nil {
			t.Fatal(err)
		}
	}
	for name, got := range map[string]chan []byte{"udp": udpGot, "browser": bc.got} {
		seen := map[string]bool{}
		for len(seen) < messages {
			select {
			case b := <-got:
				seen[string(b)] = true
			case <-ctx.Done():
				t.Fatalf("%s client: %d of %d echoes", name, len(seen), messages)
			}
		}
		for k := range messages {
			if !seen[fmt.Sprintf("%s %d", name, k)] {
				t.Errorf("%s client: no echo of payload %d", name, k)
			}
		}
	}
	i := bc.ClientIndex()
	if id := srv.ClientID(i); id != 2 {
		t.Errorf("browser slot %d has client id %d, want 2", i, id)
	}
	st := mux.Stats()
	if st.SessionsAccepted != 1 || st.SessionsOpen != 1 || st.DatagramsIn == 0 || st.DatagramsOut == 0 {
		t.Errorf("mux stats %+v: want one session open, datagrams both ways", st)
	}
	if d := srv.Stats().Dropped(); d != 0 {
		t.Errorf("the netcode server dropped %d packets of honest clients", d)
	}
}

// TestHostileBrowserDatagrams: over a WebTransport session, a forged
// packet, a replayed one, an empty datagram and a connection request with
// a token sealed under another key are all dropped and counted, and the
// honest client on the same session goes on.
func TestHostileBrowserDatagrams(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv, mux := startEcho(t)
	s := dialSession(t, ctx, mux)
	bc := dialBrowser(t, ctx, mux, s, testToken(t, srv.Addr(), 3, testKey))

	// An honest payload, whose packet is then replayed.
	if err := bc.SendPayload([]byte("honest")); err != nil {
		t.Fatal(err)
	}
	waitEcho(t, ctx, bc, "honest")
	bc.mu.Lock()
	replay := bc.sent[len(bc.sent)-1]
	bc.mu.Unlock()
	before := srv.Stats()
	// A well-formed payload packet with a fresh sequence, sealed under a
	// key the forger made up.
	forged, err := netcode.NewPacketKey(testProtocol, &netcode.Key{5}).Seal(nil, netcode.PacketPayload, 1<<40, []byte("forged"))
	if err != nil {
		t.Fatal(err)
	}
	req := netcode.NewRequestPacket(testToken(t, srv.Addr(), 4, netcode.Key{9})).Append(nil)
	for _, d := range [][]byte{replay, forged, {}, req} {
		if err := s.SendDatagram(d); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, ctx, func() string {
		return fmt.Sprintf("the hostile datagrams counted: netcode %v, mux %+v", srv.Stats().Drops, mux.Stats())
	}, func() bool {
		st := srv.Stats()
		return st.Drops[netcode.DropReplayed] > before.Drops[netcode.DropReplayed] &&
			st.Drops[netcode.DropDecrypt] > before.Drops[netcode.DropDecrypt] &&
			st.Drops[netcode.DropTokenInvalid] > before.Drops[netcode.DropTokenInvalid] &&
			mux.Stats().DroppedSize == 1
	})
	if err := bc.SendPayload([]byte("still here")); err != nil {
		t.Fatal(err)
	}
	waitEcho(t, ctx, bc, "still here")
}

func waitEcho(t *testing.T, ctx context.Context, bc *browserClient, want string) {
	t.Helper()
	for {
		select {
		case b := <-bc.got:
			if string(b) == want {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no echo of %q", want)
		}
	}
}

// waitFor waits until ok holds; what says what was awaited and what was seen.
func waitFor(t *testing.T, ctx context.Context, what func() string, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s", what())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestPushBounds: a datagram longer than a netcode packet is dropped
// before it is queued, and one session cannot hold more than its share
// of the queue.
func TestPushBounds(t *testing.T) {
	mux := loopbackMux(t, Config{})
	defer mux.Close()
	ses := &session{addr: sessionAddr(1)}
	if !IsBrowserAddr(ses.addr) || IsBrowserAddr(netip.MustParseAddrPort("[::1]:443")) || IsBrowserAddr(netip.MustParseAddrPort("1.0.0.1:443")) {
		t.Fatal("IsBrowserAddr misclassifies")
	}
	mux.push(ses, make([]byte, netcode.MaxPacketBytes+1))
	for range sessionQueueLen + 5 {
		mux.push(ses, []byte{1})
	}
	st := mux.Stats()
	if st.DroppedSize != 1 || st.DroppedQueueFull != 5 || st.DatagramsIn != sessionQueueLen {
		t.Errorf("stats %+v: want 1 dropped for size, 5 for the session's share, %d queued", st, sessionQueueLen)
	}
	b := make([]byte, 16)
	n, from, err := mux.ReadFromUDPAddrPort(b)
	if err != nil || n != 1 || from != ses.addr || !IsBrowserAddr(from) {
		t.Errorf("read %d bytes from %v (err %v), want 1 from %v", n, from, err, ses.addr)
	}
}

// TestMaxSessions: with MaxSessions open, the next session is refused
// (503) and counted; once one closes, a new one is accepted.
func TestMaxSessions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	mux := loopbackMux(t, Config{MaxSessions: 1})
	defer mux.Close()
	first := dialSession(t, ctx, mux)
	waitFor(t, ctx, func() string { return fmt.Sprintf("the first session accepted: %+v", mux.Stats()) }, func() bool {
		return mux.Stats().SessionsAccepted == 1
	})
	info := mux.Info("127.0.0.1:1")
	tr := &wt.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the refusal is what this dial checks
		QUICConfig:      &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true},
	}
	defer tr.Close()
	rsp, _, err := tr.Dial(ctx, info.URL, nil)
	if err == nil || rsp == nil || rsp.StatusCode != 503 {
		t.Fatalf("a second session: response %v, err %v; want 503", rsp, err)
	}
	if st := mux.Stats(); st.SessionsRefused != 1 || st.SessionsOpen != 1 {
		t.Errorf("stats %+v: want one refused, one open", st)
	}
	first.CloseWithError(0, "")
	waitFor(t, ctx, func() string { return fmt.Sprintf("the first session gone: %+v", mux.Stats()) }, func() bool {
		return mux.Stats().SessionsOpen == 0
	})
	dialSession(t, ctx, mux)
	waitFor(t, ctx, func() string { return fmt.Sprintf("a new session accepted: %+v", mux.Stats()) }, func() bool {
		return mux.Stats().SessionsAccepted == 2
	})
}
