package viewer_test

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/netphys/netphys/internal/browsertest"
	"github.com/netphys/netphys/viewer"
)

var saveScreenshot = flag.Bool("screenshot", false, "save the browser test's screenshot to testdata/screenshot.png")

// TestBrowser is the end-to-end test: Debian's chromium loads the page
// served by a Server fed by the fixture world, the canvas shows the cubes
// of both views, holding the right arrow in the page moves the player in
// the fixture and so in both views, and the figures overlay follows.
func TestBrowser(t *testing.T) {
	// One deadline bounds everything, the waits included: SwiftShader on a
	// loaded 2-core machine draws a few frames a second. It ends after the
	// cleanups, which close the browser gracefully and stop the world.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)

	srv := viewer.New(viewer.Config{Logger: discardLogger()})
	web := httptest.NewServer(srv.Handler())
	world := newTestWorld()
	worldCtx, stopWorld := context.WithCancel(ctx)
	worldDone := make(chan struct{})
	go func() {
		defer close(worldDone)
		world.run(worldCtx, srv, time.Second/60)
	}()
	// Registered before the browser starts, so it runs after the browser
	// is closed.
	t.Cleanup(func() {
		stopWorld()
		<-worldDone
		srv.Close()
		web.Close()
	})

	// Software WebGL pays per pixel: a small window unless the picture is
	// wanted for the README. 800 px is also the narrowest the page is laid
	// out for beside its figures panel.
	width, height := 800, 480
	if *saveScreenshot {
		width, height = 1280, 640
	}
	start := time.Now()
	b := browsertest.Start(t, ctx, width, height)
	t.Logf("chromium up after %v", time.Since(start))

	b.Open(web.URL)
	st := b.WaitState("both views drawn", func(s browsertest.PageState) bool {
		return s.Drawn(2) && len(s.Figures) > 0 && s.Views[0].Cell != nil && s.Views[1].Cell != nil
	})
	t.Logf("page drawn after %v", time.Since(start))
	if st.Views[0].Name != "authority" || st.Views[1].Name != "remote" || st.Views[0].Cubes != gridSide*gridSide+1 {
		t.Fatalf("views drawn: %+v, want authority and remote of %d cubes", st.Views, gridSide*gridSide+1)
	}

	// The canvas shows the cubes: player blue, interacting red and grey
	// pixels in each view, the labels hidden.
	show := b.Hide("#labels")
	st = b.WaitSettled("the layout settled", func(s browsertest.PageState) bool { return s.Drawn(2) })
	shot, _ := b.Screenshot()
	show()
	for i, counts := range browsertest.CountViews(shot, st) {
		t.Logf("view %d at %+v: %d player, %d red, %d grey pixels", i, *st.Views[i].Cell, counts.Player, counts.Red, counts.Grey)
		if counts.Player < 200 || counts.Red < 200 || counts.Grey < 3000 {
			t.Errorf("view %d shows too few cube pixels: %+v", i, counts)
		}
	}

	// The mouse: over the player as a viewport shows it, the page sends
	// the ray of that view's camera through the player's centre. The
	// player has not moved yet, so neither have the cameras. moveTo moves
	// the mouse and returns the pointer the server gets, which must differ
	// from the one before.
	moveTo := func(x, y float64, before viewer.Pointer) viewer.Pointer {
		t.Helper()
		b.Move(x, y)
		for {
			if p, ok := srv.Pointer(); ok && p != before {
				return p
			}
			if ctx.Err() != nil {
				t.Fatalf("no new pointer from the page after a move to (%g, %g)", x, y)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// miss is how far the ray p passes from the point c, m.
	miss := func(p viewer.Pointer, c []float64) float64 {
		var d, along float64
		for i := range 3 {
			along += (c[i] - p.From[i]) * p.Dir[i]
		}
		for i := range 3 {
			x := c[i] - p.From[i] - along*p.Dir[i]
			d += x * x
		}
		return math.Sqrt(d)
	}
	var last viewer.Pointer
	for i, v := range st.Views {
		x, y := v.Cell.X+(v.Own[0]+1)/2*v.Cell.W, v.Cell.Y+(1-v.Own[1])/2*v.Cell.H
		p := moveTo(x, y, last)
		if d := miss(p, v.Player); p.Dir[1] >= 0 || d > 0.3 {
			t.Errorf("the ray through view %d's player at (%.0f, %.0f), %+v, passes %.2f m from it at %v", i, x, y, p, d, v.Player)
		}
		last = moveTo(x, y-v.Cell.H/4, p)
	}

	// Hold the right arrow until the player moved 1.5 m in both views.
	before := st
	tickBefore := st.MustFigure(t, "tick")
	b.Press(browsertest.ArrowRight)
	st = b.WaitState("player moved right in both views", func(s browsertest.PageState) bool {
		return s.Drawn(2) &&
			s.Views[0].Player[0] > before.Views[0].Player[0]+1.5 &&
			s.Views[1].Player[0] > before.Views[1].Player[0]+1.5
	})
	t.Logf("player moved after %v; page: %d frames, %d skipped, %.0f ms per draw", time.Since(start), st.Frames, st.Skipped, st.DrawMs)
	if !world.inputs().Has(viewer.KeyRight) {
		t.Errorf("fixture saw inputs %v, want right among them", world.inputs())
	}
	if strings.Join(st.Keys, ",") != "right" {
		t.Errorf("page holds keys %v, want [right]", st.Keys)
	}
	b.Release(browsertest.ArrowRight)
	for i, v := range st.Views {
		if dz := v.Player[2] - before.Views[i].Player[2]; dz != 0 {
			t.Errorf("view %s: player moved %g m along z on the right arrow", v.Name, dz)
		}
	}
	b.WaitState("keys released", func(s browsertest.PageState) bool { return len(s.Keys) == 0 })

	// The overlay follows the figures: the tick grew, in the state and in
	// the table on the page.
	if tick := st.MustFigure(t, "tick"); tick <= tickBefore {
		t.Errorf("tick figure %g after %g: the overlay did not update", tick, tickBefore)
	}
	if covered := b.Covered(".label", "#figures, #footer"); len(covered) > 0 {
		t.Errorf("labels %q are under the overlays at %d px wide", covered, width)
	}
	table := b.Text("#figure-rows")
	for _, want := range []string{"tick", "position error", "kbps", "RTT", "100 ms each way"} {
		if !strings.Contains(table, want) {
			t.Errorf("overlay %q lacks %q", table, want)
		}
	}
	if st.Error != "" {
		t.Errorf("page reported an error: %s", st.Error)
	}

	// A click on the panel's title folds the figures away and the views
	// take the room; another brings them back.
	fold := func() {
		t.Helper()
		if _, err := chromedp.Run(b.Context(), chromedp.Evaluate[any](`document.querySelector('#figures h1').click()`)); err != nil {
			t.Fatal(err)
		}
	}
	// right is where the views end, px from the left of the page.
	right := func(s browsertest.PageState) (r float64) {
		for _, v := range s.Views {
			r = max(r, v.Cell.X+v.Cell.W)
		}
		return r
	}
	open := b.WaitSettled("the layout settled", func(s browsertest.PageState) bool { return s.Drawn(2) })
	fold()
	folded := b.WaitSettled("the views widened", func(s browsertest.PageState) bool {
		return s.Drawn(2) && right(s) > right(open)+100
	})
	if panel := b.Boxes("#figures")[0].Box; panel.W > 200 {
		t.Errorf("the folded panel is %.0f px wide", panel.W)
	}
	fold()
	b.WaitSettled("the views narrowed again", func(s browsertest.PageState) bool {
		return s.Drawn(2) && math.Abs(right(s)-right(open)) < 60
	})
	t.Logf("views end at %.0f px, folded at %.0f px", right(open), right(folded))

	// The cameras: the wheel zooms the view under the mouse and no other,
	// a shift-drag orbits it, a double click puts it back.
	v0, v1 := st.Views[0], st.Views[1]
	mid := func(v browsertest.View) (x, y float64) { return v.Cell.X + v.Cell.W/2, v.Cell.Y + v.Cell.H/2 }
	x0, y0 := mid(v0)
	x1, y1 := mid(v1)
	mouse := func(js string) {
		t.Helper()
		if _, err := chromedp.Run(b.Context(), chromedp.Evaluate[any](js)); err != nil {
			t.Fatal(err)
		}
	}
	mouse(fmt.Sprintf(`document.getElementById('view').dispatchEvent(new WheelEvent('wheel', { deltaY: 500, clientX: %g, clientY: %g }))`, x0, y0))
	b.ShiftDrag(x1, y1, x1+120, 6)
	cams := b.WaitState("view 0 zoomed, view 1 orbited", func(s browsertest.PageState) bool {
		return s.Drawn(2) && s.Views[0].Camera.Zoom > 1.2 && s.Views[1].Camera.Yaw != 0
	})
	if c := cams.Views[1].Camera; c.Zoom != 1 {
		t.Errorf("view 1 zoomed to %g by the wheel over view 0", c.Zoom)
	}
	if c := cams.Views[0].Camera; c.Yaw != 0 || c.Pitch != 0 {
		t.Errorf("view 0 orbited to %+v by a drag over view 1", c)
	}
	if cams.Pointer != nil && cams.Pointer.Grip {
		t.Errorf("the shift-drag gripped: pointer %+v", cams.Pointer)
	}
	mouse(fmt.Sprintf(`document.getElementById('view').dispatchEvent(new MouseEvent('dblclick', { clientX: %g, clientY: %g }))`, x1, y1))
	b.WaitState("view 1 put back", func(s browsertest.PageState) bool {
		return s.Drawn(2) && s.Views[1].Camera == (browsertest.Camera{Zoom: 1}) && s.Views[0].Camera.Zoom > 1.2
	})

	checkPageDecoder(t, b.Context())

	if *saveScreenshot {
		// After the move: the player among red cubes, the remote catching up.
		_, shot := b.Screenshot()
		if err := os.WriteFile(filepath.Join("testdata", "screenshot.png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkPageDecoder runs the page's frame decoder (static/frame.js) on a
// frame Go encoded: it must read the same views and cubes, and reject the
// frame cut at every byte, as DecodeFrame does.
func checkPageDecoder(t *testing.T, browser context.Context) {
	t.Helper()
	views := newTestWorld().frame().Views
	for i := range views {
		views[i].Cubes = views[i].Cubes[len(views[i].Cubes)-2:] // a grid cube and the player
	}
	views[0].Cubes[0].Rotation = [4]float32{0.5, -0.5, 0.5, 0.5}
	views[0].Cubes[0].Owner = 3
	views[1].Cubes[1].Owner = viewer.MaxOwner
	views[1].Facing = [2]float32{0.6, 0.8}
	msg, err := viewer.AppendFrame(nil, 77, views)
	if err != nil {
		t.Fatal(err)
	}
	type cube struct {
		Position, Rotation, Scale []float32
		Flags                     uint32
	}
	type decoded struct {
		Seq      uint32
		Names    []string
		Facings  [][]float32
		Cubes    [][]cube
		Rejected int
	}
	js := `(async () => {
		const m = await import('./frame.js');
		const bytes = Uint8Array.from(atob('` + base64.StdEncoding.EncodeToString(msg) + `'), (c) => c.charCodeAt(0));
		const f = m.parseFrame(bytes.buffer);
		const vec = () => ({ v: [], set(...a) { this.v = a; } });
		const cubes = f.views.map((part) => Array.from({ length: part.count }, (_, i) => {
			const p = vec(), q = vec(), s = vec();
			const flags = m.readCube(f.dv, part.off + i * m.CUBE_BYTES, p, q, s);
			return { Position: p.v, Rotation: q.v, Scale: s.v, Flags: flags };
		}));
		let rejected = 0;
		for (let n = 0; n < bytes.length; n++) {
			try { m.parseFrame(bytes.slice(0, n).buffer); } catch { rejected++; }
		}
		return { Seq: f.seq, Names: f.views.map((v) => v.name), Facings: f.views.map((v) => v.facing), Cubes: cubes, Rejected: rejected };
	})()`
	got, err := chromedp.Run(browser, chromedp.Evaluate[decoded](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("page decoder: %v", err)
	}
	if got.Seq != 77 || len(got.Names) != 2 || got.Names[1] != "remote" || got.Rejected != len(msg) {
		t.Fatalf("page decoded seq %d, views %q, rejected %d of %d cuts", got.Seq, got.Names, got.Rejected, len(msg))
	}
	if fmt.Sprint(got.Facings) != "[[] [0.6 0.8]]" {
		t.Errorf("page read facings %v, want none and (0.6, 0.8)", got.Facings)
	}
	for i, v := range views {
		for j, c := range v.Cubes {
			g := got.Cubes[i][j]
			want := cube{Position: c.Position[:], Rotation: c.Rotation[:], Scale: []float32{2 * c.HalfExtents[0], 2 * c.HalfExtents[1], 2 * c.HalfExtents[2]}}
			if c.Interacting {
				want.Flags |= 1
			}
			if c.Player {
				want.Flags |= 2
			}
			if c.AtRest {
				want.Flags |= 4
			}
			want.Flags |= uint32(c.Owner) << 3
			if fmt.Sprint(g) != fmt.Sprint(want) {
				t.Errorf("view %d cube %d: page read %v, want %v", i, j, g, want)
			}
		}
	}
}
