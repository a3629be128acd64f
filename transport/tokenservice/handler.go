package tokenservice

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
)

// Handler is the http.Handler a game backend mounts (behind HTTPS) to
// hand connect tokens to its players. Authentication is the backend's: the
// handler asks Authenticate who the request is from, then answers with the
// token as base64 text (Content-Type text/plain, Cache-Control no-store).
// Authentication failures answer 401 with the error text.
type Handler struct {
	// Params gives the protocol id, server addresses, expiry and timeout of
	// every token; ClientID and UserData come from Authenticate.
	Params     netcode.TokenParams
	PrivateKey netcode.Key
	// Authenticate returns the client id and user data (at most 256 bytes)
	// of the player making request r, or an error to refuse it.
	Authenticate func(r *http.Request) (clientID uint64, userData []byte, err error)
	// Servers, when set, names the servers of each token instead of
	// Params.ServerAddresses: a matchmaker's choice, such as the game
	// server an Allocator allocated for the player's match. An error
	// wrapping ErrNoGameServer answers 503, any other 502.
	Servers func(r *http.Request, clientID uint64) ([]netip.AddrPort, error)
	Logger  *slog.Logger // nil: slog.Default()
}

// ServeHTTP issues one token per GET or POST.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	h.issue(w, r, log, id, userData)
}

// issue answers r with a token for the client id carrying userData.
func (h *Handler) issue(w http.ResponseWriter, r *http.Request, log *slog.Logger, id uint64, userData []byte) {
	var err error
	p := h.Params
	p.ClientID = netcode.ClientID(id)
	if h.Servers != nil {
		servers, err := h.Servers(r, id)
		if err != nil {
			log.Error("token handler: servers", "client_id", id, "err", err)
			code := http.StatusBadGateway
			if errors.Is(err, ErrNoGameServer) {
				code = http.StatusServiceUnavailable
				w.Header().Set("Retry-After", "5")
			}
			http.Error(w, "no game server for this match: "+err.Error(), code)
			return
		}
		p.ServerAddresses = servers
	}
	if p.UserData, err = transport.UserDataFrom(userData); err != nil {
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
	text, err := transport.EncodeToken(tok)
	if err != nil {
		log.Error("token handler", "client_id", id, "err", err)
		http.Error(w, "cannot issue a token", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintln(w, text)
}
