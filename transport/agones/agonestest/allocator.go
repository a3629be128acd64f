package agonestest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"sync"
)

// Allocator is a fake of Agones' allocation endpoint in the Kubernetes
// API's form: it takes a GameServerAllocation (allocation.agones.dev/v1),
// allocates its game server (a Fake, whose labels must match a selector)
// with the request's labels and annotations, and answers the
// GameServerAllocation with status state, gameServerName, address and
// ports, or state UnAllocated when the game server is not Ready.
type Allocator struct {
	// GameServer is the one game server of the fleet: a *Fake or a *Real.
	GameServer interface {
		Allocate(labels, annotations map[string]string) error
	}
	// Name and Labels are the game server's, for the answer and for the
	// selectors to match.
	Name   string
	Labels map[string]string
	// Address is where players reach it (serve's UDP address).
	Address netip.AddrPort

	mu       sync.Mutex
	requests []AllocationRequest
}

// AllocationRequest is what a GameServerAllocation asked for.
type AllocationRequest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Selectors []struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selectors"`
		Metadata struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	} `json:"spec"`
}

// Requests are the allocations asked for so far.
func (a *Allocator) Requests() []AllocationRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]AllocationRequest(nil), a.requests...)
}

func (a *Allocator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req AllocationRequest
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err := json.Unmarshal(b, &req); err != nil || req.Kind != "GameServerAllocation" || req.APIVersion != "allocation.agones.dev/v1" {
		http.Error(w, `{"kind":"Status","status":"Failure","message":"not a GameServerAllocation","code":400}`, http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.requests = append(a.requests, req)
	a.mu.Unlock()
	selected := len(req.Spec.Selectors) == 0
	for _, s := range req.Spec.Selectors {
		all := true
		for k, v := range s.MatchLabels {
			all = all && a.Labels[k] == v
		}
		selected = selected || all
	}
	status := map[string]any{"state": "UnAllocated"}
	if selected && a.GameServer.Allocate(req.Spec.Metadata.Labels, req.Spec.Metadata.Annotations) == nil {
		status = map[string]any{"state": "Allocated", "gameServerName": a.Name,
			"address": a.Address.Addr().String(), "nodeName": "node-1",
			"ports": []map[string]any{{"name": "default", "port": a.Address.Port()}}}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]any{"apiVersion": "allocation.agones.dev/v1", "kind": "GameServerAllocation",
		"spec": req.Spec, "status": status})
}
