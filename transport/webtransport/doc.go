// Package webtransport lets browser tabs join a netcode server beside its
// UDP players: netcode's packets ride in WebTransport datagrams
// (HTTP/3 over QUIC, quic-go and webtransport-go), one packet per datagram,
// or, for a packet larger than a browser's datagram holds, two or three
// fragments (package frag) put back together by the other side.
//
// A Mux is a transport.PacketConn made of the server's UDP socket and a
// WebTransport endpoint on a second UDP port. Every browser session gets a
// synthetic address in 100::/64 (RFC 6666, the discard-only prefix) and
// its datagrams read from the Mux as if that address had sent them; what
// the server writes to such an address goes into the session's datagrams.
// The netcode server reading the Mux is the unchanged one, so connect
// tokens, the handshake, encryption, replay protection and every drop
// counter are netcode's, for browser players exactly as for UDP players,
// in the same match:
//
//	udp, _ := net.ListenUDP("udp", laddr)
//	mux, _ := webtransport.NewMux(udp, webtransport.Config{Addr: "0.0.0.0:40001"})
//	srv, _ := transport.NewServer(mux, cfg) // or match.ServeConfig{Conn: mux}
//	http.Handle("/webtransport.json", mux.InfoHandler()) // beside the token service
//
// # Certificates
//
// Without Config.TLS the Mux makes a self-signed ECDSA P-256 certificate
// valid for 13 days, which Chrome accepts through the page's
// serverCertificateHashes (at most 14 days); InfoHandler tells the page
// the endpoint's URL and the certificate's SHA-256. A server running
// longer needs a certificate from a CA in Config.TLS.
//
// # Bounds
//
// A session's bytes never size an allocation of this package: a datagram
// longer than netcode.MaxPacketBytes or empty is dropped and counted, the
// queue of received datagrams has a fixed length (queueLen) and a session
// may hold at most sessionQueueLen of its entries (the rest is dropped and
// counted), and at most Config.MaxSessions sessions are open at once.
// A session's fragments are held in fixed buffers, at most frag.Pending
// incomplete packets for at most frag.Timeout; a packet put back together
// is at most netcode.MaxPacketBytes long (Stats.Fragments counts them).
// What a datagram says is netcode's to judge: forged, replayed and stale
// packets are dropped and counted by the netcode server (ServerStats).
//
// The Mux needs the wall clock: QUIC runs on it, and the deadlines given
// to SetReadDeadline are read as wall-clock times.
package webtransport
