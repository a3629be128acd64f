package cubegames

import (
	"testing"
	"time"

	"github.com/netphys/netphys/match"
)

// The statesync host's refusals by reason, for a metrics exporter
// (netphys_model_refused_total): a seated guest whose client sends junk,
// a hundred datagrams at once, has the first ones counted as malformed
// and the rest as a flood, as of the host's last Update. Before, the
// statesync host counted them but no metric showed them.
func TestStatesyncHostCountsRefusalsByReason(t *testing.T) {
	_, sides, setup := modelSides(t, match.Defaults{Model: "statesync", Players: 2})
	setup.Players, setup.Now = 2, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	host, err := sides.NewHost(setup)
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Join(setup.Now, 0); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		_ = host.Receive(setup.Now, 0, []byte{1, 2, 3})
	}
	if err := host.Update(setup.Now.Add(time.Second/60), func(int, []byte) {}); err != nil {
		t.Fatal(err)
	}
	r, ok := host.(match.Refuser)
	if !ok {
		t.Fatal("the statesync host counts no refusals for the metrics")
	}
	byReason := map[string]uint64{}
	for _, c := range r.RefusalCounts() {
		byReason[c.Reason] = c.Count
	}
	if byReason["malformed_packet"] == 0 || byReason["packet_flood"] == 0 || byReason["malformed_packet"]+byReason["packet_flood"] != 100 {
		t.Fatalf("refusals %v", byReason)
	}
}
