package netcode

import (
	"crypto/cipher"
	"errors"

	"golang.org/x/crypto/chacha20poly1305"
)

// ErrChallengeToken reports a challenge token that failed to decrypt.
var ErrChallengeToken = errors.New("netcode: challenge token failed to decrypt")

// ChallengeToken proves, in the response packet, that the client received the
// challenge at the address it claims, so spoofed source addresses cannot
// connect. Only the server can read it.
//
//	+-------------------+-------------------+-------------+---------+
//	| client id, uint64 | user data, 256    | zero pad    | MAC, 16 |
//	+-------------------+-------------------+-------------+---------+
//	|<---------------------- 300 bytes ---------------------------->|
//
// It is sealed with ChaCha20-Poly1305-IETF under the server's challenge key,
// no associated data, and the challenge sequence as the nonce (4 zero bytes,
// then the sequence little endian).
type ChallengeToken struct {
	ClientID ClientID
	UserData UserData
}

// Plaintext returns the 300-byte padded token before encryption (the last
// 16 bytes, where the MAC goes, are zero).
func (c *ChallengeToken) Plaintext() [ChallengeTokenBytes]byte {
	var p [ChallengeTokenBytes]byte
	le.PutUint64(p[:], uint64(c.ClientID))
	copy(p[8:], c.UserData[:])
	return p
}

// ChallengeCipher seals and opens challenge tokens under one key; a server
// makes one from a random key when it starts.
type ChallengeCipher struct {
	aead  cipher.AEAD
	nonce [chacha20poly1305.NonceSize]byte
}

// NewChallengeCipher returns the challenge token cipher of key.
func NewChallengeCipher(key *Key) *ChallengeCipher {
	aead, err := chacha20poly1305.New(key[:])
	if err != nil {
		panic("netcode: chacha20poly1305 refused a 32-byte key: " + err.Error())
	}
	return &ChallengeCipher{aead: aead}
}

// Seal returns token c encrypted with sequence seq.
func (k *ChallengeCipher) Seal(c *ChallengeToken, seq Sequence) [ChallengeTokenBytes]byte {
	p := c.Plaintext()
	le.PutUint64(k.nonce[4:], uint64(seq))
	k.aead.Seal(p[:0], k.nonce[:], p[:ChallengeTokenBytes-MACBytes], nil)
	return p
}

// Open decrypts an encrypted challenge token sealed with sequence seq.
func (k *ChallengeCipher) Open(sealed *[ChallengeTokenBytes]byte, seq Sequence) (ChallengeToken, error) {
	var buf [ChallengeTokenBytes - MACBytes]byte
	le.PutUint64(k.nonce[4:], uint64(seq))
	if _, err := k.aead.Open(buf[:0], k.nonce[:], sealed[:], nil); err != nil {
		return ChallengeToken{}, ErrChallengeToken
	}
	c := ChallengeToken{ClientID: ClientID(le.Uint64(buf[:]))}
	copy(c.UserData[:], buf[8:])
	return c, nil
}
