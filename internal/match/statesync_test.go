package match

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// TestStatesyncDemoHeadless is `netphys demo --model statesync --players 3
// --headless`: the host and three guest bots over real UDP through the
// proxy; the guests hear the host and nobody's packets are refused.
func TestStatesyncDemoHeadless(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := DeclareFlags(fs, Defaults{Model: "statesync", Players: 3})
	if err := fs.Parse([]string{"--statesync-kbps", "128"}); err != nil {
		t.Fatal(err)
	}
	m, sides, err := f.Sides()
	if err != nil {
		t.Fatal(err)
	}
	setup, err := f.Setup(quiet)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Demo(context.Background(), DemoConfig{
		Model: m, Sides: sides, Setup: setup, Seed: 1,
		Conditions: netsim.Conditions{Latency: 20 * time.Millisecond, Loss: 0.05},
		Duration:   2 * time.Second,
	})
	var out strings.Builder
	s.Print(&out)
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"player 3 (bot)", "claims", "0 malformed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if strings.Contains(out.String(), " 0 received") {
		t.Error("a side received nothing")
	}
}
