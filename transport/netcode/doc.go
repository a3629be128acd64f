// Package netcode implements netcode 1.02, the secure client/server
// connection protocol over UDP of netcode.io, byte-compatible with the
// reference C implementation (mas-bandwidth/netcode): a netphys server
// accepts the reference client and a netphys client connects to the
// reference server.
//
// # What it provides
//
//   - Connect tokens (GenerateConnectToken, ConnectToken, PrivateToken): a
//     game backend that authenticated a player issues a 2048-byte token whose
//     private 1024 bytes are sealed with XChaCha20-Poly1305 under a key shared
//     only with the dedicated servers.
//   - The seven packets (RequestPacket, PacketKey.Seal/Open with ParseHeader,
//     ChallengeBody, KeepAliveBody), minimal sequence encoding,
//     ChaCha20-Poly1305-IETF with the standard's nonce and associated data,
//     challenge tokens (ChallengeCipher) and a 256-entry replay window.
//   - Server and Client: the two state machines as cores without I/O.
//
// # Usage contract of the cores
//
// Server and Client never touch a socket, a clock or a goroutine. Time is an
// argument (only its differences matter, except that the server compares
// token expire timestamps with now.Unix()). A driver owns the socket and a
// timer and runs this loop, from one goroutine or under one mutex:
//
//	srv, _ := netcode.NewServer(cfg, nil) // nil: challenge key from crypto/rand
//	for {
//		// on each datagram:   srv.Receive(now, from, packet)
//		// on each timer tick: srv.Update(now)          (every 10 ms to 100 ms)
//		// to send game data:  srv.SendPayload(now, clientIndex, b)
//		for _, d := range srv.Send() { conn.WriteToUDPAddrPort(d.Data, d.To) }
//		// only the sender's slot can have new payloads
//		if i := srv.ClientIndexOf(from); i >= 0 {
//			for b, ok := srv.ReceivePayload(i); ok; b, ok = srv.ReceivePayload(i) {
//				handle(i, b)
//			}
//		}
//	}
//
// Outgoing datagrams are drained with Send rather than written through a
// callback so the core stays a plain value that tests drive: a test delivers,
// drops, delays or tampers with each datagram in virtual time. Their bytes
// live in an arena reused after the next call, so steady traffic does not
// allocate. Received payloads wait in a bounded per-client queue (a full
// queue drops and counts), copied into chunks shared by many payloads, so
// a payload costs no allocation of its own; the slice ReceivePayload
// returns is the caller's to keep.
//
// The Client has the same shape: Connect(now, token), Receive, Update, Send,
// SendPayload, ReceivePayload, Disconnect, and a State that ends in
// StateConnected or in one of the negative error states.
//
// # Security properties kept from the standard
//
// Only holders of a valid token connect; the server answers a request only
// when it must and never with more bytes than the request (1078 bytes in;
// a 326-byte challenge or an 18-byte denied out). Tokens are bound to the
// first address that uses them. Every received packet that is ignored is
// counted under one DropReason (Counters.Drops, ServerStats). Half-open
// handshakes hold at most 4 encryption mappings per slot, each for at most
// ServerConfig.HandshakeTimeout and never past its token's expiry, whatever
// the token's timeout: clients that never answer their challenge cannot
// lock honest ones out.
//
// # One departure from the standard, on by default
//
// The standard refuses a client id that already holds a slot, so a player
// whose program crashed or whose address changed waits out its idle
// timeout (10 s, often more) before a fresh token lets it back in. With
// ServerConfig.ReplaceSilentAfter (1 s by default; 0 restores the
// standard) a fresh, valid token for a client id whose slot has been
// silent that long replaces the slot instead: the old one is released as
// timed out (ServerStats.Replaced counts it) and the new connection takes
// a slot, so the game sees a leave and a join of the same client id. A slot
// still heard is never replaced, and only the backend mints tokens for a
// client id.
//
// # Where the reference code and the 1.02 text differ
//
// The code wins, as the shared vectors require: the request packet carries
// the 24-byte token nonce (1078 bytes, not 1062); the 12-byte nonce is four
// zero bytes then the little-endian sequence; address types are 1 (IPv4)
// and 2 (IPv6); the server's connection-less packets (challenge, denied)
// use their own sequence starting at 1<<63; the server sends a keep-alive
// before each payload until the client is confirmed; the replay test is
// written subtraction-side so it cannot wrap.
package netcode
