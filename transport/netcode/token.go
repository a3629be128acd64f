package netcode

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// Errors of the connect token codecs.
var (
	ErrTokenSize     = errors.New("netcode: connect token has the wrong size")
	ErrTokenVersion  = errors.New("netcode: connect token is not NETCODE 1.02")
	ErrServerCount   = errors.New("netcode: server address count outside [1,32]")
	ErrTokenTooLarge = errors.New("netcode: token fields do not fit the padded size")
	ErrTokenDecrypt  = errors.New("netcode: private connect token failed to decrypt")
	ErrTokenPadding  = errors.New("netcode: token padding is not zero")
	ErrTokenTimeout  = errors.New("netcode: token timeout of zero seconds: give seconds > 0, or a negative value to disable timeouts")
)

// PrivateToken is the part of a connect token only the backend and the
// servers can read (they share the private key). Before encryption:
//
//	+---------------------+----------------+---------------------------+
//	| client id, uint64   | timeout, int32 | server address list       |
//	+---------------------+----------------+---------------------------+
//	| client→server key 32| server→client key 32 | user data 256 | pad |
//	+----------------------------------------------------------+-------+
//	|<------------- 1008 bytes, then the 16-byte MAC ----------------->|
//
// It is sealed with XChaCha20-Poly1305 under the private key, with the
// token nonce and the associated data version info, protocol id, expire
// timestamp (see SealPrivateToken).
type PrivateToken struct {
	ClientID ClientID
	// TimeoutSeconds: seconds without packets before either side drops the
	// connection; zero or negative disables timeouts (development only).
	TimeoutSeconds    int32
	ServerAddresses   []netip.AddrPort
	ClientToServerKey Key
	ServerToClientKey Key
	UserData          UserData
}

// Plaintext returns the 1024-byte padded private token before encryption.
func (p *PrivateToken) Plaintext() ([PrivateTokenBytes]byte, error) {
	var out [PrivateTokenBytes]byte
	if len(p.ServerAddresses) < 1 || len(p.ServerAddresses) > MaxServers {
		return out, ErrServerCount
	}
	b := le.AppendUint64(out[:0], uint64(p.ClientID))
	b = le.AppendUint32(b, uint32(p.TimeoutSeconds))
	b = appendAddressList(b, p.ServerAddresses)
	b = append(b, p.ClientToServerKey[:]...)
	b = append(b, p.ServerToClientKey[:]...)
	b = append(b, p.UserData[:]...)
	if len(b) > PrivateTokenBytes-MACBytes {
		return out, ErrTokenTooLarge // cannot happen with at most 32 addresses
	}
	return out, nil
}

// parsePrivateToken reads a decrypted private token (1008 bytes or more).
func parsePrivateToken(b []byte) (PrivateToken, error) {
	var p PrivateToken
	if len(b) < 8+4 {
		return p, ErrTokenSize
	}
	p.ClientID = ClientID(le.Uint64(b))
	p.TimeoutSeconds = int32(le.Uint32(b[8:]))
	list, n, err := parseAddressList(b[12:])
	if err != nil {
		return p, err
	}
	p.ServerAddresses = list
	rest := b[12+n:]
	if len(rest) < 2*KeyBytes+UserDataBytes {
		return p, ErrTokenSize
	}
	copy(p.ClientToServerKey[:], rest)
	copy(p.ServerToClientKey[:], rest[KeyBytes:])
	copy(p.UserData[:], rest[2*KeyBytes:])
	return p, nil
}

// tokenAD is the associated data of the private token: version info,
// protocol id, expire timestamp.
func tokenAD(id ProtocolID, expire uint64) [versionBytes + 16]byte {
	var ad [versionBytes + 16]byte
	copy(ad[:], versionInfo)
	le.PutUint64(ad[versionBytes:], uint64(id))
	le.PutUint64(ad[versionBytes+8:], expire)
	return ad
}

// SealPrivateToken encrypts p with XChaCha20-Poly1305 under the private key.
func SealPrivateToken(p *PrivateToken, key *Key, id ProtocolID, expire uint64, nonce *[TokenNonceBytes]byte) ([PrivateTokenBytes]byte, error) {
	buf, err := p.Plaintext()
	if err != nil {
		return buf, err
	}
	aead, err := chacha20poly1305.NewX(key[:])
	if err != nil {
		return buf, fmt.Errorf("netcode: %w", err)
	}
	ad := tokenAD(id, expire)
	aead.Seal(buf[:0], nonce[:], buf[:PrivateTokenBytes-MACBytes], ad[:])
	return buf, nil
}

// OpenPrivateToken decrypts and parses an encrypted private token.
func OpenPrivateToken(sealed *[PrivateTokenBytes]byte, key *Key, id ProtocolID, expire uint64, nonce *[TokenNonceBytes]byte) (PrivateToken, error) {
	aead, err := chacha20poly1305.NewX(key[:])
	if err != nil {
		return PrivateToken{}, fmt.Errorf("netcode: %w", err)
	}
	ad := tokenAD(id, expire)
	var buf [PrivateTokenBytes - MACBytes]byte
	if _, err := aead.Open(buf[:0], nonce[:], sealed[:], ad[:]); err != nil {
		return PrivateToken{}, ErrTokenDecrypt
	}
	return parsePrivateToken(buf[:])
}

// ConnectToken is what the backend hands a client: the encrypted private
// token plus, in the clear, what the client needs to connect.
//
//	+----------------------+----------------------+----------------------+
//	| version info, 13     | protocol id, uint64  | create ts, uint64    |
//	+----------------------+----------------------+----------------------+
//	| expire ts, uint64    | token nonce, 24      | private token, 1024  |
//	+----------------------+----------------------+----------------------+
//	| timeout, int32 | server address list | c→s key 32 | s→c key 32 |pad|
//	+------------------------------------------------------------------+-+
//	|<------------------------- 2048 bytes ------------------------------>|
//
// Timestamps are unix seconds.
type ConnectToken struct {
	ProtocolID        ProtocolID
	CreateTimestamp   uint64
	ExpireTimestamp   uint64
	Nonce             [TokenNonceBytes]byte
	PrivateData       [PrivateTokenBytes]byte // sealed PrivateToken
	TimeoutSeconds    int32
	ServerAddresses   []netip.AddrPort
	ClientToServerKey Key
	ServerToClientKey Key
}

// Marshal returns the 2048-byte encoding of t.
func (t *ConnectToken) Marshal() ([ConnectTokenBytes]byte, error) {
	var out [ConnectTokenBytes]byte
	if len(t.ServerAddresses) < 1 || len(t.ServerAddresses) > MaxServers {
		return out, ErrServerCount
	}
	b := append(out[:0], versionInfo...)
	b = le.AppendUint64(b, uint64(t.ProtocolID))
	b = le.AppendUint64(b, t.CreateTimestamp)
	b = le.AppendUint64(b, t.ExpireTimestamp)
	b = append(b, t.Nonce[:]...)
	b = append(b, t.PrivateData[:]...)
	b = le.AppendUint32(b, uint32(t.TimeoutSeconds))
	b = appendAddressList(b, t.ServerAddresses)
	b = append(b, t.ClientToServerKey[:]...)
	b = append(b, t.ServerToClientKey[:]...)
	if len(b) > ConnectTokenBytes {
		return out, ErrTokenTooLarge // cannot happen with at most 32 addresses
	}
	return out, nil
}

// ParseConnectToken reads a 2048-byte connect token. It checks the format
// only; the client checks timestamps when it connects.
func ParseConnectToken(b []byte) (*ConnectToken, error) {
	if len(b) != ConnectTokenBytes {
		return nil, fmt.Errorf("%w: %d bytes", ErrTokenSize, len(b))
	}
	if string(b[:versionBytes]) != versionInfo {
		return nil, ErrTokenVersion
	}
	t := &ConnectToken{}
	off := versionBytes
	t.ProtocolID = ProtocolID(le.Uint64(b[off:]))
	t.CreateTimestamp = le.Uint64(b[off+8:])
	t.ExpireTimestamp = le.Uint64(b[off+16:])
	off += 24
	off += copy(t.Nonce[:], b[off:])
	off += copy(t.PrivateData[:], b[off:])
	t.TimeoutSeconds = int32(le.Uint32(b[off:]))
	off += 4
	list, n, err := parseAddressList(b[off:])
	if err != nil {
		return nil, err
	}
	t.ServerAddresses = list
	off += n
	if len(b)-off < 2*KeyBytes {
		return nil, ErrTokenSize
	}
	off += copy(t.ClientToServerKey[:], b[off:])
	off += copy(t.ServerToClientKey[:], b[off:])
	for _, c := range b[off:] {
		if c != 0 {
			return nil, ErrTokenPadding
		}
	}
	return t, nil
}

// TokenParams describes the connect token a backend issues to one client.
type TokenParams struct {
	ProtocolID      ProtocolID
	ClientID        ClientID
	ServerAddresses []netip.AddrPort // tried in order, 1 to 32
	// Expiry is how long after Now the token stops being accepted; it also
	// bounds the whole connection process on the client. Typically 30 s.
	Expiry time.Duration
	// TimeoutSeconds: seconds without packets before either side drops the
	// connection, typically 5 to 10. Negative disables timeouts (the
	// standard: "dev only"). Zero is rejected: the reference server gives a
	// handshake timeout-seconds to complete, so with zero it forgets the
	// client before its response arrives and the client never connects.
	TimeoutSeconds int32
	UserData       UserData
}

// DefaultTokenParams returns 30 s expiry and a 10 s timeout.
func DefaultTokenParams() TokenParams {
	return TokenParams{Expiry: 30 * time.Second, TimeoutSeconds: 10}
}

// GenerateConnectToken issues a connect token at time now (only its unix
// seconds are used), sealed with the private key. The nonce and the two
// session keys are read from random; pass nil for crypto/rand.
func GenerateConnectToken(p *TokenParams, now time.Time, privateKey *Key, random io.Reader) (*ConnectToken, error) {
	if random == nil {
		random = rand.Reader
	}
	if p.Expiry < time.Second {
		return nil, fmt.Errorf("netcode: token expiry %v is shorter than a second", p.Expiry)
	}
	if p.TimeoutSeconds == 0 {
		return nil, ErrTokenTimeout
	}
	t := &ConnectToken{
		ProtocolID:      p.ProtocolID,
		CreateTimestamp: uint64(now.Unix()),
		TimeoutSeconds:  p.TimeoutSeconds,
		ServerAddresses: p.ServerAddresses,
	}
	t.ExpireTimestamp = t.CreateTimestamp + uint64(p.Expiry/time.Second)
	for _, b := range [][]byte{t.Nonce[:], t.ClientToServerKey[:], t.ServerToClientKey[:]} {
		if _, err := io.ReadFull(random, b); err != nil {
			return nil, fmt.Errorf("netcode: reading token randomness: %w", err)
		}
	}
	priv := PrivateToken{
		ClientID:          p.ClientID,
		TimeoutSeconds:    p.TimeoutSeconds,
		ServerAddresses:   p.ServerAddresses,
		ClientToServerKey: t.ClientToServerKey,
		ServerToClientKey: t.ServerToClientKey,
		UserData:          p.UserData,
	}
	sealed, err := SealPrivateToken(&priv, privateKey, p.ProtocolID, t.ExpireTimestamp, &t.Nonce)
	if err != nil {
		return nil, err
	}
	t.PrivateData = sealed
	return t, nil
}
