package netcode_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/netphys/netphys/transport/netcode"
)

// A backend issues a token; a client and a server then connect in virtual
// time, with the datagrams passed by hand instead of over UDP.
func Example() {
	privateKey := netcode.Key{1, 2, 3} // shared by the backend and the servers
	serverAddr := netip.MustParseAddrPort("127.0.0.1:40000")
	clientAddr := netip.MustParseAddrPort("127.0.0.1:50000")
	now := time.Unix(1700000000, 0)

	params := netcode.DefaultTokenParams()
	params.ProtocolID = 0x1122334455667788
	params.ClientID = 42
	params.ServerAddresses = []netip.AddrPort{serverAddr}
	token, err := netcode.GenerateConnectToken(&params, now, &privateKey, nil)
	if err != nil {
		panic(err)
	}

	cfg := netcode.DefaultServerConfig()
	cfg.ProtocolID = params.ProtocolID
	cfg.PrivateKey = privateKey
	cfg.PublicAddress = serverAddr
	server, err := netcode.NewServer(cfg, nil)
	if err != nil {
		panic(err)
	}
	client := netcode.NewClient(netcode.DefaultClientConfig())
	if err := client.Connect(now, token); err != nil {
		panic(err)
	}

	for step := 0; step < 10; step++ {
		now = now.Add(10 * time.Millisecond)
		client.Update(now)
		server.Update(now)
		for _, d := range client.Send() {
			server.Receive(now, clientAddr, d.Data)
		}
		for _, d := range server.Send() {
			client.Receive(now, serverAddr, d.Data)
		}
	}
	fmt.Println(client.State(), "as client", client.ClientIndex())

	_ = client.SendPayload(now, []byte("hello"))
	for _, d := range client.Send() {
		server.Receive(now, clientAddr, d.Data)
	}
	payload, _ := server.ReceivePayload(0)
	fmt.Printf("server got %q from client %d\n", payload, server.ClientID(0))
	// Output:
	// connected as client 0
	// server got "hello" from client 42
}
