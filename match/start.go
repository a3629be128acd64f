package match

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
)

// Running is a Serve on a goroutine of its own (Start): where its players
// reach it, the connect tokens it accepts, and its end.
type Running struct {
	addr     netip.AddrPort
	key      netcode.Key
	protocol netcode.ProtocolID
	stop     context.CancelFunc
	done     chan struct{}
	summary  Summary // Serve's, once done is closed
	err      error
}

// Start hosts a model's server as Serve does, on a goroutine of its own,
// until ctx ends or Stop. What cfg leaves unset it chooses: without Conn,
// a UDP socket on 127.0.0.1 (any free port); with a zero Server,
// udpdrive.DefaultServerConfig(); without a private key, a random one.
// The tokens Token issues then list the server's public address (its
// socket's unless Server names another) and carry its protocol id.
//
// A server on a machine of its own keeps its key with the backend that
// issues the tokens (package transport/tokenservice, `netphys token`) and
// calls Serve; Start is for a game that hosts and plays in one program,
// and for tests.
func Start(ctx context.Context, cfg ServeConfig) (*Running, error) {
	if cfg.Server.Transport.Tick == 0 {
		key := cfg.Server.Transport.Netcode.PrivateKey
		cfg.Server = udpdrive.DefaultServerConfig()
		cfg.Server.Transport.Netcode.PrivateKey = key
	}
	nc := &cfg.Server.Transport.Netcode
	if nc.PrivateKey == (netcode.Key{}) {
		if _, err := rand.Read(nc.PrivateKey[:]); err != nil {
			return nil, err
		}
	}
	if cfg.Conn == nil {
		conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			return nil, fmt.Errorf("match: binding the server's socket: %w", err)
		}
		cfg.Conn = conn
	}
	addr := nc.PublicAddress
	if !addr.IsValid() {
		a, ok := cfg.Conn.LocalAddr().(*net.UDPAddr)
		if !ok {
			cfg.Conn.Close()
			return nil, fmt.Errorf("match: the server's socket is bound to %v, not a UDP address: set Server.Transport.Netcode.PublicAddress", cfg.Conn.LocalAddr())
		}
		addr = a.AddrPort()
	}
	ctx, stop := context.WithCancel(ctx)
	r := &Running{addr: addr, key: nc.PrivateKey, protocol: nc.ProtocolID, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.summary, r.err = Serve(ctx, cfg)
	}()
	return r, nil
}

// Addr is the address the server's players reach it at.
func (r *Running) Addr() netip.AddrPort { return r.addr }

// Token issues the connect token of player clientID (any number a player
// of the server does not share, not 0), valid for netcode's default
// expiry from now (30 s to connect).
func (r *Running) Token(clientID uint64) (*netcode.ConnectToken, error) {
	p := netcode.DefaultTokenParams()
	p.ProtocolID = r.protocol
	p.ClientID = netcode.ClientID(clientID)
	p.ServerAddresses = []netip.AddrPort{r.addr}
	return netcode.GenerateConnectToken(&p, time.Now(), &r.key, nil)
}

// Done is closed once Serve has returned: its ctx ended, Stop was called,
// or it failed (Stop then returns why).
func (r *Running) Done() <-chan struct{} { return r.done }

// Stop ends Serve, waits for it, and returns what it returned: the
// summary of its last match, and its error, nil for a clean end.
func (r *Running) Stop() (Summary, error) {
	r.stop()
	<-r.done
	return r.summary, r.err
}
