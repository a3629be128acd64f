package netcode

import "fmt"

// DropReason says why a received packet was ignored. Every ignored packet is
// counted under exactly one reason.
type DropReason uint8

// Drop reasons, in roughly the order the checks run.
const (
	DropMalformed        DropReason = iota // too small, too large, bad type, bad sequence bytes or size
	DropUnexpectedType                     // a type this side never accepts (e.g. a challenge at the server)
	DropWrongVersion                       // request not "NETCODE 1.02"
	DropWrongProtocol                      // request for another protocol id
	DropTokenExpired                       // request whose token expired
	DropTokenInvalid                       // private token failed to decrypt or parse
	DropWrongServer                        // token does not list this server
	DropAlreadyConnected                   // address or client id already has a slot
	DropTokenReused                        // token already used from another address
	DropMappingsFull                       // no room for another encryption mapping
	DropUnknownAddress                     // no encryption mapping (server) or not the server (client)
	DropNotConnected                       // connected-only packet before the connection exists
	DropReplayed                           // sequence already received or too old
	DropDecrypt                            // failed authentication: tampered, or wrong key
	DropChallengeInvalid                   // challenge token failed to decrypt
	DropWrongState                         // valid, but meaningless in the current state
	DropQueueFull                          // payload received while the receive queue was full
	NumDropReasons
)

var dropReasonNames = [NumDropReasons]string{
	"malformed", "unexpected_type", "wrong_version", "wrong_protocol", "token_expired",
	"token_invalid", "wrong_server", "already_connected", "token_reused", "mappings_full",
	"unknown_address", "not_connected", "replayed", "decrypt_failed", "challenge_invalid",
	"wrong_state", "queue_full",
}

// String returns the snake_case name used in logs and metric labels.
func (r DropReason) String() string {
	if r < NumDropReasons {
		return dropReasonNames[r]
	}
	return fmt.Sprintf("DropReason(%d)", uint8(r))
}

// Counters count the traffic of one endpoint or one server slot. Bytes are
// whole UDP payloads (what went through the socket).
type Counters struct {
	PacketsSent      uint64
	PacketsReceived  uint64 // every datagram handed to Receive, dropped or not
	BytesSent        uint64
	BytesReceived    uint64
	PayloadsSent     uint64
	PayloadsReceived uint64 // payloads delivered to the receive queue
	Drops            [NumDropReasons]uint64
}

// Dropped returns the total of all drop reasons.
func (c Counters) Dropped() uint64 {
	var n uint64
	for _, d := range c.Drops {
		n += d
	}
	return n
}

func (c *Counters) sent(n int) {
	c.PacketsSent++
	c.BytesSent += uint64(n)
}

func (c *Counters) received(n int) {
	c.PacketsReceived++
	c.BytesReceived += uint64(n)
}

// ServerStats are the server's counters and connection events.
type ServerStats struct {
	Counters
	ClientsConnected int    // slots in use now
	Connects         uint64 // clients that reached a slot
	Disconnects      uint64 // slots released, for any reason
	TimedOut         uint64 // of which by timeout
	Replaced         uint64 // of which replaced by the same client id (ReplaceSilentAfter)
	DeniedSent       uint64 // denied packets sent because the server was full
	ChallengesSent   uint64
}
