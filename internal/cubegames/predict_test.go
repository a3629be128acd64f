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
