package main

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/netphys/netphys/internal/browsertest"
)

// demoTabURL is the line demo --browser-player prints.
var demoTabURL = regexp.MustCompile(`netphys demo: open (http://\S+) in Chrome`)

// TestDemoBrowserPlayer: `netphys demo --browser-player` (lockstep by
// default) serves a match whose player 1 is a headless chromium tab,
// in lockstep's first seat, its page's keys idle, and whose two other
// players are the demo's bots. The tab and both bots end at the same
// tick with the same checksum, and the server verified the match's
// checksums equal.
func TestDemoBrowserPlayer(t *testing.T) {
	heavyTest(t)
	const ticks = 240
	tab, out := demoWithTab(t, ticks, "--players", "3")
	if !strings.Contains(tab, "player 1") || !strings.Contains(tab, "session seat       0") {
		t.Errorf("the tab is not player 1 in lockstep's seat 0:\n%s", tab)
	}
	tabSum := checksumLine.FindStringSubmatch(tab)
	if tabSum == nil || tabSum[1] != fmt.Sprint(ticks) {
		t.Fatalf("the tab's checksum line %q, want one at tick %d", tabSum, ticks)
	}
	bots := checksumLine.FindAllStringSubmatch(out, -1)
	if len(bots) != 2 {
		t.Fatalf("the demo printed %d checksum lines, want the two bots'", len(bots))
	}
	for _, bot := range bots {
		if bot[1] != tabSum[1] || bot[2] != tabSum[2] {
			t.Errorf("a bot ended with checksum %s at tick %s, the tab with %s at tick %s", bot[2], bot[1], tabSum[2], tabSum[1])
		}
	}
	if !strings.Contains(out, "verified equal") || !strings.Contains(out, "player 3") {
		t.Errorf("the demo's output lacks the verified checksums or the third player")
	}
}

// TestDemoBrowserPlayerPredict: `demo --browser-player --model predict`:
// the tab predicts in the arena against a bot of the demo and reports
// its mispredictions; the server counts both players' datagrams. The
// tab plays 8 s: a tab that stalls as it starts (a loaded machine: 200 ms
// frames) needs a few seconds before its clock settles and its
// predictions are compared.
func TestDemoBrowserPlayerPredict(t *testing.T) {
	heavyTest(t)
	tab, out := demoWithTab(t, 480, "--model", "predict", "--players", "2")
	m := mispredictedLine.FindStringSubmatch(tab)
	if m == nil || m[2] == "0" {
		t.Fatalf("the tab's summary counts no predicted ticks:\n%s", tab)
	}
	if !strings.Contains(tab, "player 1") || !strings.Contains(out, "player 2") {
		t.Errorf("the tab is not player 1 or the demo's summary lacks the bot, player 2")
	}
}

// demoWithTab runs `netphys demo --browser-player --ticks ticks` with the
// flags, opens the page it prints in headless chromium as is, and
// returns the tab's summary and the demo's output once both are done.
func demoWithTab(t *testing.T, ticks int, flags ...string) (tab, out string) {
	p := newProcs(t, 4*time.Minute)
	demo := p.run(nil, append([]string{"demo", "--browser-player", "--http", "127.0.0.1:0", "--ticks", fmt.Sprint(ticks)}, flags...)...)
	var page string
	for page == "" { // the demo builds the tab's wasm program first
		if m := demoTabURL.FindStringSubmatch(demo.out.String()); m != nil {
			page = m[1]
		} else if p.ctx.Err() != nil {
			t.Fatalf("the demo printed no page:\n%s", demo.out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, want := range []string{"--bot=false", fmt.Sprintf("--ticks=%d", ticks)} {
		if !strings.Contains(page, url.QueryEscape(want)) {
			t.Errorf("the page %s lacks the tab's flag %s", page, want)
		}
	}

	b := browsertest.Start(t, p.ctx, 640, 360)
	b.Open(page)
	var st tabPlayState
	for st.State != "done" {
		var err error
		st, err = chromedp.Run(b.Context(), chromedp.Evaluate[tabPlayState](`globalThis.__tabState ?? {}`))
		if err == nil && st.Error != "" {
			t.Fatalf("the tab failed: %s\n%s", st.Error, st.Summary)
		}
		if p.ctx.Err() != nil {
			t.Fatalf("the tab did not finish: state %+v (err %v)\ndemo:\n%s", st, err, demo.out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("tab:\n%s", st.Summary)
	if err := demo.cmd.Wait(); err != nil {
		t.Fatalf("demo: %v\n%s", err, demo.out)
	}
	b.Close()
	out = demo.out.String()
	t.Logf("demo:\n%s", out)
	if !strings.Contains(out, "the tab joined as player 1") {
		t.Errorf("the demo did not say the tab joined as player 1")
	}
	return st.Summary, out
}

// TestDemoBrowserPlayerFlags: flags that do not go with a browser player
// fail before anything starts or prints, naming the flag.
func TestDemoBrowserPlayerFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "--ticks", "5"}, "give --browser-player too"},
		{[]string{"demo", "--webtransport", "127.0.0.1:0"}, "give --browser-player too"},
		{[]string{"demo", "--browser-player", "--loss", "5%"}, "--loss"},
		{[]string{"demo", "--browser-player", "--headless"}, "--headless"},
		{[]string{"demo", "--browser-player", "--ticks", "-1"}, "--ticks -1"},
		{[]string{"demo", "--browser-player", "--http", ""}, "--http is empty"},
		{[]string{"demo", "--browser-player", "--http", "0.0.0.0:8080"}, "--webtransport 127.0.0.1:0 is a loopback address"},
		{[]string{"demo", "--browser-player", "--model", "state"}, "--model state"},
		{[]string{"demo", "--browser-player", "--players", "9"}, "--players 9"},
	} {
		var out strings.Builder
		err := run(context.Background(), tt.args, &out)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err %v, want it to mention %q", tt.args, err, tt.want)
		}
		if out.Len() > 0 {
			t.Errorf("%q printed before failing:\n%s", tt.args, out.String())
		}
	}
	if loopback("0.0.0.0:1") || loopback("10.1.2.3:1") || !loopback("127.0.0.1:0") || !loopback("[::1]:80") || !loopback("localhost:8080") {
		t.Error("loopback tells loopback addresses wrong")
	}
	if f := chromiumFlag("10.1.2.3:8080", "http://10.1.2.3:8080/?args="); !strings.Contains(f, "--unsafely-treat-insecure-origin-as-secure=http://10.1.2.3:8080") {
		t.Errorf("a page on 10.1.2.3: %q, want the flag", f)
	}
	if f := chromiumFlag("127.0.0.1:8080", "http://127.0.0.1:8080/?args="); f != "" {
		t.Errorf("a page on loopback: %q, want no flag", f)
	}
}
