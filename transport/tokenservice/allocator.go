package tokenservice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// MatchAnnotation is the GameServer annotation an Allocator sets to the
// match id: serve --agones logs it as the match it hosts.
const MatchAnnotation = "netphys.dev/match"

// ErrNoGameServer is an allocation Agones could not satisfy: no Ready game
// server matches the selectors (status UnAllocated) or another allocation
// took it (Contention). Retry later, or let the fleet scale up.
var ErrNoGameServer = errors.New("tokenservice: no game server free to allocate")

// maxAllocationAnswer bounds what is read of the allocator's answer.
const maxAllocationAnswer = 1 << 20

// API says which REST API an Allocator speaks.
type API int

const (
	// Kubernetes is the Kubernetes API server's GameServerAllocation
	// resource: POST a GameServerAllocation (allocation.agones.dev/v1) to
	// /apis/allocation.agones.dev/v1/namespaces/NS/gameserverallocations;
	// the answer's status holds state, address and ports.
	Kubernetes API = iota
	// AllocatorService is the agones-allocator service's REST endpoint
	// (mTLS): POST an AllocationRequest to /gameserverallocation; the
	// answer holds gameServerName, address and ports at its top level.
	AllocatorService
)

// Allocator allocates a game server from an Agones fleet for a match, and
// names its address in the match's tokens.
type Allocator struct {
	// URL is the endpoint POSTed to (see API).
	URL string
	API API
	// Namespace of the fleet (AllocatorService only; Kubernetes reads it
	// from URL). "" is "default".
	Namespace string
	// Selectors are matchLabels, tried in order: the first with a Ready
	// game server wins (such as {"agones.dev/fleet": "netphys"}).
	Selectors []map[string]string
	// Port names the GameServer port players reach; "" is the first.
	Port string
	// Counter, for a fleet of servers that host many matches each (serve
	// --rooms, deploy/fleet-rooms.yaml), names the GameServer Counter
	// that holds their matches (serve's --agones-rooms-counter,
	// "matches"), its capacity the matches a server may take. Each
	// selector is then tried first among the Allocated game servers with
	// a match to spare (the Counter's minAvailable 1), then among the
	// Ready ones with room, and the allocation adds one to the Counter
	// (action Increment), so that servers fill before new ones are taken.
	// "": one match per game server, Ready ones only.
	Counter string
	// HTTP sends the requests: the client certificate for the allocator
	// service, or the bearer token for the Kubernetes API, go in it. nil:
	// a client with a 15 s timeout.
	HTTP *http.Client
	// Header is added to every request (such as Authorization).
	Header http.Header

	mu      sync.Mutex
	matches map[string]netip.AddrPort
	order   []string // match ids, oldest first, for the bound
}

// MaxMatches bounds the match ids an Allocator remembers; the oldest is
// forgotten first (a later token of it allocates again).
const MaxMatches = 4096

// Allocation is the game server Agones allocated.
type Allocation struct {
	GameServer string
	Address    netip.AddrPort
}

type allocationStatus struct {
	State          string `json:"state"`
	GameServerName string `json:"gameServerName"`
	Address        string `json:"address"`
	Ports          []struct {
		Name string `json:"name"`
		Port int32  `json:"port"`
	} `json:"ports"`
}

// Allocate asks Agones for a game server and annotates it with the match
// id (MatchAnnotation) and annotations.
func (a *Allocator) Allocate(ctx context.Context, match string, annotations map[string]string) (Allocation, error) {
	ann := map[string]string{MatchAnnotation: match}
	for k, v := range annotations {
		ann[k] = v
	}
	meta := map[string]any{"annotations": ann}
	var req any
	if a.API == AllocatorService {
		ns := a.Namespace
		if ns == "" {
			ns = "default"
		}
		r := map[string]any{"namespace": ns, "gameServerSelectors": a.selectors("ALLOCATED", "READY"), "metadata": meta}
		if a.Counter != "" {
			r["counters"] = a.increment()
		}
		req = r
	} else {
		spec := map[string]any{"selectors": a.selectors("Allocated", "Ready"), "metadata": meta}
		if a.Counter != "" {
			spec["counters"] = a.increment()
		}
		req = map[string]any{"apiVersion": "allocation.agones.dev/v1", "kind": "GameServerAllocation", "spec": spec}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return Allocation{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, a.URL, bytes.NewReader(body))
	if err != nil {
		return Allocation{}, fmt.Errorf("tokenservice: allocate: %w", err)
	}
	for k, vs := range a.Header {
		hr.Header[k] = vs
	}
	hr.Header.Set("Content-Type", "application/json")
	hc := a.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 15 * time.Second}
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return Allocation{}, fmt.Errorf("tokenservice: allocate at %s: %w", a.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAllocationAnswer+1))
	if err != nil {
		return Allocation{}, fmt.Errorf("tokenservice: allocate: %w", err)
	}
	if len(b) > maxAllocationAnswer {
		return Allocation{}, fmt.Errorf("tokenservice: allocate: answer over %d bytes", maxAllocationAnswer)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return Allocation{}, fmt.Errorf("%w (HTTP 429: %.200s)", ErrNoGameServer, b)
	}
	if resp.StatusCode/100 != 2 {
		return Allocation{}, fmt.Errorf("tokenservice: allocate at %s: HTTP %d: %.200s", a.URL, resp.StatusCode, b)
	}
	return a.decodeAllocation(b)
}

// selectors are a's Selectors as the allocation request's: with a
// Counter, each twice, Allocated with a match to spare first, then Ready
// with room, the states named as the API spells them.
func (a *Allocator) selectors(allocated, ready string) []map[string]any {
	out := make([]map[string]any, 0, 2*len(a.Selectors))
	for _, s := range a.Selectors {
		if a.Counter == "" {
			out = append(out, map[string]any{"matchLabels": s})
			continue
		}
		room := map[string]any{a.Counter: map[string]any{"minAvailable": 1}}
		out = append(out,
			map[string]any{"matchLabels": s, "gameServerState": allocated, "counters": room},
			map[string]any{"matchLabels": s, "gameServerState": ready, "counters": room})
	}
	return out
}

// increment is the allocation's action on the Counter: one more match.
func (a *Allocator) increment() map[string]any {
	return map[string]any{a.Counter: map[string]any{"action": "Increment", "amount": 1}}
}

// decodeAllocation reads the allocator's answer in the form of a.API.
func (a *Allocator) decodeAllocation(b []byte) (Allocation, error) {
	var st allocationStatus
	if a.API == AllocatorService {
		if err := json.Unmarshal(b, &st); err != nil {
			return Allocation{}, fmt.Errorf("tokenservice: allocate: the answer is not an AllocationResponse: %w", err)
		}
		st.State = "Allocated"
	} else {
		var gsa struct {
			Status *allocationStatus `json:"status"`
		}
		if err := json.Unmarshal(b, &gsa); err != nil || gsa.Status == nil {
			return Allocation{}, fmt.Errorf("tokenservice: allocate: the answer is not a GameServerAllocation with a status (%v)", err)
		}
		st = *gsa.Status
	}
	switch st.State {
	case "Allocated":
	case "UnAllocated", "Contention":
		return Allocation{}, fmt.Errorf("%w (state %s)", ErrNoGameServer, st.State)
	default:
		return Allocation{}, fmt.Errorf("tokenservice: allocate: state %.40q, want Allocated", st.State)
	}
	addr, err := netip.ParseAddr(st.Address)
	if err != nil {
		return Allocation{}, fmt.Errorf("tokenservice: allocate: game server %.60q: address %.60q is not an IP: %w", st.GameServerName, st.Address, err)
	}
	for _, p := range st.Ports {
		if (a.Port == "" || p.Name == a.Port) && p.Port > 0 && p.Port < 65536 {
			return Allocation{GameServer: st.GameServerName, Address: netip.AddrPortFrom(addr, uint16(p.Port))}, nil
		}
	}
	return Allocation{}, fmt.Errorf("tokenservice: allocate: game server %.60q has no port %q", st.GameServerName, a.Port)
}

// ForMatch returns a Handler.Servers that allocates one game server per
// match id (read from the request by match) and names it in every token
// of that match.
func (a *Allocator) ForMatch(match func(r *http.Request) (string, error)) func(r *http.Request, clientID uint64) ([]netip.AddrPort, error) {
	return func(r *http.Request, clientID uint64) ([]netip.AddrPort, error) {
		id, err := match(r)
		if err != nil {
			return nil, err
		}
		a.mu.Lock()
		defer a.mu.Unlock() // one allocation at a time: the players of a match share it
		if ap, ok := a.matches[id]; ok {
			return []netip.AddrPort{ap}, nil
		}
		al, err := a.Allocate(r.Context(), id, nil)
		if err != nil {
			return nil, err
		}
		if a.matches == nil {
			a.matches = map[string]netip.AddrPort{}
		}
		if len(a.order) >= MaxMatches {
			delete(a.matches, a.order[0])
			a.order = a.order[1:]
		}
		a.matches[id] = al.Address
		a.order = append(a.order, id)
		return []netip.AddrPort{al.Address}, nil
	}
}
