package tokenservice_test

import (
	"net/http"
	"net/netip"
	"time"

	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

func ExampleHandler() {
	h := &tokenservice.Handler{
		Params:     netcode.DefaultTokenParams(),
		PrivateKey: netcode.Key{1}, // from the backend's secret store
		Authenticate: func(r *http.Request) (uint64, []byte, error) {
			// The backend's own session check goes here.
			return 1234, []byte("skin=blue"), nil
		},
	}
	h.Params.ProtocolID = 0x315359485054454e
	h.Params.ServerAddresses = []netip.AddrPort{netip.MustParseAddrPort("203.0.113.7:40000")}
	h.Params.Expiry = 45 * time.Second
	http.Handle("/netcode/token", h)
}
