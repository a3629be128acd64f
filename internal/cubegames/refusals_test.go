package cubegames

import (
	"testing"
	"time"

	"github.com/netphys/netphys/match"
)

// The hosts' refusals by reason, for a metrics exporter
// (netphys_model_refused_total), as of each host's last Update.

// TestPredictHostCountsRefusalsByReason: a joined player whose client
// sends nothing stands still after the grace.
func TestPredictHostCountsRefusalsByReason(t *testing.T) {
	counts, byReason := hostRefusals(t, "predict", 0, 60)
	if len(counts) != 9 || len(byReason) != 9 || byReason["input_idle_after_grace"] < 40 {
		t.Fatalf("refusals %v", counts)
	}
}

// TestInterpHostCountsRefusalsByReason: a client that sends junk has it
// counted as malformed (before, only the summary line showed it).
func TestInterpHostCountsRefusalsByReason(t *testing.T) {
	_, byReason := hostRefusals(t, "interp", 5, 1)
	if len(byReason) != 2 || byReason["malformed_packet"] != 5 {
		t.Fatalf("refusals %v", byReason)
	}
}

// TestStatesyncHostCountsRefusalsByReason: a seated guest whose client
// sends junk, a hundred datagrams at once, has the first ones counted as
// malformed and the rest as a flood (before, no metric showed them).
func TestStatesyncHostCountsRefusalsByReason(t *testing.T) {
	_, byReason := hostRefusals(t, "statesync", 100, 1)
	if byReason["malformed_packet"] == 0 || byReason["packet_flood"] == 0 || byReason["malformed_packet"]+byReason["packet_flood"] != 100 {
		t.Fatalf("refusals %v", byReason)
	}
}

// hostRefusals runs a two-player host of model with a client joined in
// slot 0 that sends junk datagrams, for frames updates, and returns the
// host's refusal counts, also by reason.
func hostRefusals(t *testing.T, model string, junk, frames int) ([]match.Count, map[string]uint64) {
	t.Helper()
	_, sides, setup := modelSides(t, match.Defaults{Model: model, Players: 2})
	setup.Players, setup.Now = 2, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	host, err := sides.NewHost(setup)
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Join(setup.Now, 0); err != nil {
		t.Fatal(err)
	}
	for range junk {
		_ = host.Receive(setup.Now, 0, []byte{1, 2, 3})
	}
	for i := 1; i <= frames; i++ {
		if err := host.Update(setup.Now.Add(time.Duration(i)*time.Second/60), func(int, []byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	r, ok := host.(match.Refuser) // a host with spectators (match.Watched) forwards its model's
	if !ok {
		t.Fatalf("the %s host counts no refusals for the metrics", model)
	}
	counts := r.RefusalCounts()
	byReason := map[string]uint64{}
	for _, c := range counts {
		byReason[c.Reason] = c.Count
	}
	return counts, byReason
}
