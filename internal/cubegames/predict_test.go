package cubegames

import (
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/transport/netsim"
)

// TestPredictDemoHeadless is `netphys demo --model predict --headless` in
// a test: the authority and four bots over real UDP through the proxy at
// 25 ms each way; the players predict, reconcile and shoot, and the server
// commits hits.
func TestPredictDemoHeadless(t *testing.T) {
	m, sides, setup := modelSides(t, match.Defaults{Model: "predict", Players: 4}, "--predict-rate", "30")
	out := headlessDemo(t, match.DemoConfig{
		Model: m, Sides: sides, Setup: setup, Seed: 1, Script: true,
		Conditions: netsim.Conditions{Latency: 25 * time.Millisecond},
		Duration:   3 * time.Second,
	}, "player 4 (bot)", "hits committed", "ticks clear of contacts", "seen to hit")
	if strings.Contains(out, " 0 predicted") {
		t.Error("a player predicted nothing")
	}
}

// The predict host's refusals by reason, for a metrics exporter: a joined
// player whose client sends nothing stands still after the grace, which
// the host counts as of its last Update.
func TestPredictHostCountsRefusalsByReason(t *testing.T) {
	_, sides, setup := modelSides(t, match.Defaults{Model: "predict", Players: 2})
	setup.Players, setup.Now = 2, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	host, err := sides.NewHost(setup)
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Join(setup.Now, 0); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 60; i++ {
		if err := host.Update(setup.Now.Add(time.Duration(i)*time.Second/60), func(int, []byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	counts := host.(match.Refuser).RefusalCounts() // the host with spectators (match.Watched) forwards its model's
	byReason := map[string]uint64{}
	for _, r := range counts {
		byReason[r.Reason] = r.Count
	}
	if len(counts) != 9 || len(byReason) != 9 || byReason["input_idle_after_grace"] < 40 {
		t.Fatalf("refusals %v", counts)
	}
}
