package main

import (
	"context"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
)

// TestEchoStatsCountsOnlyOwnEchoes: payloads the server sends on its own
// (another size, a sequence not sent, altered bytes) are foreign, not
// round trips; a repeated echo is a duplicate.
func TestEchoStatsCountsOnlyOwnEchoes(t *testing.T) {
	e := &echoStats{start: time.Now(), size: 32, seen: map[uint64]bool{}}
	sent := make([][]byte, 3)
	for i := range sent {
		sent[i] = make([]byte, 32)
		e.payload(sent[i], uint64(i))
	}
	e.receive(sent[1])
	e.receive(sent[1])
	e.receive(make([]byte, 20)) // another size
	future := append([]byte(nil), sent[2]...)
	future[0] = 9 // a sequence never sent
	e.receive(future)
	altered := append([]byte(nil), sent[0]...)
	altered[20] ^= 1
	e.receive(altered)
	stamp := append([]byte(nil), sent[0]...)
	stamp[8] ^= 1 // the send time: would make up a round trip
	e.receive(stamp)
	if len(e.rtts) != 1 || e.dups != 1 || e.bad != 4 {
		t.Fatalf("%d echoes, %d duplicates, %d foreign; want 1, 1, 4", len(e.rtts), e.dups, e.bad)
	}
	if e.rtts[0] < 0 {
		t.Fatalf("negative round trip %v", e.rtts[0])
	}
}

func TestConnectRefusesAnExpiredToken(t *testing.T) {
	now := time.Unix(1800000000, 0)
	tok := &netcode.ConnectToken{CreateTimestamp: uint64(now.Unix()) - 40, ExpireTimestamp: uint64(now.Unix()) - 10}
	err := checkExpiry(tok, now)
	if err == nil || !strings.Contains(err.Error(), "expired") || !strings.Contains(err.Error(), "10s ago") {
		t.Fatalf("expired token: %v", err)
	}
	tok.ExpireTimestamp = uint64(now.Unix()) + 1
	if err := checkExpiry(tok, now); err != nil {
		t.Fatal(err)
	}
}

// TestConnectSaysWhatWentWrong: a token of another key, and a port where
// nothing listens, end in messages that say so rather than in a deadline.
// Tokens with a 1 s timeout keep it short.
func TestConnectSaysWhatWentWrong(t *testing.T) {
	key := strings.Repeat("ab", 32)
	srv, err := transport.ListenServer("127.0.0.1:0", func() transport.ServerConfig {
		cfg := transport.DefaultServerConfig()
		cfg.Netcode.ProtocolID = 0x315359485054454e
		cfg.Netcode.PrivateKey = netcode.Key{1}
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		return cfg
	}())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() }) // after the parallel subtests
	for _, tt := range []struct{ name, server, want string }{
		{"wrong key", srv.Addr().String(), "private key"},
		{"nothing listens", freeAddrs(t, "udp", 1)[0], "nothing listens at"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var tok strings.Builder
			if err := run(context.Background(), []string{"token", "--key", key, "--servers", tt.server, "--timeout", "1"}, &tok); err != nil {
				t.Fatal(err)
			}
			err := run(context.Background(), []string{"connect", "--token", tok.String()}, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("connect: %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// TestCommandsRefuseAnExpiredToken: connect and play read their token the
// same way, and both say it expired instead of timing out.
func TestCommandsRefuseAnExpiredToken(t *testing.T) {
	p := netcode.DefaultTokenParams()
	p.ServerAddresses = []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:1")}
	tok, err := netcode.GenerateConnectToken(&p, time.Now().Add(-time.Hour), &netcode.Key{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, err := transport.EncodeToken(tok)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"connect", "--token", text}, {"play", "--bot", "--http", "", "--token", text}} {
		if err := run(context.Background(), args, io.Discard); err == nil || !strings.Contains(err.Error(), "expired") {
			t.Errorf("%s: %v, want the token expired", args[0], err)
		}
	}
}
