package cubegames

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/demo"
	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/viewer"
)

// TestInterpDemoHeadless is `netphys demo --model interp --headless` in a
// test: the server and two viewers over real UDP through the proxy at
// 25 ms each way; the viewers draw the interpolated world.
func TestInterpDemoHeadless(t *testing.T) {
	m, sides, setup := modelSides(t, match.Defaults{Model: "interp", Players: 2}, "--pps", "20", "--hermite")
	out := headlessDemo(t, match.DemoConfig{
		Model: m, Sides: sides, Setup: setup, Seed: 1, Script: true,
		Conditions: netsim.Conditions{Latency: 25 * time.Millisecond},
		Duration:   3 * time.Second,
	}, "player 2 (bot)", "render delay", "encodings", "0 datagrams: 0 without their baseline")
	if strings.Contains(out, " 0 drawn") {
		t.Error("a viewer drew nothing")
	}
}

func TestInterpFlags(t *testing.T) {
	for _, args := range [][]string{{"--pps", "7"}, {"--buffering", "big"}} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		f := match.DeclareFlags(fs, match.Defaults{Model: "interp", Players: 1})
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.Sides(); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// TestInterpDemoError is `netphys demo --model interp --headless` on the
// demo's default conditions (100 ms each way, 5 % loss, 30 pps, linear):
// the viewer's error against the server's state at the tick it shows is
// in the status lines and the summary, and plausible.
func TestInterpDemoError(t *testing.T) {
	m, sides, setup := modelSides(t, match.Defaults{Model: "interp", Players: 1})
	var status strings.Builder
	s, err := match.Demo(context.Background(), match.DemoConfig{
		Model: m, Sides: sides, Setup: setup, Seed: 1, Script: true,
		Conditions: demo.DefaultConfig().Conditions,
		Duration:   4 * time.Second, Status: &status, StatusEvery: time.Second,
	})
	var out strings.Builder
	s.Print(&out)
	t.Logf("\n%s\n%s", status.String(), out.String())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(status.String(), " players: ") || !strings.Contains(status.String(), "error mean ") || !strings.Contains(status.String(), "error p95 ") {
		t.Error("the status lines lack the error")
	}
	var line, framesLine string
	for _, sec := range s.Sections {
		for _, l := range sec.Lines {
			if sec.Name == "player 1 (bot)" && l.Name == "error" {
				line = l.Value
			}
			if sec.Name == "player 1 (bot)" && l.Name == "frames" {
				framesLine = l.Value
			}
		}
	}
	var mean, p95, maxErr float64
	var compared, frames, ahead, old int
	if _, err := fmt.Sscanf(line, "mean %g mm, p95 %g mm, max %g mm of the moving objects; %d of %d frames compared, %d ahead of the server's simulation, %d outside",
		&mean, &p95, &maxErr, &compared, &frames, &ahead, &old); err != nil {
		t.Fatalf("error line %q: %v", line, err)
	}
	if !(mean > 0 && p95 > 0 && maxErr >= p95-0.05 && !math.IsInf(maxErr, 0)) || compared < 1 || compared+ahead+old != frames {
		t.Errorf("error line %q", line)
	}
	// Generous: the report measures p95 of a few mm at 30 pps, 5 % loss.
	// A buffer that ran dry (a machine too slow for the server, under the
	// race detector) is an error the figure must show, not bound.
	var drawn, dry int
	if _, err := fmt.Sscanf(framesLine, "%d, %d dry", &drawn, &dry); err != nil {
		t.Fatalf("frames line %q: %v", framesLine, err)
	}
	if dry*100 <= drawn && p95 >= 100 {
		t.Errorf("error p95 %.2f mm with %d of %d frames dry", p95, dry, drawn)
	}
}

// TestInterpPlayWithoutServer: a viewer in a process without the server
// (play) says its error cannot be measured there.
func TestInterpPlayWithoutServer(t *testing.T) {
	_, sides, setup := modelSides(t, match.Defaults{Model: "interp", Players: 1})
	now := time.Unix(0, 0)
	setup.Now = now
	p, err := sides.NewPlayer(match.PlayerSetup{Setup: setup})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := p.Update(now.Add(time.Duration(i)*time.Second), func([]byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	figs := p.Figures(now, nil)
	if i := slices.IndexFunc(figs, func(f viewer.Figure) bool { return f.Name == "error" }); i < 0 || !strings.Contains(figs[i].Text, "demo only") {
		t.Errorf("figures %+v", figs)
	}
	lines := p.Summary(now, nil)
	if i := slices.IndexFunc(lines, func(l match.Line) bool { return l.Name == "error" }); i < 0 || !strings.Contains(lines[i].Value, "not measured") {
		t.Errorf("summary %+v", lines)
	}
}
