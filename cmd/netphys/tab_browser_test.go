package main

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/netphys/netphys/internal/browsertest"
)

// tabURL is the line serve --web prints.
var tabURL = regexp.MustCompile(`a browser tab plays at (http://\S+)`)

// tabPlayState is the part of the tab's globalThis.__tabState a playing
// tab fills.
type tabPlayState struct {
	State   string `json:"state"`
	Summary string `json:"summary"`
	Error   string `json:"error"`
}

// TestTabPlaysLockstepWithNativeBot is issue 26's first browser match:
// `serve --model lockstep --players 2 --webtransport --web` with one
// native `play --bot` process and one headless chromium tab, whose
// lockstep client runs in wasm over WebTransport and whose world the
// viewer draws from the simulation in the tab. Both stop at the same
// tick and their checksums there are equal, and the server verified the
// checksums of the match equal. It runs plain lockstep and lockstep
// with rollback.
func TestTabPlaysLockstepWithNativeBot(t *testing.T) {
	heavyTest(t)
	const ticks = 240
	for _, c := range []struct {
		name  string
		flags []string
	}{{"delay", nil}, {"rollback", []string{"--rollback"}}} {
		t.Run(c.name, func(t *testing.T) {
			tab, native, serve := tabMatch(t, append([]string{"--model", "lockstep", "--players", "2", "--layout", "tower20"}, c.flags...), ticks, ticks)
			tabSum := checksumLine.FindStringSubmatch(tab)
			nativeSum := checksumLine.FindStringSubmatch(native)
			if tabSum == nil || nativeSum == nil {
				t.Fatalf("a checksum line is missing: tab %q, native %q", tabSum, nativeSum)
			}
			if tabSum[1] != fmt.Sprint(ticks) || nativeSum[1] != fmt.Sprint(ticks) {
				t.Errorf("checksums of ticks %s (tab) and %s (native), want %d", tabSum[1], nativeSum[1], ticks)
			}
			if tabSum[2] != nativeSum[2] {
				t.Errorf("the tab ended with checksum %s, the native player with %s", tabSum[2], nativeSum[2])
			}
			if !strings.Contains(serve, "verified equal") || !strings.Contains(serve, "player 2") {
				t.Errorf("the server's summary lacks the verified checksums or the second player")
			}
		})
	}
}

// TestTabPlaysLockstepWithKeys: the tab's player is driven by the page's
// keys (--bot=false): holding the right arrow in the tab pushes its cube
// along +X in the tab's world, and the tab's and the native bot's
// checksums at the end are equal, so the key's inputs went through
// lockstep to the other player too.
func TestTabPlaysLockstepWithKeys(t *testing.T) {
	heavyTest(t)
	const ticks = 600
	tab, native, _ := tabMatchWith(t, []string{"--model", "lockstep", "--players", "2", "--layout", "tower20"}, ticks, ticks, "--bot=false",
		func(b *browsertest.Browser) {
			before := b.WaitState("the tab's session running", func(s browsertest.PageState) bool {
				return len(s.Views) > 0 && s.Views[0].Player != nil
			})
			b.Press(browsertest.ArrowRight)
			b.WaitState("the tab's cube pushed over 1 m along +X", func(s browsertest.PageState) bool {
				return len(s.Views) > 0 && s.Views[0].Player != nil && s.Views[0].Player[0]-before.Views[0].Player[0] > 1
			})
			b.Release(browsertest.ArrowRight)
		})
	tabSum := checksumLine.FindStringSubmatch(tab)
	nativeSum := checksumLine.FindStringSubmatch(native)
	if tabSum == nil || nativeSum == nil || tabSum[2] != nativeSum[2] {
		t.Errorf("checksums: tab %q, native %q; want both, equal", tabSum, nativeSum)
	}
}

// mispredictedLine is the line of a predict player's summary that counts
// its mispredictions.
var mispredictedLine = regexp.MustCompile(`mispredicted\s+(\d+) of (\d+) ticks clear of contacts`)

// TestTabPlaysPredictWithNativeBot: a tab plays a predict match (client
// prediction against the server's authority, in the arena) against a
// native `play --bot`, and reports its mispredictions.
func TestTabPlaysPredictWithNativeBot(t *testing.T) {
	heavyTest(t)
	// A predict match starts with its first player: the tab plays long
	// enough for the native player, who joins once the tab drew, to play
	// its ticks beside it.
	tab, _, serve := tabMatch(t, []string{"--model", "predict", "--players", "2"}, 900, 240)
	m := mispredictedLine.FindStringSubmatch(tab)
	if m == nil || m[2] == "0" {
		t.Fatalf("the tab's summary counts no predicted ticks:\n%s", tab)
	}
	if !strings.Contains(serve, "player 2") {
		t.Errorf("the server's summary lacks the second player")
	}
}

// tabMatch runs `serve --webtransport --web` with the match flags, a
// headless chromium tab that joins first and draws its world, then one
// native `play --bot`, which play tabTicks and ticks ticks. It returns
// the summaries of the tab, the native player and the server.
func tabMatch(t *testing.T, match []string, tabTicks, ticks int) (tab, native, serve string) {
	return tabMatchWith(t, match, tabTicks, ticks, "", nil)
}

// tabMatchWith is tabMatch with more flags for the tab (tabArgs) and
// during, when not nil, run once the native player has started.
func tabMatchWith(t *testing.T, match []string, tabTicks, ticks int, tabArgs string, during func(b *browsertest.Browser)) (tab, native, serve string) {
	r := tabGame(t, tabSetup{match: match, tabTicks: tabTicks, tabArgs: tabArgs, during: during,
		natives: []tabNative{{ticks: ticks, flags: match}}})
	return r.tab, r.natives[0], r.serve
}

// tabSetup is a match of a tab and native players: serve's flags (serve
// only, then match, the match flags the tab gets too), the tab's ticks
// and more flags, the native `play --bot` processes, which start once
// the tab drew, and during, when not nil, run once they have started.
type tabSetup struct {
	serve, match []string
	tabTicks     int
	tabArgs      string
	natives      []tabNative
	during       func(b *browsertest.Browser)
}

// tabNative is a native player: the i-th has client id i+1, a token
// with the token flags (none: the server's match), and plays ticks ticks
// with the match flags.
type tabNative struct {
	token, flags []string
	ticks        int
}

// tabResult is the summaries of a tabGame.
type tabResult struct {
	tab, serve string
	natives    []string
}

// tabGame runs `serve --webtransport --web` with the flags, a headless
// chromium tab that joins first and draws its world, then the native
// players, and returns the summaries once all are done.
func tabGame(t *testing.T, g tabSetup) tabResult {
	p := newProcs(t, 4*time.Minute)
	ctx := p.ctx
	server, serveOut := p.serve(nil, append(append([]string{"--webtransport", "127.0.0.1:0", "--web", "127.0.0.1:0"}, g.serve...), g.match...)...)
	var page string
	for page == "" { // serve builds the tab's wasm program first
		if m := tabURL.FindStringSubmatch(serveOut.String()); m != nil {
			page = m[1]
		} else if ctx.Err() != nil {
			t.Fatalf("serve printed no page:\n%s", serveOut)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(page, url.QueryEscape("--model="+g.match[1])) {
		t.Fatalf("the page %s does not carry the server's match flags", page)
	}

	// The tab joins first and draws before the native players join and
	// the session starts.
	b := browsertest.Start(t, ctx, 640, 360)
	b.Open(page + url.QueryEscape(fmt.Sprintf(" --ticks=%d --linger=1s %s", g.tabTicks, g.tabArgs)))
	// The tab draws its own world, from the simulation in the tab.
	drawn := b.WaitState("the tab draws its world", func(s browsertest.PageState) bool {
		return s.Rendered > 0 && len(s.Views) > 0 && s.Views[0].Cubes > 0
	})
	t.Logf("the tab drew frame %d: %d views, %d cubes in the first", drawn.Rendered, len(drawn.Views), drawn.Views[0].Cubes)

	var players []proc
	for i, n := range g.natives {
		players = append(players, p.run(nil, botArgs(p.token(i+1, n.token...), n.ticks, n.flags...)...))
	}
	if g.during != nil {
		g.during(b)
	}

	var st tabPlayState
	for st.State != "done" {
		var err error
		st, err = chromedp.Run(b.Context(), chromedp.Evaluate[tabPlayState](`globalThis.__tabState ?? {}`))
		if err == nil && st.Error != "" {
			t.Fatalf("the tab failed: %s\n%s", st.Error, st.Summary)
		}
		if ctx.Err() != nil {
			t.Fatalf("the tab did not finish: state %+v (err %v), page %q\nserver:\n%s", st, err, b.Text("#status"), serveOut)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("tab:\n%s", st.Summary)
	r := tabResult{tab: st.Summary}
	for i, player := range players {
		if err := player.cmd.Wait(); err != nil {
			t.Fatalf("play %d: %v\n%s", i+1, err, player.out)
		}
		t.Logf("native player %d:\n%s", i+1, player.out)
		r.natives = append(r.natives, player.out.String())
	}
	b.Close() // before the server goes: the tab would see its session lost
	if err := server.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := server.Wait(); err != nil {
		t.Errorf("serve: %v\n%s", err, serveOut)
	}
	t.Logf("server:\n%s", serveOut)
	r.serve = serveOut.String()
	return r
}

// snapshotsLine is the line of an interp player's summary that counts
// the snapshots it drew.
var snapshotsLine = regexp.MustCompile(`snapshots\s+(\d+) drawn, (\d+) late`)

// TestTabWatchesInterpMatch: a tab is a player of an interp match (the
// server's snapshots interpolated) beside a native bot, in the 900-cube
// world, and draws the snapshots it receives.
func TestTabWatchesInterpMatch(t *testing.T) {
	heavyTest(t)
	tab, _, serve := tabMatch(t, []string{"--model", "interp", "--players", "2"}, 900, 240)
	m := snapshotsLine.FindStringSubmatch(tab)
	if m == nil || m[1] == "0" {
		t.Fatalf("the tab drew no snapshot:\n%s", tab)
	}
	if !strings.Contains(serve, "player 2") {
		t.Errorf("the server's summary lacks the second player")
	}
}
