package tokenservice

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Matches is the http.Handler of a backend's matches on servers that
// host many at once (netphys serve --rooms): a matchmaker creates a
// match, players get tokens naming it, and the backend lists and ends
// them. Mount it at the root of its own path (http.StripPrefix):
//
//	POST   /matches             create: a JSON Match; its id is made up if empty.
//	                            201 with the MatchInfo; 409 if the id exists
//	GET    /matches             list: a JSON array of MatchInfo, oldest first
//	GET    /matches/{id}        one MatchInfo
//	POST   /matches/{id}/token  a token (base64 text, as Handler answers) for
//	                            the player Tokens.Authenticate names, naming
//	                            the match in its user data (GET works too)
//	DELETE /matches/{id}        end it: no more tokens, and End is told
//
// Create, list and end are the backend's: Admin guards them. Tokens are
// the players': Tokens.Authenticate guards them, and its user data give
// way to the match's. Tokens.Servers, when set, reads the match id as
// r.PathValue("id") (Allocator.ForMatch can allocate a game server per
// match); else the tokens name Tokens.Params.ServerAddresses.
type Matches struct {
	Tokens *Handler
	// Admin returns an error to refuse a request to create, list or end
	// matches (401 with its text). Nil: anyone may, which only a
	// backend on a private network should allow.
	Admin func(r *http.Request) error
	// End, when set, is told of a match the backend ended (to end it on
	// its game server, say: EndAt); its error answers 502, and the match
	// is ended here all the same.
	End    func(ctx context.Context, m MatchInfo) error
	Logger *slog.Logger // nil: slog.Default()

	once    sync.Once
	mux     *http.ServeMux
	mu      sync.Mutex
	matches map[string]*MatchInfo
	order   []string // ids, oldest first
}

// MatchInfo is a match as Matches lists it.
type MatchInfo struct {
	Match
	Created time.Time `json:"created"`
	// Tokens counts the tokens issued for it.
	Tokens int `json:"tokens"`
}

// maxMatchRequest bounds the body of a create request.
const maxMatchRequest = 4096

// ServeHTTP routes r to create, list, token or end.
func (ms *Matches) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ms.once.Do(func() {
		ms.mux = http.NewServeMux()
		ms.mux.HandleFunc("POST /matches", ms.admin(ms.create))
		ms.mux.HandleFunc("GET /matches", ms.admin(ms.list))
		ms.mux.HandleFunc("GET /matches/{id}", ms.admin(ms.get))
		ms.mux.HandleFunc("DELETE /matches/{id}", ms.admin(ms.end))
		ms.mux.HandleFunc("GET /matches/{id}/token", ms.token)
		ms.mux.HandleFunc("POST /matches/{id}/token", ms.token)
	})
	ms.mux.ServeHTTP(w, r)
}

func (ms *Matches) log() *slog.Logger {
	if ms.Logger != nil {
		return ms.Logger
	}
	return slog.Default()
}

// admin guards a backend's request with Admin.
func (ms *Matches) admin(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ms.Admin != nil {
			if err := ms.Admin(r); err != nil {
				http.Error(w, "not authorized: "+err.Error(), http.StatusUnauthorized)
				return
			}
		}
		next(w, r)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func (ms *Matches) create(w http.ResponseWriter, r *http.Request) {
	var m Match
	dec := json.NewDecoder(io.LimitReader(r.Body, maxMatchRequest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		http.Error(w, "want a JSON match such as {\"model\":\"lockstep\",\"layout\":\"tower20\",\"players\":4}: "+err.Error(), http.StatusBadRequest)
		return
	}
	if m.ID == "" {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			http.Error(w, "cannot make up a match id", http.StatusInternalServerError)
			return
		}
		m.ID = "m-" + hex.EncodeToString(b[:])
	}
	if err := m.Validate(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.matches == nil {
		ms.matches = map[string]*MatchInfo{}
	}
	switch {
	case ms.matches[m.ID] != nil:
		http.Error(w, fmt.Sprintf("match %s exists: end it first, or give another id", m.ID), http.StatusConflict)
		return
	case len(ms.order) >= MaxMatches:
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("%d matches are open: end some first", MaxMatches), http.StatusServiceUnavailable)
		return
	}
	info := &MatchInfo{Match: m, Created: time.Now().UTC()}
	ms.matches[m.ID] = info
	ms.order = append(ms.order, m.ID)
	ms.log().Info("tokenservice: match created", "match", m.ID, "model", m.Model, "players", m.Players)
	writeJSON(w, http.StatusCreated, info)
}

func (ms *Matches) list(w http.ResponseWriter, r *http.Request) {
	ms.mu.Lock()
	out := make([]MatchInfo, 0, len(ms.order))
	for _, id := range ms.order {
		out = append(out, *ms.matches[id])
	}
	ms.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// lookup returns a copy of the match id, or answers 404.
func (ms *Matches) lookup(w http.ResponseWriter, id string) (MatchInfo, bool) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if m := ms.matches[id]; m != nil {
		return *m, true
	}
	http.Error(w, fmt.Sprintf("no match %.80q: create it first (POST /matches)", id), http.StatusNotFound)
	return MatchInfo{}, false
}

func (ms *Matches) get(w http.ResponseWriter, r *http.Request) {
	if m, ok := ms.lookup(w, r.PathValue("id")); ok {
		writeJSON(w, http.StatusOK, m)
	}
}

func (ms *Matches) token(w http.ResponseWriter, r *http.Request) {
	m, ok := ms.lookup(w, r.PathValue("id"))
	if !ok {
		return
	}
	id, _, err := ms.Tokens.Authenticate(r)
	if err != nil {
		http.Error(w, "not authorized: "+err.Error(), http.StatusUnauthorized)
		return
	}
	ud, err := m.Match.UserData()
	if err != nil { // validated when created: a bug
		http.Error(w, "cannot issue a token", http.StatusInternalServerError)
		return
	}
	ms.mu.Lock()
	if info := ms.matches[m.ID]; info != nil {
		info.Tokens++
	}
	ms.mu.Unlock()
	ms.Tokens.issue(w, r, ms.log(), id, ud[:])
}

func (ms *Matches) end(w http.ResponseWriter, r *http.Request) {
	m, ok := ms.lookup(w, r.PathValue("id"))
	if !ok {
		return
	}
	ms.mu.Lock()
	delete(ms.matches, m.ID)
	for i, id := range ms.order {
		if id == m.ID {
			ms.order = append(ms.order[:i], ms.order[i+1:]...)
			break
		}
	}
	ms.mu.Unlock()
	ms.log().Info("tokenservice: match ended", "match", m.ID)
	if ms.End != nil {
		if err := ms.End(r.Context(), m); err != nil {
			ms.log().Error("tokenservice: ending the match on its server", "match", m.ID, "err", err)
			http.Error(w, "the match is ended here, but its server was not told: "+err.Error(), http.StatusBadGateway)
			return
		}
	}
	writeJSON(w, http.StatusOK, m)
}

// EndAt returns a Matches.End that ends each match on the server whose
// admin API (netphys serve --rooms --admin ADDR) is at base, such as
// "http://10.0.0.7:9200": DELETE base/matches/{id}. A server that does
// not run the match (404: its players have left, or never came) is not
// an error. client nil: one with a 10 s timeout.
func EndAt(base string, client *http.Client) func(ctx context.Context, m MatchInfo) error {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return func(ctx context.Context, m MatchInfo) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, base+"/matches/"+m.ID, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("tokenservice: end match %s at %s: %w", m.ID, base, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusNotFound {
			return fmt.Errorf("tokenservice: end match %s at %s: HTTP %d: %s", m.ID, base, resp.StatusCode, b)
		}
		return nil
	}
}
