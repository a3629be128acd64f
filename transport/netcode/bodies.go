package netcode

import "errors"

// Per-type data sizes of the encrypted packets, in bytes.
const (
	challengeBodyBytes = 8 + ChallengeTokenBytes // 308
	keepAliveBodyBytes = 4 + 4                   // 8
)

// ErrBodySize reports per-type data of the wrong size for its packet type.
var ErrBodySize = errors.New("netcode: packet data has the wrong size")

// ChallengeBody is the per-type data of the challenge and the response
// packets: the server's challenge token, echoed by the client.
//
//	+----------------------------+--------------------------------------+
//	| challenge token sequence   | encrypted challenge token + MAC      |
//	| uint64, little endian      | 300 bytes                            |
//	+----------------------------+--------------------------------------+
type ChallengeBody struct {
	TokenSequence Sequence
	Token         [ChallengeTokenBytes]byte
}

// Append appends the 308-byte encoding of b to dst.
func (b *ChallengeBody) Append(dst []byte) []byte {
	dst = le.AppendUint64(dst, uint64(b.TokenSequence))
	return append(dst, b.Token[:]...)
}

// ParseChallengeBody reads a 308-byte challenge or response packet body.
func ParseChallengeBody(data []byte) (ChallengeBody, error) {
	var b ChallengeBody
	if len(data) != challengeBodyBytes {
		return b, ErrBodySize
	}
	b.TokenSequence = Sequence(le.Uint64(data))
	copy(b.Token[:], data[8:])
	return b, nil
}

// KeepAliveBody is the per-type data of a keep-alive packet. The server
// tells the client its slot and the number of slots; the client echoes them.
//
//	+------------------------+------------------------+
//	| client index, uint32   | max clients, uint32    |
//	+------------------------+------------------------+
type KeepAliveBody struct {
	ClientIndex uint32
	MaxClients  uint32
}

// Append appends the 8-byte encoding of b to dst.
func (b KeepAliveBody) Append(dst []byte) []byte {
	dst = le.AppendUint32(dst, b.ClientIndex)
	return le.AppendUint32(dst, b.MaxClients)
}

// ParseKeepAliveBody reads an 8-byte keep-alive body.
func ParseKeepAliveBody(data []byte) (KeepAliveBody, error) {
	if len(data) != keepAliveBodyBytes {
		return KeepAliveBody{}, ErrBodySize
	}
	return KeepAliveBody{ClientIndex: le.Uint32(data), MaxClients: le.Uint32(data[4:])}, nil
}
