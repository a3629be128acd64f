package cubegames

import (
	"context"
	"flag"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
)

var quiet = slog.New(slog.DiscardHandler)

// modelSides declares the commands' flags with defaults d, parses args
// and returns what a command would build from them.
func modelSides(t *testing.T, d match.Defaults, args ...string) (*match.Model, match.Sides, match.Setup) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := match.DeclareFlags(fs, d)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	m, s, err := f.Sides()
	if err != nil {
		t.Fatal(err)
	}
	setup, err := f.Setup(quiet)
	if err != nil {
		t.Fatal(err)
	}
	return m, s, setup
}

// headlessDemo runs the demo with cfg, logs its summary, fails the test
// on an error, and requires the summary to contain every one of want.
func headlessDemo(t *testing.T, cfg match.DemoConfig, want ...string) string {
	t.Helper()
	s, err := match.Demo(context.Background(), cfg)
	var out strings.Builder
	s.Print(&out)
	t.Logf("\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("summary lacks %q", w)
		}
	}
	return out.String()
}

// lockedBuffer is a strings.Builder for one goroutine to write and
// another to read.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// loopbackServe is Serve on a loopback UDP socket of its own, for the
// tests: token issues a client's connect token for it, stop ends it and
// done then receives Serve's error.
type loopbackServe struct {
	addr netip.AddrPort
	key  netcode.Key
	stop context.CancelFunc
	done chan error
}

// startServe runs Serve with cfg (its Conn and Server set here) until
// the test ends or stop.
func startServe(t *testing.T, cfg match.ServeConfig) *loopbackServe {
	t.Helper()
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	l := &loopbackServe{addr: conn.LocalAddr().(*net.UDPAddr).AddrPort(), key: netcode.Key{9}, stop: stop, done: make(chan error, 1)}
	cfg.Conn = conn
	cfg.Server = udpdrive.DefaultServerConfig()
	cfg.Server.Transport.Netcode.PrivateKey = l.key
	go func() {
		_, err := match.Serve(ctx, cfg)
		l.done <- err
	}()
	return l
}

// token is client id's connect token for the server.
func (l *loopbackServe) token(t *testing.T, id int) *netcode.ConnectToken {
	t.Helper()
	p := netcode.DefaultTokenParams()
	p.ClientID = netcode.ClientID(id)
	p.ServerAddresses = []netip.AddrPort{l.addr}
	tok, err := netcode.GenerateConnectToken(&p, time.Now(), &l.key, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
