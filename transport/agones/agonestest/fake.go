// Package agonestest is an in-process fake of the Agones SDK server's HTTP
// gateway for tests: the endpoints package agones calls, answering as
// Agones' own sdk-server does in its local mode (int64 fields as JSON
// strings, /health refusing an empty body, refusals as HTTP 500 with a
// gRPC status, Counters and Lists under /v1beta1/, player tracking only
// when enabled, the watch as chunked {"result":...} lines), plus what a
// test needs to play the Agones controller: Allocate with labels and
// annotations, and counts of what the server under test did.
//
// It is a stand-in for unit tests run anywhere; the real sdk-server is
// what the env-gated tests run against.
package agonestest

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"github.com/netphys/netphys/transport/agones"
)

// Fake is a fake SDK server. Its methods may be called from any goroutine.
type Fake struct {
	// PlayerTracking answers /alpha/player/ (set before serving).
	PlayerTracking bool

	srv *httptest.Server

	mu       sync.Mutex
	gs       agones.GameServer
	players  []string
	capacity int64
	healths  int
	history  []string // states in the order they were set
	watchers []chan agones.GameServer
	changed  chan struct{} // closed and replaced at every change
}

// New starts a fake whose GameServer is "netphys-test" in state Scheduled,
// with a List "players" of capacity players, a Counter "matches" of
// capacity 1000 and the given labels.
func New(players int64, labels map[string]string) *Fake {
	f := &Fake{changed: make(chan struct{})}
	f.gs.ObjectMeta = agones.ObjectMeta{Name: "netphys-test", Namespace: "default", UID: "1234",
		Labels: maps.Clone(labels), Annotations: map[string]string{}}
	if f.gs.ObjectMeta.Labels == nil {
		f.gs.ObjectMeta.Labels = map[string]string{}
	}
	f.gs.Spec.Health = agones.Health{PeriodSeconds: 5, FailureThreshold: 3, InitialDelaySeconds: 5}
	f.gs.Status = agones.Status{State: agones.StateScheduled, Address: "127.0.0.1",
		Ports:    []agones.Port{{Name: "default", Port: 7777}},
		Counters: map[string]agones.Counter{"matches": {Capacity: 1000}},
		Lists:    map[string]agones.List{"players": {Capacity: agones.Int64(players), Values: []string{}}}}
	f.history = []string{agones.StateScheduled}
	f.capacity = players
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// SetAddress sets the GameServer's status.address and its port
// "default": where players reach it, and serve --agones's public address.
func (f *Fake) SetAddress(ap netip.AddrPort) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gs.Status.Address = ap.Addr().String()
	f.gs.Status.Ports = []agones.Port{{Name: "default", Port: int32(ap.Port())}}
	f.notifyLocked()
}

// URL is the gateway's base URL, for agones.New or --agones-sdk.
func (f *Fake) URL() string { return f.srv.URL }

// Close stops the fake and ends every watch.
func (f *Fake) Close() {
	f.mu.Lock()
	for _, w := range f.watchers {
		close(w)
	}
	f.watchers = nil
	f.mu.Unlock()
	f.srv.CloseClientConnections()
	f.srv.Close()
}

// Allocate plays a GameServerAllocation: it applies labels and
// annotations and moves the server to Allocated, as the Agones controller
// does. It fails unless the server is Ready.
func (f *Fake) Allocate(labels, annotations map[string]string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gs.Status.State != agones.StateReady {
		return fmt.Errorf("agonestest: allocate: the game server is %s, not Ready", f.gs.Status.State)
	}
	maps.Copy(f.gs.ObjectMeta.Labels, labels)
	maps.Copy(f.gs.ObjectMeta.Annotations, annotations)
	f.setStateLocked(agones.StateAllocated)
	return nil
}

// AllocateCounted plays a GameServerAllocation of a fleet whose servers
// host many matches each (tokenservice.Allocator.Counter): a Ready or
// Allocated server with room in its Counter counter gets one more count,
// the labels and annotations, and is Allocated. It fails when the
// server is in another state, has no such Counter, or the Counter is full.
func (f *Fake) AllocateCounted(counter string, labels, annotations map[string]string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s := f.gs.Status.State; s != agones.StateReady && s != agones.StateAllocated {
		return fmt.Errorf("agonestest: allocate: the game server is %s, not Ready or Allocated", s)
	}
	c, ok := f.gs.Status.Counters[counter]
	if !ok {
		return fmt.Errorf("agonestest: allocate: the game server has no Counter %q", counter)
	}
	if c.Count >= c.Capacity {
		return fmt.Errorf("agonestest: allocate: the Counter %q is full (%d of %d)", counter, c.Count, c.Capacity)
	}
	c.Count++
	f.gs.Status.Counters[counter] = c
	maps.Copy(f.gs.ObjectMeta.Labels, labels)
	maps.Copy(f.gs.ObjectMeta.Annotations, annotations)
	if f.gs.Status.State != agones.StateAllocated {
		f.setStateLocked(agones.StateAllocated)
		return nil
	}
	f.notifyLocked()
	return nil
}

// State is the GameServer's state now.
func (f *Fake) State() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gs.Status.State
}

// History is every state the GameServer went through, in order.
func (f *Fake) History() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.history)
}

// Healths counts the health pings received.
func (f *Fake) Healths() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.healths
}

// GameServer is the GameServer now, its List "players" included.
func (f *Fake) GameServer() agones.GameServer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snapshotLocked()
}

// Changed returns a channel closed at the next change of state, labels,
// annotations, List, Counter or health count: wait on it rather than poll.
func (f *Fake) Changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

func (f *Fake) bumpLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *Fake) setStateLocked(s string) {
	f.gs.Status.State = s
	f.history = append(f.history, s)
	f.notifyLocked()
}

// notifyLocked sends the GameServer to every watch (a watcher too slow to
// take it loses the event, as a stream would lag) and wakes Changed.
func (f *Fake) notifyLocked() {
	gs := f.snapshotLocked()
	for _, w := range f.watchers {
		select {
		case w <- gs:
		default:
		}
	}
	f.bumpLocked()
}

func (f *Fake) snapshotLocked() agones.GameServer {
	gs := f.gs
	gs.ObjectMeta.Labels = maps.Clone(f.gs.ObjectMeta.Labels)
	gs.ObjectMeta.Annotations = maps.Clone(f.gs.ObjectMeta.Annotations)
	gs.Status.Lists = maps.Clone(f.gs.Status.Lists)
	gs.Status.Counters = maps.Clone(f.gs.Status.Counters)
	for k, l := range gs.Status.Lists {
		l.Values = slices.Clone(l.Values)
		gs.Status.Lists[k] = l
	}
	if f.PlayerTracking {
		gs.Status.Players = &agones.Players{Count: agones.Int64(len(f.players)), Capacity: agones.Int64(f.capacity), IDs: slices.Clone(f.players)}
	}
	return gs
}

// grpcError answers as the gateway does: HTTP 500, gRPC code 2.
func grpcError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg, "details": []any{}})
}

func answer(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// body reads the request's JSON into v; an empty or malformed body is
// the gateway's 400 with gRPC code 3.
func body(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil && len(b) == 0 {
		err = fmt.Errorf("unexpected end of JSON input")
	}
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		grpcError(w, http.StatusBadRequest, 3, err.Error())
		return false
	}
	return true
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodGet && p == "/watch/gameserver":
		f.watch(w, r)
		return
	case r.Method == http.MethodGet && p == "/gameserver":
		answer(w, f.GameServer())
		return
	case strings.HasPrefix(p, "/v1beta1/"):
		f.countsAndLists(w, r)
		return
	case strings.HasPrefix(p, "/alpha/player/"):
		f.player(w, r)
		return
	}
	var empty struct{}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && p == "/health":
		if body(w, r, &empty) {
			f.healths++
			f.bumpLocked()
			answer(w, empty)
		}
	case r.Method == http.MethodPost && (p == "/ready" || p == "/allocate" || p == "/shutdown"):
		if body(w, r, &empty) {
			f.setStateLocked(map[string]string{"/ready": agones.StateReady, "/allocate": agones.StateAllocated, "/shutdown": agones.StateShutdown}[p])
			answer(w, empty)
		}
	case r.Method == http.MethodPut && (p == "/metadata/label" || p == "/metadata/annotation"):
		var kv struct{ Key, Value string }
		if body(w, r, &kv) {
			m := f.gs.ObjectMeta.Labels
			if p == "/metadata/annotation" {
				m = f.gs.ObjectMeta.Annotations
			}
			m["agones.dev/sdk-"+kv.Key] = kv.Value
			f.notifyLocked()
			answer(w, empty)
		}
	default:
		http.NotFound(w, r)
	}
}

func (f *Fake) watch(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "no streaming", http.StatusInternalServerError)
		return
	}
	ch := make(chan agones.GameServer, 16)
	f.mu.Lock()
	ch <- f.snapshotLocked()
	f.watchers = append(f.watchers, ch)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.watchers = slices.DeleteFunc(f.watchers, func(c chan agones.GameServer) bool { return c == ch })
		f.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/json")
	for {
		select {
		case <-r.Context().Done():
			return
		case gs, ok := <-ch:
			if !ok {
				return
			}
			b, _ := json.Marshal(map[string]any{"result": gs})
			w.Write(append(b, '\n'))
			fl.Flush()
		}
	}
}

func (f *Fake) countsAndLists(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/v1beta1/")
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case strings.HasPrefix(rest, "counters/"):
		name := strings.TrimPrefix(rest, "counters/")
		c, ok := f.gs.Status.Counters[name]
		if !ok {
			grpcError(w, http.StatusInternalServerError, 2, "not found. "+name+" Counter not found")
			return
		}
		c.Name = name
		if r.Method == http.MethodPatch {
			var u struct {
				Count *agones.Int64 `json:"count"`
			}
			if !body(w, r, &u) {
				return
			}
			if u.Count != nil {
				if *u.Count < 0 || *u.Count > c.Capacity {
					grpcError(w, http.StatusInternalServerError, 2, "out of range")
					return
				}
				c.Count = *u.Count
				f.gs.Status.Counters[name] = c
				f.bumpLocked()
			}
		}
		answer(w, c)
	case strings.HasPrefix(rest, "lists/"):
		name, verb, _ := strings.Cut(strings.TrimPrefix(rest, "lists/"), ":")
		l, ok := f.gs.Status.Lists[name]
		if !ok {
			grpcError(w, http.StatusInternalServerError, 2, "not found. "+name+" List not found")
			return
		}
		l.Name = name
		if verb != "" {
			var v struct{ Value string }
			if r.Method != http.MethodPost || !body(w, r, &v) {
				return
			}
			i := slices.Index(l.Values, v.Value)
			switch {
			case verb == "addValue" && i >= 0:
				grpcError(w, http.StatusInternalServerError, 2, "already exists. Value: "+v.Value+" already in List: "+name)
				return
			case verb == "addValue" && int64(len(l.Values)) >= int64(l.Capacity):
				grpcError(w, http.StatusInternalServerError, 2, "out of range. No available capacity")
				return
			case verb == "addValue":
				l.Values = append(slices.Clone(l.Values), v.Value)
			case verb == "removeValue" && i < 0:
				grpcError(w, http.StatusInternalServerError, 2, "not found. Value: "+v.Value+" not found in List: "+name)
				return
			case verb == "removeValue":
				l.Values = slices.Delete(slices.Clone(l.Values), i, i+1)
			default:
				http.NotFound(w, r)
				return
			}
			f.gs.Status.Lists[name] = l
			f.bumpLocked()
		}
		answer(w, l)
	default:
		http.NotFound(w, r)
	}
}

func (f *Fake) player(w http.ResponseWriter, r *http.Request) {
	if !f.PlayerTracking {
		grpcError(w, http.StatusInternalServerError, 2, "PlayerTracking not enabled")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var id struct {
		PlayerID string `json:"playerID"`
	}
	switch r.URL.Path {
	case "/alpha/player/connect":
		if !body(w, r, &id) {
			return
		}
		if slices.Contains(f.players, id.PlayerID) {
			answer(w, map[string]bool{"bool": false})
			return
		}
		if int64(len(f.players)) >= f.capacity {
			grpcError(w, http.StatusInternalServerError, 2, "players are already at capacity")
			return
		}
		f.players = append(f.players, id.PlayerID)
		f.bumpLocked()
		answer(w, map[string]bool{"bool": true})
	case "/alpha/player/disconnect":
		if !body(w, r, &id) {
			return
		}
		i := slices.Index(f.players, id.PlayerID)
		if i >= 0 {
			f.players = slices.Delete(f.players, i, i+1)
			f.bumpLocked()
		}
		answer(w, map[string]bool{"bool": i >= 0})
	case "/alpha/player/count":
		answer(w, map[string]agones.Int64{"count": agones.Int64(len(f.players))})
	case "/alpha/player/capacity":
		if r.Method == http.MethodPut {
			var c struct{ Count agones.Int64 }
			if !body(w, r, &c) {
				return
			}
			f.capacity = int64(c.Count)
			answer(w, struct{}{})
			return
		}
		answer(w, map[string]agones.Int64{"count": agones.Int64(f.capacity)})
	default:
		http.NotFound(w, r)
	}
}
