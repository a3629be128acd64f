package netcode

import (
	"errors"
	"fmt"
)

// Errors of the request packet codec.
var (
	ErrRequestSize    = errors.New("netcode: request packet is not 1078 bytes")
	ErrRequestVersion = errors.New("netcode: request packet is not NETCODE 1.02")
)

// RequestPacket is the only packet sent in the clear. The client copies it
// from its connect token; the private data inside is sealed with the key the
// backend shares with the servers, and the protocol id and expire timestamp
// are its associated data, so they cannot be altered either.
//
//	+------+------------------+----------------------+----------------------+
//	| 0x00 | version info, 13 | protocol id, uint64  | expire ts, uint64    |
//	+------+------------------+----------------------+----------------------+
//	| token nonce, 24 bytes   | encrypted private connect token, 1024 bytes |
//	+-------------------------+---------------------------------------------+
//	|<------------------------------- 1078 bytes ------------------------------>|
//
// The standard's text lists an 8-byte "sequence" where the reference writes
// the 24-byte nonce; the reference wins (1078 bytes, not 1062).
type RequestPacket struct {
	ProtocolID      ProtocolID
	ExpireTimestamp uint64
	Nonce           [TokenNonceBytes]byte
	PrivateData     [PrivateTokenBytes]byte
}

// NewRequestPacket returns the request packet of connect token t.
func NewRequestPacket(t *ConnectToken) *RequestPacket {
	return &RequestPacket{ProtocolID: t.ProtocolID, ExpireTimestamp: t.ExpireTimestamp, Nonce: t.Nonce, PrivateData: t.PrivateData}
}

// Append appends the 1078-byte packet to dst.
func (p *RequestPacket) Append(dst []byte) []byte {
	dst = append(dst, byte(PacketRequest))
	dst = append(dst, versionInfo...)
	dst = le.AppendUint64(dst, uint64(p.ProtocolID))
	dst = le.AppendUint64(dst, p.ExpireTimestamp)
	dst = append(dst, p.Nonce[:]...)
	return append(dst, p.PrivateData[:]...)
}

// ParseRequestPacket reads a request packet into p, which the caller may
// reuse between packets (the packet is large).
func ParseRequestPacket(b []byte, p *RequestPacket) error {
	if len(b) != RequestPacketBytes {
		return fmt.Errorf("%w: %d bytes", ErrRequestSize, len(b))
	}
	if b[0] != byte(PacketRequest) {
		return ErrPacketType
	}
	if string(b[1:1+versionBytes]) != versionInfo {
		return ErrRequestVersion
	}
	off := 1 + versionBytes
	p.ProtocolID = ProtocolID(le.Uint64(b[off:]))
	p.ExpireTimestamp = le.Uint64(b[off+8:])
	off += 16
	off += copy(p.Nonce[:], b[off:])
	copy(p.PrivateData[:], b[off:])
	return nil
}
