package match

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
)

// TestPredictDemoHeadless is `netphys demo --model predict --headless` in
// a test: the authority and four bots over real UDP through the proxy at
// 25 ms each way; the players predict, reconcile and shoot, and the server
// commits hits.
func TestPredictDemoHeadless(t *testing.T) {
	m, sides, setup := modelSides(t, Defaults{Model: "predict", Players: 4, Layout: scene.Tower20}, "--predict-rate", "30")
	s, err := Demo(context.Background(), DemoConfig{
		Model: m, Sides: sides, Setup: setup, Seed: 1, Script: true,
		Conditions: netsim.Conditions{Latency: 25 * time.Millisecond},
		Duration:   3 * time.Second,
	})
	var out strings.Builder
	s.Print(&out)
	t.Logf("\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"player 4 (bot)", "hits committed", "ticks clear of contacts", "seen to hit"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if strings.Contains(out.String(), " 0 predicted") {
		t.Error("a player predicted nothing")
	}
}
