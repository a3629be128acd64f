package tokenservice_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/metrics"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

var (
	testProtocol = netcode.ProtocolID(0x6e65747068797321)
	testKey      = netcode.Key{7, 7, 7}
	quiet        = slog.New(slog.NewTextHandler(io.Discard, nil))
)

func startEchoServer(t *testing.T, maxClients int) *transport.Server {
	t.Helper()
	cfg := transport.DefaultServerConfig()
	cfg.Netcode.ProtocolID = testProtocol
	cfg.Netcode.PrivateKey = testKey
	cfg.Netcode.MaxClients = maxClients
	cfg.Logger = quiet
	srv, err := transport.ListenServer("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestHandlerAndMetrics runs the backend a game would: tokens over HTTP,
// a client that connects with one, and the server's metrics.
func TestHandlerAndMetrics(t *testing.T) {
	srv := startEchoServer(t, 4)
	defer srv.Close()
	th := &tokenservice.Handler{
		Params:     netcode.DefaultTokenParams(),
		PrivateKey: testKey,
		Logger:     quiet,
		Authenticate: func(r *http.Request) (uint64, []byte, error) {
			if r.Header.Get("Authorization") != "Bearer player-9" {
				return 0, nil, fmt.Errorf("unknown player")
			}
			return 9, []byte("team=red"), nil
		},
	}
	th.Params.ProtocolID = testProtocol
	th.Params.ServerAddresses = []netip.AddrPort{srv.Addr()}
	mux := http.NewServeMux()
	mux.Handle("/token", th)
	mux.Handle("/metrics", metrics.Handler(srv))
	web := httptest.NewServer(mux)
	defer web.Close()

	if resp, err := http.Get(web.URL + "/token"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("anonymous token request: %v %v", resp.StatusCode, err)
	}
	req, _ := http.NewRequest(http.MethodPost, web.URL+"/token", nil)
	req.Header.Set("Authorization", "Bearer player-9")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("token request: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	tok, err := transport.DecodeToken(body)
	if err != nil {
		t.Fatal(err)
	}
	cfg := transport.DefaultClientConfig()
	cfg.Logger = quiet
	c, err := transport.Dial(tok, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	ud, ok := srv.ClientUserData(c.ClientIndex())
	gotUser := strings.TrimRight(string(ud[:]), "\x00")
	id := srv.ClientID(c.ClientIndex())
	if !ok || gotUser != "team=red" || id != 9 {
		t.Fatalf("server sees client %d with user data %q", id, gotUser)
	}

	resp, err = http.Get(web.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		"netphys_netcode_clients_connected 1",
		`netphys_netcode_dropped_packets_total{reason="replayed"} 0`,
		"netphys_netcode_max_clients 4",
		`netphys_netcode_packets_total{direction="received"}`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Fatalf("metrics lack %q:\n%s", want, metrics)
		}
	}
}
