package transport

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

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

// TokenHandler is the http.Handler a game backend mounts (behind HTTPS) to
// hand connect tokens to its players. Authentication is the backend's: the
// handler asks Authenticate who the request is from, then answers with the
// token as base64 text (Content-Type text/plain, Cache-Control no-store).
// Authentication failures answer 401 with the error text.
type TokenHandler struct {
	// Params gives the protocol id, server addresses, expiry and timeout of
	// every token; ClientID and UserData come from Authenticate.
	Params     netcode.TokenParams
	PrivateKey netcode.Key
	// Authenticate returns the client id and user data (at most 256 bytes)
	// of the player making request r, or an error to refuse it.
	Authenticate func(r *http.Request) (clientID uint64, userData []byte, err error)
	Logger       *slog.Logger // nil: slog.Default()
}

// ServeHTTP issues one token per GET or POST.
func (h *TokenHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	log := h.Logger
	if log == nil {
		log = slog.Default()
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	id, userData, err := h.Authenticate(r)
	if err != nil {
		http.Error(w, "not authorized: "+err.Error(), http.StatusUnauthorized)
		return
	}
	p := h.Params
	p.ClientID = netcode.ClientID(id)
	if p.UserData, err = UserDataFrom(userData); err != nil {
		log.Error("token handler", "client_id", id, "err", err)
		http.Error(w, "cannot issue a token", http.StatusInternalServerError)
		return
	}
	tok, err := netcode.GenerateConnectToken(&p, time.Now(), &h.PrivateKey, nil)
	if err != nil {
		log.Error("token handler", "client_id", id, "err", err)
		http.Error(w, "cannot issue a token", http.StatusInternalServerError)
		return
	}
	text, err := EncodeToken(tok)
	if err != nil {
		log.Error("token handler", "client_id", id, "err", err)
		http.Error(w, "cannot issue a token", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintln(w, text)
}
