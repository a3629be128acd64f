// Package transport puts netphys's network protocols on real sockets.
//
// The protocols themselves are cores without I/O in the sub-packages:
// netcode (netcode 1.02 secure connections), reliable (packet acks and
// fragmentation) and netsim (the network simulator). This package holds the
// thin drivers around them:
//
//   - Server and Client run a netcode core on a UDP socket with one
//     goroutine each; the read deadline of the socket is their only timer.
//     Received payloads are handed to a callback per client index, and
//     SendPayload may be called from any goroutine, including the callback.
//     The lock around the core is never held across a socket write or a
//     callback, and steady traffic does not allocate.
//
// Two sub-packages serve the backend around a server, apart so that only
// the programs using them link their dependencies: tokenservice (the
// http.Handler a game backend mounts to issue connect tokens) and metrics
// (a Server's counters for Prometheus).
//
// Connect tokens travel as standard base64 (RFC 4648, padded) of their 2048
// bytes: in HTTP responses, on the command line and in token files
// (EncodeToken). DecodeToken also accepts hex text and the raw bytes.
//
// Drivers read their clock (ServerConfig.Now, ClientConfig.Now: the wall
// clock unless set) and pass it to the cores; everything protocol related,
// including timeouts and keep-alives, is decided by the cores. With a
// simulated clock and a PacketConn of the same clock, the drivers run in
// virtual time (see TestServer64ClientsVirtualTime).
package transport
