package tokenservice_test

import (
	"fmt"
	"net/http"

	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

// A token service that allocates a game server of the Agones fleet
// "netphys" for each match and names it in that match's tokens.
func ExampleAllocator() {
	alloc := &tokenservice.Allocator{
		// The Kubernetes API (the HTTP client carries the service
		// account's bearer token and CA), or API: AllocatorService with
		// the agones-allocator's URL and an mTLS client.
		URL:       "https://kubernetes.default.svc/apis/allocation.agones.dev/v1/namespaces/default/gameserverallocations",
		Selectors: []map[string]string{{"agones.dev/fleet": "netphys"}},
		Port:      "default",
	}
	h := &tokenservice.Handler{
		Params:     netcode.DefaultTokenParams(),
		PrivateKey: netcode.Key{1}, // the servers' key, from the backend's secret store
		Authenticate: func(r *http.Request) (uint64, []byte, error) {
			return 1234, nil, nil // the backend's own session check
		},
		// The matchmaker put the player in a match; its first token
		// allocates the game server, the others reuse it.
		Servers: alloc.ForMatch(func(r *http.Request) (string, error) {
			if m := r.URL.Query().Get("match"); m != "" {
				return m, nil
			}
			return "", fmt.Errorf("no match given")
		}),
	}
	http.Handle("/netcode/token", h)
}
