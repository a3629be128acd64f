package tokenservice_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/agones"
	"github.com/netphys/netphys/transport/agones/agonestest"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

// TestTokensNameTheAllocatedGameServer: the handler allocates a game
// server through a fake of Agones' allocation endpoint for the first
// player of a match, annotates it with the match id, and every token of
// that match names its address; with no Ready server the answer is 503.
func TestTokensNameTheAllocatedGameServer(t *testing.T) {
	fleet := map[string]string{"agones.dev/fleet": "netphys"}
	gs := agonestest.New(4, fleet)
	defer gs.Close()
	served := netip.MustParseAddrPort("10.1.2.3:7654")
	fakeAlloc := &agonestest.Allocator{GameServer: gs, Name: "netphys-test", Labels: fleet, Address: served}
	allocSrv := httptest.NewServer(fakeAlloc)
	defer allocSrv.Close()

	alloc := &tokenservice.Allocator{URL: allocSrv.URL + "/apis/allocation.agones.dev/v1/namespaces/default/gameserverallocations",
		Selectors: []map[string]string{{"agones.dev/fleet": "netphys"}}, Port: "default"}
	h := &tokenservice.Handler{
		Params:     netcode.DefaultTokenParams(),
		PrivateKey: testKey,
		Logger:     quiet,
		Authenticate: func(r *http.Request) (uint64, []byte, error) {
			var id uint64
			_, err := fmt.Sscan(r.URL.Query().Get("player"), &id)
			return id, nil, err
		},
		Servers: alloc.ForMatch(func(r *http.Request) (string, error) { return r.URL.Query().Get("match"), nil }),
	}
	h.Params.ProtocolID = testProtocol
	web := httptest.NewServer(h)
	defer web.Close()

	// The fleet's one server is not Ready yet: no game server.
	if code, body := get(t, web.URL+"?player=1&match=m-1"); code != http.StatusServiceUnavailable {
		t.Fatalf("allocation before Ready: HTTP %d %s, want 503", code, body)
	}
	c := agones.New(gs.URL())
	if err := c.Ready(t.Context()); err != nil {
		t.Fatal(err)
	}
	for player := 1; player <= 2; player++ {
		code, body := get(t, fmt.Sprintf("%s?player=%d&match=m-1", web.URL, player))
		if code != http.StatusOK {
			t.Fatalf("player %d: HTTP %d %s", player, code, body)
		}
		tok, err := transport.DecodeToken([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if len(tok.ServerAddresses) != 1 || tok.ServerAddresses[0] != served {
			t.Fatalf("player %d's token names %v, want %v", player, tok.ServerAddresses, served)
		}
	}
	reqs := fakeAlloc.Requests()
	if len(reqs) != 2 { // the refused one before Ready, then one for m-1
		t.Fatalf("%d allocation requests, want 2 (one per match, one refused)", len(reqs))
	}
	if reqs[1].Spec.Metadata.Annotations[tokenservice.MatchAnnotation] != "m-1" || reqs[1].Spec.Selectors[0].MatchLabels["agones.dev/fleet"] != "netphys" {
		t.Fatalf("allocation request %+v", reqs[1].Spec)
	}
	if a := gs.GameServer().ObjectMeta.Annotations[tokenservice.MatchAnnotation]; a != "m-1" || gs.State() != agones.StateAllocated {
		t.Fatalf("game server: state %s, match annotation %q", gs.State(), a)
	}
	// A second match finds the one server taken.
	if code, _ := get(t, web.URL+"?player=3&match=m-2"); code != http.StatusServiceUnavailable {
		t.Fatalf("second match with the fleet full: HTTP %d, want 503", code)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestAllocatorReadsBothAPIsAndRefusesBadAnswers: the allocator service's
// AllocationResponse and the Kubernetes GameServerAllocation both read;
// answers without an address or port, or of another state, are errors.
func TestAllocatorReadsBothAPIsAndRefusesBadAnswers(t *testing.T) {
	for _, tt := range []struct {
		api    tokenservice.API
		status int
		answer string
		want   string // address, or "" for an error
		noGS   bool
	}{
		{tokenservice.AllocatorService, 200, `{"gameServerName":"gs-1","ports":[{"name":"default","port":7001}],"address":"192.0.2.1","nodeName":"n"}`, "192.0.2.1:7001", false},
		{tokenservice.AllocatorService, 429, `{"code":8,"message":"no available GameServer"}`, "", true},
		{tokenservice.Kubernetes, 201, `{"status":{"state":"Allocated","address":"::1","ports":[{"name":"gs","port":9}]}}`, "[::1]:9", false},
		{tokenservice.Kubernetes, 201, `{"status":{"state":"Contention"}}`, "", true},
		{tokenservice.Kubernetes, 201, `{"status":{"state":"Allocated","address":"game.example","ports":[{"port":9}]}}`, "", false},
		{tokenservice.Kubernetes, 201, `{"status":{"state":"Allocated","address":"192.0.2.1","ports":[{"port":70000}]}}`, "", false},
		{tokenservice.Kubernetes, 201, `{"kind":"Status"}`, "", false},
		{tokenservice.Kubernetes, 403, `forbidden`, "", false},
		{tokenservice.Kubernetes, 201, `{"status":`, "", false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tt.status)
			io.WriteString(w, tt.answer)
		}))
		a := &tokenservice.Allocator{URL: srv.URL, API: tt.api}
		al, err := a.Allocate(t.Context(), "m", nil)
		srv.Close()
		switch {
		case tt.want != "" && (err != nil || al.Address.String() != tt.want):
			t.Errorf("%s: %v %v, want %s", tt.answer, al.Address, err, tt.want)
		case tt.want == "" && err == nil:
			t.Errorf("%s: allocated %v, want an error", tt.answer, al.Address)
		case tt.noGS != errors.Is(err, tokenservice.ErrNoGameServer):
			t.Errorf("%s: %v: ErrNoGameServer is %v, want %v", tt.answer, err, !tt.noGS, tt.noGS)
		}
	}
}

// TestAllocatorWithACounterPacksRooms: with Counter set (a fleet of serve
// --rooms servers), each selector is asked first of the Allocated game
// servers with a match to spare, then of the Ready ones with room, and
// the allocation increments the Counter, in the Kubernetes API's
// spelling and in the allocator service's; without it, the selectors
// are the labels alone and nothing is counted.
func TestAllocatorWithACounterPacksRooms(t *testing.T) {
	fleet := map[string]any{"agones.dev/fleet": "netphys-rooms"}
	room := map[string]any{"matches": map[string]any{"minAvailable": float64(1)}}
	increment := map[string]any{"matches": map[string]any{"action": "Increment", "amount": float64(1)}}
	for _, tt := range []struct {
		api       tokenservice.API
		counter   string
		answer    string
		selectors string // the request's selectors' key
		selected  []any
		counters  any    // the request's counters, nil: none
		within    string // the key they are under ("spec"), "": the top level
	}{
		{tokenservice.Kubernetes, "matches", `{"status":{"state":"Allocated","address":"192.0.2.1","ports":[{"port":7001}]}}`, "selectors",
			[]any{map[string]any{"matchLabels": fleet, "gameServerState": "Allocated", "counters": room},
				map[string]any{"matchLabels": fleet, "gameServerState": "Ready", "counters": room}}, increment, "spec"},
		{tokenservice.AllocatorService, "matches", `{"gameServerName":"gs-1","ports":[{"port":7001}],"address":"192.0.2.1"}`, "gameServerSelectors",
			[]any{map[string]any{"matchLabels": fleet, "gameServerState": "ALLOCATED", "counters": room},
				map[string]any{"matchLabels": fleet, "gameServerState": "READY", "counters": room}}, increment, ""},
		{tokenservice.Kubernetes, "", `{"status":{"state":"Allocated","address":"192.0.2.1","ports":[{"port":7001}]}}`, "selectors",
			[]any{map[string]any{"matchLabels": fleet}}, nil, "spec"},
	} {
		var got map[string]any
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
				t.Error(err)
			}
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, tt.answer)
		}))
		a := &tokenservice.Allocator{URL: srv.URL, API: tt.api, Counter: tt.counter, Selectors: []map[string]string{{"agones.dev/fleet": "netphys-rooms"}}}
		al, err := a.Allocate(t.Context(), "m-7", nil)
		srv.Close()
		if err != nil || al.Address.String() != "192.0.2.1:7001" {
			t.Fatalf("api %d, counter %q: %v %v", tt.api, tt.counter, al, err)
		}
		req := got
		if tt.within != "" {
			req, _ = got[tt.within].(map[string]any)
		}
		if !reflect.DeepEqual(req[tt.selectors], tt.selected) {
			t.Errorf("api %d, counter %q: selectors %v, want %v", tt.api, tt.counter, req[tt.selectors], tt.selected)
		}
		if !reflect.DeepEqual(req["counters"], tt.counters) {
			t.Errorf("api %d, counter %q: counters %v, want %v", tt.api, tt.counter, req["counters"], tt.counters)
		}
		meta, _ := req["metadata"].(map[string]any)
		if ann, _ := meta["annotations"].(map[string]any); ann[tokenservice.MatchAnnotation] != "m-7" {
			t.Errorf("api %d: metadata %v", tt.api, req["metadata"])
		}
	}
}

// TestMatchesAllocateAGameServerPerMatch: the match API with
// Tokens.Servers = Allocator.ForMatch reading the match id from the path
// (r.PathValue("id")): a backend creates a match, its first token
// allocates a game server (annotated with the match id) through a fake
// of Agones' allocation endpoint, and every token of the match names that
// server's address and carries the match in its user data.
func TestMatchesAllocateAGameServerPerMatch(t *testing.T) {
	fleet := map[string]string{"agones.dev/fleet": "netphys-rooms"}
	gs := agonestest.New(4, fleet)
	defer gs.Close()
	if err := agones.New(gs.URL()).Ready(t.Context()); err != nil {
		t.Fatal(err)
	}
	served := netip.MustParseAddrPort("10.1.2.3:7654")
	fakeAlloc := &agonestest.Allocator{GameServer: gs, Name: "netphys-rooms-x", Labels: fleet, Address: served}
	allocSrv := httptest.NewServer(fakeAlloc)
	defer allocSrv.Close()
	alloc := &tokenservice.Allocator{URL: allocSrv.URL, Selectors: []map[string]string{fleet}}
	ms := &tokenservice.Matches{Logger: quiet, Tokens: &tokenservice.Handler{Params: netcode.DefaultTokenParams(), PrivateKey: testKey, Logger: quiet,
		Authenticate: func(r *http.Request) (uint64, []byte, error) {
			var id uint64
			_, err := fmt.Sscan(r.URL.Query().Get("player"), &id)
			return id, nil, err
		},
		Servers: alloc.ForMatch(func(r *http.Request) (string, error) { return r.PathValue("id"), nil }),
	}}
	ms.Tokens.Params.ProtocolID = testProtocol
	web := httptest.NewServer(ms)
	defer web.Close()
	resp, err := http.Post(web.URL+"/matches", "application/json", strings.NewReader(`{"id":"m-5","model":"predict","players":2}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: HTTP %d", resp.StatusCode)
	}
	for player := 1; player <= 2; player++ {
		code, body := get(t, fmt.Sprintf("%s/matches/m-5/token?player=%d", web.URL, player))
		if code != http.StatusOK {
			t.Fatalf("player %d: HTTP %d %s", player, code, body)
		}
		tok, priv := openToken(t, body)
		m, ok, err := tokenservice.MatchFromUserData(&priv.UserData)
		if !ok || err != nil || m.ID != "m-5" || m.Model != "predict" || len(tok.ServerAddresses) != 1 || tok.ServerAddresses[0] != served {
			t.Fatalf("player %d's token: match %+v (%v %v), servers %v, want m-5 on %v", player, m, ok, err, tok.ServerAddresses, served)
		}
	}
	if n := len(fakeAlloc.Requests()); n != 1 {
		t.Errorf("%d allocations for one match, want 1", n)
	}
	if a := gs.GameServer().ObjectMeta.Annotations[tokenservice.MatchAnnotation]; a != "m-5" || gs.State() != agones.StateAllocated {
		t.Errorf("game server: state %s, match annotation %q", gs.State(), a)
	}
}
