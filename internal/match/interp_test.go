package match

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
)

// TestInterpDemoHeadless is `netphys demo --model interp --headless` in a
// test: the server and two viewers over real UDP through the proxy at
// 25 ms each way; the viewers draw the interpolated world.
func TestInterpDemoHeadless(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := DeclareFlags(fs, Defaults{Model: "interp", Players: 2, Layout: scene.Tower20})
	if err := fs.Parse([]string{"--pps", "20", "--hermite"}); err != nil {
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
	for _, want := range []string{"player 2 (bot)", "render delay", "encodings", "0 datagrams: 0 without their baseline"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if strings.Contains(out.String(), " 0 drawn") {
		t.Error("a viewer drew nothing")
	}
}

func TestInterpFlags(t *testing.T) {
	for _, args := range [][]string{{"--pps", "7"}, {"--buffering", "big"}} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		f := DeclareFlags(fs, Defaults{Model: "interp", Players: 1, Layout: scene.Tower20})
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.Sides(); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
