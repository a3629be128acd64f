//go:build agonesreal

package agones_test

import (
	"net/netip"
	"os"
	"testing"

	"github.com/netphys/netphys/transport/agones/agonestest"
)

// TestAgonesReal runs the client's lifecycle against Agones' own
// sdk-server (local mode). It exists only with -tags agonesreal and needs
// NETPHYS_AGONES_SDK, the directory of sdk-server.gz and
// run-sdk-server.sh (.ci/run sets both when ../shared/agones is there).
func TestAgonesReal(t *testing.T) {
	dir := os.Getenv("NETPHYS_AGONES_SDK")
	if dir == "" {
		t.Fatal("NETPHYS_AGONES_SDK is unset: give the directory holding run-sdk-server.sh")
	}
	r, err := agonestest.StartReal(dir, t.TempDir(), 4, map[string]string{"netphys.dev/model": "echo"}, netip.MustParseAddrPort("127.0.0.1:7777"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	exerciseClient(t, r)
	if t.Failed() {
		t.Logf("sdk-server log:\n%s", r.Log())
	}
	t.Run("PlayerTracking", func(t *testing.T) {
		r, err := agonestest.StartReal(dir, t.TempDir(), 4, nil, netip.MustParseAddrPort("127.0.0.1:7777"), "--feature-gates", "PlayerTracking=true")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		exercisePlayerTracking(t, r.URL())
	})
}
