package netcode

import "encoding/binary"

// Sizes fixed by the netcode 1.02 standard, in bytes.
const (
	KeyBytes            = 32                                                             // every key: private, client-to-server, server-to-client, challenge
	MACBytes            = 16                                                             // Poly1305 tag appended by both AEADs
	TokenNonceBytes     = 24                                                             // XChaCha20-Poly1305 nonce of the private connect token
	ConnectTokenBytes   = 2048                                                           // public connect token, zero padded
	PrivateTokenBytes   = 1024                                                           // private connect token, zero padded, MAC included
	ChallengeTokenBytes = 300                                                            // challenge token, zero padded, MAC included
	UserDataBytes       = 256                                                            // opaque game data carried from the backend to the server
	MaxServers          = 32                                                             // server addresses per connect token
	MaxPayloadBytes     = 1200                                                           // largest payload of one payload packet
	MinPayloadBytes     = 1                                                              // a payload packet carries at least one byte
	RequestPacketBytes  = 1 + versionBytes + 8 + 8 + TokenNonceBytes + PrivateTokenBytes // 1078
	// MaxPacketBytes bounds every datagram this package writes or accepts:
	// prefix, 8 sequence bytes, the largest payload and the MAC.
	MaxPacketBytes = 1 + 8 + MaxPayloadBytes + MACBytes
	// MaxClients is the largest number of client slots a server may have.
	// The standard's reference implementation stops at 256; the wire does
	// not (the keep-alive carries the index and the count as 32-bit
	// integers), and one process hosting many matches on one port (rooms)
	// needs more. Each slot costs about 4.5 KiB once the server is built
	// (its replay window, mostly), and its receive queue's items and a
	// 16 KiB chunk once its client has sent something: 4096 slots hold
	// 18 MiB without a client.
	MaxClients = 4096
)

// versionInfo is "NETCODE 1.02" with its NUL terminator; it starts every
// connect token and request packet and every block of associated data.
const versionInfo = "NETCODE 1.02\x00"

const versionBytes = len(versionInfo)

// Key is a 32-byte symmetric key.
type Key [KeyBytes]byte

// ProtocolID identifies one game or application; tokens and packets of
// another protocol id are rejected.
type ProtocolID uint64

// ClientID is the globally unique id the backend gives an authenticated client.
type ClientID uint64

// Sequence is a 64-bit packet sequence number; it is also the AEAD nonce.
type Sequence uint64

// ClientIndex is the slot a connected client occupies on a server, in [0, max clients).
type ClientIndex int

// UserData is the opaque data the backend puts in a token for the server.
type UserData [UserDataBytes]byte

// globalSequenceStart is the first sequence number of the server's
// connection-less packets (challenge, denied). They are encrypted with the
// same server-to-client key as the per-client packets, whose sequences start
// at zero, so the top half of the space keeps the nonces disjoint (errata in
// the reference code).
const globalSequenceStart Sequence = 1 << 63

// le is the byte order of every integer in netcode.
var le = binary.LittleEndian
