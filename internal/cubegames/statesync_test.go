package cubegames

import (
	"context"
	"flag"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/netphys/netphys/internal/browsertest"
	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
)

// TestStatesyncDemoHeadless is `netphys demo --model statesync --players 4
// --headless`: the host and three guest bots over real UDP through the
// proxy; the guests hear the host and nobody's packets are refused.
func TestStatesyncDemoHeadless(t *testing.T) {
	m, sides, setup := modelSides(t, match.Defaults{Model: "statesync", Players: 2}, "--players", "4", "--statesync-kbps", "128")
	out := headlessDemo(t, match.DemoConfig{
		Model: m, Sides: sides, Setup: setup, Seed: 1,
		Conditions: netsim.Conditions{Latency: 20 * time.Millisecond, Loss: 0.05},
		Duration:   2 * time.Second,
	}, "player 3 (bot)", "claims", "0 malformed")
	if strings.Contains(out, "player 4") {
		t.Error("a fourth guest joined a table of four")
	}
	if strings.Contains(out, " 0 received") {
		t.Error("a side received nothing")
	}
}

// TestStatesyncPlayersCountTheHost: --players is the table, the host
// included, so a table of one or of five is refused before anything runs,
// and a host of a table of three turns a third guest away.
func TestStatesyncPlayersCountTheHost(t *testing.T) {
	for _, players := range []string{"1", "5"} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		f := match.DeclareFlags(fs, match.Defaults{Model: "statesync", Players: 4})
		if err := fs.Parse([]string{"--players", players}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.Sides(); err == nil || !strings.Contains(err.Error(), "--players "+players) {
			t.Errorf("--players %s: statesync's flags give %v", players, err)
		}
	}
	m, sides, setup := modelSides(t, match.Defaults{Model: "statesync", Players: 3})
	if m.Clients(setup.Players) != 2 {
		t.Errorf("a table of 3 needs %d clients, want 2", m.Clients(setup.Players))
	}
	h, err := sides.NewHost(setup)
	if err != nil {
		t.Fatal(err)
	}
	for slot, want := range []bool{true, true, false} {
		if err := h.Join(setup.Now, slot); (err == nil) != want {
			t.Errorf("table of 3: slot %d joins: %v", slot, err)
		}
	}
	if _, err := sides.NewPlayer(match.PlayerSetup{Setup: setup, Slot: 2, Bot: true}); err == nil {
		t.Error("table of 3: a guest in slot 2 was built")
	}
}

// TestStatesyncDemoBrowser is `netphys demo --model statesync --players 4`
// in Debian's chromium: the host's view and the three guests' in a grid, each with the four avatars in their players' colours, and
// authority colours on the cubes once the bots take some. Guest 1 is the
// page's: the page shows the controls of the VR hand, and a left-button
// drag across guest 1's viewport, dispatched as real mouse events,
// carries its right hand along the table's edge in front of it, to its
// right: guest 1's own view looks at the table from behind guest 1, who
// faces -z, so screen right is +x. A right-button drag up the screen then
// lifts the hand. At 1280×720 and 1920×1080 the page's layout then passes
// checkLayout.
func TestStatesyncDemoBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	t.Cleanup(cancel)
	m, sides, setup := modelSides(t, match.Defaults{Model: "statesync", Players: 4})
	const width, height = 1280, 480
	b := demoInBrowser(t, ctx, m, sides, setup, width, height)
	// The drag below aims at guest 1's head as drawn: wait until its
	// camera has stopped easing in, so that the head stays where it was read.
	var prevOwn []float64
	st := b.WaitState("four views drawn, guest 1's camera still", func(s browsertest.PageState) bool {
		if !s.Drawn(4) || len(s.Views) < 2 || len(s.Views[1].Own) < 2 {
			return false
		}
		own := s.Views[1].Own
		still := prevOwn != nil && math.Abs(own[0]-prevOwn[0]) < 0.005 && math.Abs(own[1]-prevOwn[1]) < 0.005
		prevOwn = append(prevOwn[:0], own...)
		return still
	})
	var names []string
	for _, view := range st.Views {
		names = append(names, view.Name)
	}
	if want := "host,player 1 (keys) guest 1,player 2 (bot) guest 2,player 3 (bot) guest 3"; strings.Join(names, ",") != want {
		t.Fatalf("views %q, want %s", names, want)
	}
	if controls := b.Text("#keys"); !strings.Contains(controls, "left button") || !strings.Contains(controls, "right drag") {
		t.Errorf("controls line %q does not say what the mouse does", controls)
	}

	// Guest 1's view lists the other avatars, then its own: left hand,
	// right hand, head; the host's lists guest 1's first.
	hand := func(s browsertest.PageState) []float64 {
		ps := s.Views[1].Players
		if len(ps) != 3*scene.VRPlayers {
			t.Fatalf("guest 1's view has %d avatar parts, want 3 per player", len(ps))
		}
		return ps[len(ps)-2]
	}
	onHost := func(s browsertest.PageState) []float64 { return s.Views[0].Players[1] }
	start, startOnHost := hand(st), onHost(st)
	// Across guest 1's viewport at the height of its head as drawn (View.Own),
	// which is at the guest's edge of the table.
	v := st.Views[1]
	if v.Cell == nil || v.Own == nil {
		t.Fatalf("guest 1's view has no viewport or head drawn: %+v", v)
	}
	y := v.Cell.Y + (1-v.Own[1])/2*v.Cell.H
	x0, x1 := v.Cell.X+0.4*v.Cell.W, v.Cell.X+0.65*v.Cell.W
	b.Drag(browsertest.LeftButton, x0, y, x1, y, 10, 50*time.Millisecond)
	// The guest sends its avatar, not its input: the host sees the hand
	// move too.
	st = b.WaitState("the hand carried right, on the guest and on the host", func(s browsertest.PageState) bool {
		return s.Drawn(4) && hand(s)[0] > start[0]+2 && onHost(s)[0] > startOnHost[0]+2
	})
	end := hand(st)
	t.Logf("guest 1's right hand from %.2f to %.2f; pointer sent %+v", start, end, st.Pointer)
	if st.Pointer == nil || st.Pointer.Grip {
		t.Errorf("page pointer %+v, want one, released", st.Pointer)
	}
	if z := end[2]; z < 5 || z > 11 {
		t.Errorf("the hand is at z %.2f after a drag across the screen, want it still at guest 1's edge of the table (5 to 11)", z)
	}
	b.Drag(browsertest.RightButton, x1, y, x1, y-0.3*v.Cell.H, 5, 50*time.Millisecond)
	st = b.WaitState("the hand lifted", func(s browsertest.PageState) bool {
		return s.Drawn(4) && hand(s)[1] > end[1]+0.5
	})
	t.Logf("lifted to %.2f m by the right-drag; pointer sent %+v", hand(st)[1], st.Pointer)
	// owned[v][p] is how many of view v's cubes player p's colour
	// paints: its avatar's three parts, and the cubes under its authority.
	var owned [][]int
	read := func() {
		var err error
		owned, err = chromedp.Run(b.Context(), chromedp.Evaluate[[][]int](`window.__viewerState.views.map((v) => v.owned)`))
		if err != nil {
			t.Fatalf("page state: %v", err)
		}
	}
	authority := func() bool {
		for _, view := range owned {
			for _, n := range view {
				if n > 3 {
					return true
				}
			}
		}
		return false
	}
	for read(); !authority(); read() {
		select {
		case <-ctx.Done():
			t.Fatalf("no view showed a cube in a player's colour; owned per view %v", owned)
		case <-time.After(250 * time.Millisecond):
		}
	}
	t.Logf("cubes per player's colour, per view: %v", owned)
	for i, view := range owned {
		for p := range scene.VRPlayers {
			if view[p] < 3 {
				t.Errorf("view %q: %d cubes in player %d's colour, want its avatar's 3 at least", names[i], view[p], p)
			}
		}
	}
	// Zoomed out three times, as the mouse wheel would, to see the table around
	// the host: the picture is kept with go test -artifacts.
	if _, err := chromedp.Run(b.Context(), chromedp.Evaluate[bool](`document.getElementById('view').dispatchEvent(new WheelEvent('wheel', { deltaY: 1100, clientX: 10, clientY: 10 }))`)); err != nil {
		t.Fatal(err)
	}
	now, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	st = b.WaitState("zoomed out", func(s browsertest.PageState) bool { return s.Drawn(4) && s.Rendered > now.Rendered+1 })
	b.Screenshot()
	if st.Error != "" {
		t.Errorf("page reported an error: %s", st.Error)
	}
	// A double click puts the host's camera back.
	if _, err := chromedp.Run(b.Context(), chromedp.Evaluate[bool](`document.getElementById('view').dispatchEvent(new MouseEvent('dblclick', { clientX: 10, clientY: 10 }))`)); err != nil {
		t.Fatal(err)
	}
	for _, size := range layoutSizes {
		checkLayout(t, b, m, 4, 4, size)
	}
}
