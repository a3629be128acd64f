//go:build agonesreal

package main

import (
	"net/netip"
	"os"
	"testing"

	"github.com/netphys/netphys/transport/agones/agonestest"
)

// TestAgonesReal runs the serve --agones scenarios against Agones' own
// sdk-server (local mode; its GameServer file rewritten in place plays
// the controller's allocation): Ready, Allocated for a match by the token
// service, players with its tokens, Shutdown; then Ready again after a
// match, and SIGTERM draining the next; serve --rooms counting its
// matches in the Counter matches and shutting down after the last; and
// serve --rooms waiting for a match allocated to it (the file rewritten
// with the Counter one more) after its last running match ended. It exists only with -tags
// agonesreal and needs NETPHYS_AGONES_SDK, the directory of
// run-sdk-server.sh (.ci/run sets both when ../shared/agones is there).
func TestAgonesReal(t *testing.T) {
	dir := os.Getenv("NETPHYS_AGONES_SDK")
	if dir == "" {
		t.Fatal("NETPHYS_AGONES_SDK is unset: give the directory holding run-sdk-server.sh")
	}
	for _, sc := range []struct {
		name string
		run  func(*testing.T, string, sdkGateway)
	}{
		{"ShutdownAfterTheMatch", agonesShutdownScenario},
		{"ReadyAgainAndSIGTERMDrains", agonesReadyDrainScenario},
		{"LockstepMatch", agonesLockstepScenario},
		{"RoomsCountMatches", agonesRoomsScenario},
		{"RoomsWaitForAllocatedMatch", func(t *testing.T, addr string, gw sdkGateway) { agonesRoomsWaitScenario(t, addr, gw.(countedGateway)) }},
	} {
		t.Run(sc.name, func(t *testing.T) {
			addr := freeUDPAddr(t)
			r, err := agonestest.StartReal(dir, t.TempDir(), 4, testFleet, netip.MustParseAddrPort(addr))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			sc.run(t, addr, r)
			if t.Failed() || testing.Verbose() {
				t.Logf("sdk-server's log:\n%s", r.Log())
			}
			if st := r.State(); (sc.name != "ReadyAgainAndSIGTERMDrains") != (st == "Shutdown") {
				t.Errorf("the sdk-server ends with state %s", st)
			}
		})
	}
}
