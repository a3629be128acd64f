package netcode

import (
	"crypto/cipher"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// PacketType is the low nibble of a packet's prefix byte.
type PacketType uint8

// The seven packet types of netcode 1.02.
const (
	PacketRequest    PacketType = iota // client → server, not encrypted
	PacketDenied                       // server → client, no data
	PacketChallenge                    // server → client, challenge token
	PacketResponse                     // client → server, challenge token echoed
	PacketKeepAlive                    // both ways, client index and max clients
	PacketPayload                      // both ways, 1 to 1200 bytes of game data
	PacketDisconnect                   // both ways, no data
	numPacketTypes
)

var packetTypeNames = [numPacketTypes]string{"request", "denied", "challenge", "response", "keep-alive", "payload", "disconnect"}

func (t PacketType) String() string {
	if t < numPacketTypes {
		return packetTypeNames[t]
	}
	return fmt.Sprintf("PacketType(%d)", uint8(t))
}

// Errors of the packet codec.
var (
	ErrPacketTooSmall   = errors.New("netcode: packet too small")
	ErrPacketTooLarge   = errors.New("netcode: packet too large")
	ErrPacketType       = errors.New("netcode: invalid packet type")
	ErrSequenceBytes    = errors.New("netcode: sequence byte count outside [1,8]")
	ErrPacketSize       = errors.New("netcode: packet data size does not match its type")
	ErrDecrypt          = errors.New("netcode: packet failed to decrypt")
	ErrPayloadSize      = errors.New("netcode: payload size outside [1,1200]")
	ErrNotEncryptedType = errors.New("netcode: the request packet is not an encrypted packet")
)

// Header is the clear-text start of an encrypted packet:
//
//	 0               1
//	 0 1 2 3 4 5 6 7 0 ...
//	+-------+-------+-------------------+------------------+---------+
//	| nseq  | type  | sequence, nseq    | encrypted data   | MAC     |
//	| 4 bit | 4 bit | bytes, low first  | (size per type)  | 16 bytes|
//	+-------+-------+-------------------+------------------+---------+
//
// The prefix byte is (nseq<<4)|type. The sequence omits its high zero bytes
// (at least one byte is written) and doubles as the AEAD nonce.
type Header struct {
	Type     PacketType
	Sequence Sequence
	// DataOffset is where the encrypted per-type data starts: 1 + nseq.
	DataOffset int
}

// SequenceBytes is the number of bytes the minimal encoding of s takes, in [1,8].
func SequenceBytes(s Sequence) int {
	n := 1
	for s > 0xff {
		s >>= 8
		n++
	}
	return n
}

// dataSize reports whether n bytes of decrypted data fit packet type t.
func dataSize(t PacketType, n int) bool {
	switch t {
	case PacketDenied, PacketDisconnect:
		return n == 0
	case PacketChallenge, PacketResponse:
		return n == challengeBodyBytes
	case PacketKeepAlive:
		return n == keepAliveBodyBytes
	case PacketPayload:
		return n >= MinPayloadBytes && n <= MaxPayloadBytes
	}
	return false
}

// ParseHeader reads the prefix and sequence of an encrypted packet and checks,
// in the order the standard gives, everything that can be checked before
// decryption: the size, the type, the sequence byte count and the size of the
// data for that type.
func ParseHeader(packet []byte) (Header, error) {
	if len(packet) < 1+1+MACBytes {
		return Header{}, ErrPacketTooSmall
	}
	if len(packet) > MaxPacketBytes {
		return Header{}, ErrPacketTooLarge
	}
	prefix := packet[0]
	t := PacketType(prefix & 0x0f)
	if t == PacketRequest {
		return Header{}, ErrNotEncryptedType
	}
	if t >= numPacketTypes {
		return Header{}, ErrPacketType
	}
	nseq := int(prefix >> 4)
	if nseq < 1 || nseq > 8 {
		return Header{}, ErrSequenceBytes
	}
	if len(packet) < 1+nseq+MACBytes {
		return Header{}, ErrPacketTooSmall
	}
	var seq Sequence
	for i := nseq; i >= 1; i-- {
		seq = seq<<8 | Sequence(packet[i])
	}
	if !dataSize(t, len(packet)-1-nseq-MACBytes) {
		return Header{}, fmt.Errorf("%w: %d bytes for %v", ErrPacketSize, len(packet)-1-nseq-MACBytes, t)
	}
	return Header{Type: t, Sequence: seq, DataOffset: 1 + nseq}, nil
}

// PacketKey encrypts or decrypts the packets of one direction of one
// connection: it holds the ChaCha20-Poly1305-IETF cipher of a key and the
// scratch space for nonce and associated data, so sealing and opening do not
// allocate. A PacketKey is not safe for concurrent use.
type PacketKey struct {
	aead cipher.AEAD
	// nonce is 4 zero bytes then the sequence, little endian (errata).
	nonce [chacha20poly1305.NonceSize]byte
	// ad is the associated data: version info, protocol id, prefix byte.
	ad [versionBytes + 8 + 1]byte
}

// NewPacketKey returns the packet cipher of key for protocol id.
func NewPacketKey(id ProtocolID, key *Key) *PacketKey {
	aead, err := chacha20poly1305.New(key[:])
	if err != nil {
		panic("netcode: chacha20poly1305 refused a 32-byte key: " + err.Error())
	}
	k := &PacketKey{aead: aead}
	copy(k.ad[:], versionInfo)
	le.PutUint64(k.ad[versionBytes:], uint64(id))
	return k
}

func (k *PacketKey) setNonce(prefix byte, seq Sequence) {
	le.PutUint64(k.nonce[4:], uint64(seq))
	k.ad[len(k.ad)-1] = prefix
}

// Seal appends to dst the packet of type t with sequence seq whose per-type
// data is body, encrypted. body must have the size of type t.
func (k *PacketKey) Seal(dst []byte, t PacketType, seq Sequence, body []byte) ([]byte, error) {
	if t == PacketRequest || t >= numPacketTypes {
		return dst, ErrPacketType
	}
	if !dataSize(t, len(body)) {
		if t == PacketPayload {
			return dst, fmt.Errorf("%w: %d bytes", ErrPayloadSize, len(body))
		}
		return dst, fmt.Errorf("%w: %d bytes for %v", ErrPacketSize, len(body), t)
	}
	nseq := SequenceBytes(seq)
	prefix := byte(nseq<<4) | byte(t)
	dst = append(dst, prefix)
	for s, i := seq, 0; i < nseq; i++ {
		dst = append(dst, byte(s))
		s >>= 8
	}
	k.setNonce(prefix, seq)
	return k.aead.Seal(dst, k.nonce[:], body, k.ad[:]), nil
}

// Open authenticates and decrypts, in place, the packet whose header h was
// parsed by ParseHeader, and returns its per-type data, which aliases packet.
func (k *PacketKey) Open(packet []byte, h Header) ([]byte, error) {
	k.setNonce(packet[0], h.Sequence)
	data := packet[h.DataOffset:]
	body, err := k.aead.Open(data[:0], k.nonce[:], data, k.ad[:])
	if err != nil {
		return nil, ErrDecrypt
	}
	return body, nil
}
