package transport

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/netphys/netphys/transport/netcode"
)

// Errors of the token helpers.
var (
	ErrUserData  = errors.New("transport: user data longer than 256 bytes")
	ErrTokenText = errors.New("transport: connect token text is not base64 or hex of 2048 bytes")
)

// EncodeToken returns the standard base64 text of a connect token.
func EncodeToken(t *netcode.ConnectToken) (string, error) {
	b, err := t.Marshal()
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b[:]), nil
}

// DecodeToken reads a connect token from its base64 text or hex text
// (surrounding white space ignored), or from its raw 2048 bytes.
func DecodeToken(b []byte) (*netcode.ConnectToken, error) {
	if len(b) == netcode.ConnectTokenBytes {
		return netcode.ParseConnectToken(b)
	}
	text := bytes.TrimSpace(b)
	raw := make([]byte, netcode.ConnectTokenBytes)
	var err error
	switch len(text) {
	case base64.StdEncoding.EncodedLen(netcode.ConnectTokenBytes):
		_, err = base64.StdEncoding.Decode(raw, text)
	case hex.EncodedLen(netcode.ConnectTokenBytes):
		_, err = hex.Decode(raw, text)
	default:
		return nil, fmt.Errorf("%w: %d characters, want %d (base64) or %d (hex)", ErrTokenText, len(text),
			base64.StdEncoding.EncodedLen(netcode.ConnectTokenBytes), hex.EncodedLen(netcode.ConnectTokenBytes))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTokenText, err)
	}
	return netcode.ParseConnectToken(raw)
}

// UserDataFrom pads b into a token's user data.
func UserDataFrom(b []byte) (netcode.UserData, error) {
	var ud netcode.UserData
	if len(b) > len(ud) {
		return ud, fmt.Errorf("%w: %d bytes", ErrUserData, len(b))
	}
	copy(ud[:], b)
	return ud, nil
}
