package netmodel

import (
	"time"

	"github.com/netphys/netphys/transport/netcode"
)

// MaxDatagram is the largest datagram a model hands to its driver, in
// bytes: netcode's largest payload.
const MaxDatagram = netcode.MaxPayloadBytes

// PacketOverhead is what every datagram costs on the wire besides its
// payload, in bytes: 28 of UDP over IPv4, and netcode's prefix byte, a
// sequence number of 2 bytes (the first 65,536 packets of a connection:
// 18 minutes at 60 per second) and a 16-byte MAC. The models' kbps figures
// count it, so that they compare with what a player's link carries.
const PacketOverhead = 28 + 1 + 2 + netcode.MACBytes

// Server is the server side of a model: the relay, the authority or the
// host, one per match. Slots are netcode's client indices.
//
// Receive's error reports a datagram the model dropped (malformed, forged,
// stale); the model has counted it, and the driver only logs it. Update's
// error means the session cannot go on (a desync, say); the driver stops.
// send's datagram is valid only during the call.
type Server interface {
	Join(now time.Time, slot int) error
	Leave(now time.Time, slot int)
	Receive(now time.Time, slot int, datagram []byte) error
	Update(now time.Time, send func(slot int, datagram []byte)) error
}

// Identified is the optional capability of a Server that tells its
// clients apart across connections: a driver that knows who a client is
// (netcode's client id, from the client's connect token) calls JoinClient
// instead of Join, so that a player whose connection dropped and who
// connects again with the same id, on whatever slot, gets back what the
// model kept for it (its character, its seat) within the model's grace.
// The id is the client's own as the token issuer vouches for it, never a
// number the client picks on the wire; Leave is unchanged.
type Identified interface {
	JoinClient(now time.Time, slot int, clientID uint64) error
}

// Client is the client side of a model: one player, connected to the
// Server. The errors mean what they mean for Server.
type Client interface {
	Receive(now time.Time, datagram []byte) error
	Update(now time.Time, send func(datagram []byte)) error
}
