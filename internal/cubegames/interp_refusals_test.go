package cubegames

import (
	"testing"
	"time"

	"github.com/netphys/netphys/match"
)

// The interp server's refusals by reason, for a metrics exporter
// (netphys_model_refused_total): a client that sends junk has it
// counted as malformed, as of the server's last Update. Before, the
// interp server counted its dropped datagrams but no metric showed them.
func TestInterpHostCountsRefusalsByReason(t *testing.T) {
	_, sides, setup := modelSides(t, match.Defaults{Model: "interp", Players: 2})
	setup.Players, setup.Now = 2, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	host, err := sides.NewHost(setup)
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Join(setup.Now, 0); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		_ = host.Receive(setup.Now, 0, []byte{1, 2, 3})
	}
	if err := host.Update(setup.Now.Add(time.Second/60), func(int, []byte) {}); err != nil {
		t.Fatal(err)
	}
	r, ok := host.(match.Refuser)
	if !ok {
		t.Fatal("the interp host counts no refusals for the metrics")
	}
	byReason := map[string]uint64{}
	for _, c := range r.RefusalCounts() {
		byReason[c.Reason] = c.Count
	}
	if len(byReason) != 2 || byReason["malformed_packet"] != 5 {
		t.Fatalf("refusals %v", byReason)
	}
}
