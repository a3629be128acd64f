package cubegames

import (
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/browsertest"
	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/viewer"
)

var keepShots = flag.String("viewer-shots", "", "directory the demos' browser tests write their screenshots to, as <model>-<players>-<width>x<height>.png (the README's come from here)")

// layoutDraws is how many draws of every view checkLayout samples: 95 %
// of them is all of them.
const layoutDraws = 8

// layoutSizes are the windows the demos' pages are checked at.
var layoutSizes = [][2]int{{1280, 720}, {1920, 1080}}

// TestLockstepDemoBrowser is the lockstep demo end to end: the relay and
// four players over UDP through the proxy at 20 ms each way, every world
// published to a viewer, Debian's chromium showing the page. The page
// draws the four worlds side by side; holding the right arrow in the page
// pushes player 1's cube along +X, which it only does once the input has
// gone round the relay and the input delay has passed; the figures show
// every player, and the checksums the demo compares across the worlds
// agree. At 1280×720 and 1920×1080 the page's layout passes checkLayout.
func TestLockstepDemoBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	m, sides, setup := lockstepSides(t)
	b := demoInBrowser(t, ctx, m, sides, setup, layoutSizes[0][0], layoutSizes[0][1])
	st := b.WaitState("four worlds drawn", func(s browsertest.PageState) bool { return s.Drawn(4) })
	names := []string{}
	for _, view := range st.Views {
		names = append(names, view.Name)
	}
	if strings.Join(names, ",") != "player 1 (keys),player 2 (bot),player 3 (bot),player 4 (bot)" {
		t.Fatalf("views %q", names)
	}
	for _, view := range st.Views {
		if view.Cubes != st.Views[0].Cubes || view.Cubes != 4+20 {
			t.Fatalf("view %q shows %d cubes, want the 4 players and the tower's 20", view.Name, view.Cubes)
		}
	}
	before := st
	b.Press(browsertest.ArrowRight)
	time.Sleep(1500 * time.Millisecond)
	b.Release(browsertest.ArrowRight)
	released := b.WaitState("keys released", func(s browsertest.PageState) bool { return len(s.Keys) == 0 })
	from := released.MustFigure(t, "p1 tick")
	st = b.WaitState("a second of simulation after the release", func(s browsertest.PageState) bool {
		tick, ok := s.Figure("p1 tick")
		return s.Drawn(4) && ok && tick >= from+60
	})
	if dx := st.Views[0].Player[0] - before.Views[0].Player[0]; dx <= 1 {
		t.Errorf("player 1 moved %.2f m along +X on the right arrow, want over 1 m", dx)
	}
	for _, name := range []string{"p1 input delay", "p4 input delay", "p2 up", "p3 down", "p1 stalled frames", "p1 rollbacks"} {
		st.MustFigure(t, name)
	}
	if n := st.MustFigure(t, "checksums compared"); n < 1 {
		t.Errorf("%g checksums compared across the worlds", n)
	}
	if n := st.MustFigure(t, "checksums differing"); n != 0 {
		t.Errorf("%g checksums differ across the worlds", n)
	}
	if st.Error != "" {
		t.Errorf("page reported an error: %s", st.Error)
	}
	for _, size := range layoutSizes {
		checkLayout(t, b, m, 4, 4, size)
	}
}

// TestDemoLayoutBrowser loads the page of the demos with the most worlds
// (interp: the server and four clients; predict: the server and 8 or 16
// players) and checks its layout at 1280×720 and 1920×1080 (checkLayout);
// the lockstep and statesync demos' are checked by their own browser
// tests, on the page they loaded.
func TestDemoLayoutBrowser(t *testing.T) {
	for _, tc := range []struct {
		model          string
		players, views int
	}{
		{"interp", 4, 5},
		{"predict", 8, 9},
		{"predict", 16, 17},
	} {
		t.Run(fmt.Sprintf("%s-%d", tc.model, tc.players), func(t *testing.T) {
			// SwiftShader draws the 17 viewports of 16 players at a frame
			// or two a second on a loaded 2-core machine.
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(45+5*tc.views)*time.Second)
			t.Cleanup(cancel)
			m, sides, setup := modelSides(t, match.Defaults{Model: tc.model, Players: tc.players}, "--layout", "tower20")
			b := demoInBrowser(t, ctx, m, sides, setup, layoutSizes[0][0], layoutSizes[0][1])
			for _, size := range layoutSizes {
				checkLayout(t, b, m, tc.players, tc.views, size)
			}
		})
	}
}

// checkLayout resizes the page to size and checks what a viewer of
// many worlds needs: every world has a viewport (views of them), inside
// the canvas and apart from the others; no view label overlaps another or
// leaves its viewport; the figures panel fits in the window beside the
// views, without scrolling, with a table row for every player; the legend
// names colours; and every player's view shows its player inside the
// viewport in at least 95 % of the frames drawn over a few seconds. It
// saves a screenshot (see -viewer-shots).
func checkLayout(t *testing.T, b *browsertest.Browser, m *match.Model, players, views int, size [2]int) {
	t.Helper()
	w, h := size[0], size[1]
	clients := m.Clients(players)
	start := time.Now()
	b.Resize(w, h)
	drawnAt := func(s browsertest.PageState) bool {
		if len(s.Views) != views || s.Grid == nil {
			return false
		}
		for _, v := range s.Views {
			if v.Cell == nil || v.Cell.X+v.Cell.W > float64(w)+1 || v.Cell.Y+v.Cell.H > float64(h)+1 {
				return false // not drawn at this size yet
			}
		}
		return s.Rendered > 0
	}
	b.WaitSettled(fmt.Sprintf("%d views drawn at %d×%d", views, w, h), func(s browsertest.PageState) bool {
		return drawnAt(s) && len(s.Figures) > 0
	})
	page := b.Layout("#view", ".label", "#figures", "#figure-table", "#footer")
	st := page.State
	if st.Grid.Cols*st.Grid.Rows < views {
		t.Errorf("%d×%d: grid %+v for %d views", w, h, *st.Grid, views)
	}

	canvas := page.Boxes["#view"][0].Box
	window := browsertest.Box{W: float64(w), H: float64(h)}
	cells := make([]browsertest.Box, len(st.Views))
	for i, v := range st.Views {
		c := *v.Cell
		c.X += canvas.X
		c.Y += canvas.Y
		cells[i] = c
		if !c.Inside(canvas) || c.W < 100 || c.H < 80 {
			t.Errorf("%d×%d: view %q has viewport %+v, canvas %+v", w, h, v.Name, c, canvas)
		}
		for j := range i {
			if c.Overlaps(cells[j]) {
				t.Errorf("%d×%d: viewports of %q and %q overlap: %+v, %+v", w, h, v.Name, st.Views[j].Name, c, cells[j])
			}
		}
	}

	labels := page.Boxes[".label"]
	if len(labels) != views {
		t.Errorf("%d×%d: %d labels for %d views", w, h, len(labels), views)
	}
	for i, l := range labels {
		if i < len(cells) && !l.Box.Inside(cells[i]) {
			t.Errorf("%d×%d: label %q at %+v leaves its viewport %+v", w, h, l.Text, l.Box, cells[i])
		}
		if l.Overflows {
			t.Errorf("%d×%d: label %q is clipped", w, h, l.Text)
		}
		for _, o := range labels[:i] {
			if l.Box.Overlaps(o.Box) {
				t.Errorf("%d×%d: labels %q and %q overlap: %+v, %+v", w, h, l.Text, o.Text, l.Box, o.Box)
			}
		}
	}

	for _, sel := range []string{"#figures", "#figure-table", "#footer"} {
		boxes := page.Boxes[sel]
		if len(boxes) != 1 {
			t.Fatalf("%d×%d: %d elements %s", w, h, len(boxes), sel)
		}
		if !boxes[0].Box.Inside(window) || boxes[0].Overflows {
			t.Errorf("%d×%d: %s at %+v does not fit in the window (overflows: %v)", w, h, sel, boxes[0].Box, boxes[0].Overflows)
		}
		if boxes[0].Box.Overlaps(canvas) {
			t.Errorf("%d×%d: %s at %+v covers the views at %+v", w, h, sel, boxes[0].Box, canvas)
		}
	}
	rows := map[string]bool{}
	for _, f := range st.Figures {
		rows[f.Row] = true
	}
	table := page.Boxes["#figure-table"][0].Text
	for p := 1; p <= clients; p++ {
		row := fmt.Sprintf("p%d", p) // the demo's clients, in slot order
		if !rows[row] || !strings.Contains(table, row) {
			t.Errorf("%d×%d: no table row for %s: %q", w, h, row, table)
		}
	}
	if len(st.Legend) == 0 {
		t.Errorf("%d×%d: no colour legend", w, h)
	}

	// The players in their views, over a few seconds of frames.
	first, sampling := st, time.Now()
	st = b.WaitState("a few seconds of frames", func(s browsertest.PageState) bool {
		if !drawnAt(s) {
			return false
		}
		for i, v := range s.Views {
			if !v.Overview && v.Player != nil && v.Drawn-first.Views[i].Drawn < layoutDraws {
				return false
			}
		}
		return true
	})
	t.Logf("%d×%d: laid out in %v, %d draws in %v (%.0f ms of script per draw)", w, h, sampling.Sub(start).Round(time.Millisecond),
		layoutDraws, time.Since(sampling).Round(time.Millisecond), st.DrawMs)
	for i, v := range st.Views {
		if v.Overview || v.Player == nil {
			continue
		}
		drawn, in := v.Drawn-first.Views[i].Drawn, v.OwnInFrame-first.Views[i].OwnInFrame
		t.Logf("%d×%d: %s: player in the viewport in %d of %d frames, last at %.2f", w, h, v.Name, in, drawn, v.Own)
		if float64(in) < 0.95*float64(drawn) {
			t.Errorf("%d×%d: view %q shows its player in %d of %d frames, want 95 %%", w, h, v.Name, in, drawn)
		}
	}
	if st.Error != "" {
		t.Errorf("page reported an error: %s", st.Error)
	}
	_, shot := b.Screenshot()
	if *keepShots != "" {
		path := filepath.Join(*keepShots, fmt.Sprintf("%s-%d-%dx%d.png", m.Name, players, w, h))
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot saved to %s", path)
	}
}

// demoInBrowser runs the demo of m (seed 1, 20 ms each way) with its
// viewer, and a headless chromium of the given size on the viewer's page;
// both stop when the test ends, the demo first.
func demoInBrowser(t *testing.T, ctx context.Context, m *match.Model, sides match.Sides, setup match.Setup, width, height int) *browsertest.Browser {
	t.Helper()
	v := viewer.New(viewer.Config{Logger: quiet})
	web := httptest.NewServer(v.Handler())
	t.Cleanup(func() { v.Close(); web.Close() }) // after the demo stopped
	browserCtx := browsertest.RunBehind(t, ctx, func(ctx context.Context) error {
		_, err := match.Demo(ctx, match.DemoConfig{Model: m, Sides: sides, Setup: setup, Seed: 1, Viewer: v,
			Conditions: netsim.Conditions{Latency: 20 * time.Millisecond}})
		return err
	})
	b := browsertest.Start(t, browserCtx, width, height)
	b.Open(web.URL)
	return b
}
