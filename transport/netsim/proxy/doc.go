// Package proxy puts the netsim core between real processes: a UDP relay
// on the real clock (`netphys netsim` on the command line).
//
// Clients send to the proxy's address; it forwards each client's traffic
// to the server from a socket of its own, relays the replies back, and
// applies the simulated conditions both ways, each client with its own
// bandwidth queue per direction. A server behind the proxy must accept
// connect tokens that name the proxy's address (for netcode, its
// PublicAddress is the proxy's address).
//
//	p, err := proxy.Listen(proxy.Config{Listen: "127.0.0.1:40001", Forward: "127.0.0.1:40000",
//		Conditions: netsim.Conditions{Latency: 100 * time.Millisecond, Loss: 0.05}})
//	go p.Run(ctx) // until ctx ends
package proxy
