package transport_test

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
)

// A server that echoes payloads, and a client that connects to it over UDP
// on the loopback interface with a token issued for it.
func Example() {
	key := netcode.Key{1, 2, 3} // shared by the token issuer and the servers
	const protocol = netcode.ProtocolID(0x315359485054454e)

	cfg := transport.DefaultServerConfig()
	cfg.Netcode.ProtocolID = protocol
	cfg.Netcode.PrivateKey = key
	var srv *transport.Server
	cfg.OnPayload = func(i netcode.ClientIndex, b []byte) { _ = srv.SendPayload(i, b) }
	srv, err := transport.ListenServer("127.0.0.1:0", cfg)
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	p := netcode.DefaultTokenParams()
	p.ProtocolID = protocol
	p.ClientID = 42
	p.ServerAddresses = []netip.AddrPort{srv.Addr()}
	token, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
	if err != nil {
		panic(err)
	}

	echoes := make(chan string, 1)
	ccfg := transport.DefaultClientConfig()
	ccfg.OnPayload = func(b []byte) {
		select {
		case echoes <- string(b):
		default: // an echo of a resent ping
		}
	}
	client, err := transport.Dial(token, ccfg)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := client.WaitConnected(ctx); err != nil {
		panic(err)
	}
	fmt.Println("connected as client", client.ClientIndex())
	for {
		// Loopback can drop a datagram: resend until the echo is back.
		if err := client.SendPayload([]byte("ping")); err != nil {
			panic(err)
		}
		select {
		case e := <-echoes:
			fmt.Println("echo:", e)
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	// Output:
	// connected as client 0
	// echo: ping
}
