package demo

import (
	"context"
	"flag"
	"log/slog"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/browsertest"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/viewer"
)

var saveScreenshot = flag.Bool("screenshot", false, "also take the README's picture of the 900-cube world in play and write it to docs/demo.png")

// TestDemoBrowser is the demo's end-to-end test: the real demo (both
// worlds, UDP through netcode and the network simulator at 50 ms each
// way) publishes to a viewer served over HTTP, Debian's chromium loads
// the page, the canvas shows the tower and the player in both views,
// holding the right arrow in the page pushes the player along +X in the
// authority and, over the network, in the remote copy, and the figures
// overlay follows the run. With -screenshot it then takes the README's
// picture.
func TestDemoBrowser(t *testing.T) {
	t.Run("tower", testDemoTower)
	if *saveScreenshot {
		t.Run("picture", shootDemo)
	}
}

func testDemoTower(t *testing.T) {
	// One deadline bounds everything, the waits included: SwiftShader on a
	// loaded 2-core machine draws a few frames a second. It ends after the
	// cleanups, which close the browser gracefully and stop the demo.
	ctx, cancel := context.WithTimeout(context.Background(), 75*time.Second)
	t.Cleanup(cancel)
	cfg := DefaultConfig()
	cfg.Layout = scene.Tower20
	cfg.Conditions = netsim.Conditions{Latency: 50 * time.Millisecond} // no loss: the remote follows within 150 ms
	start := time.Now()
	b := startDemo(t, ctx, cfg, 960, 480)

	const bodies = 21 // the tower's 20 cubes and the player
	st := b.WaitState("both views drawn", func(s browsertest.PageState) bool {
		return s.Drawn(2) && s.Views[0].Cubes == bodies && s.Views[1].Cubes == bodies
	})
	t.Logf("page drawn after %v", time.Since(start))
	if st.Views[0].Name != "authority" || st.Views[1].Name != "remote" {
		t.Fatalf("views drawn: %+v, want authority and remote", st.Views)
	}

	// The canvas shows the world: the grey tower and the blue player in
	// each view, the labels' light text hidden. The views are stacked,
	// 700 × 210 px each beside the figures, and each frames the whole
	// 20 m tower with the player: a few hundred pixels of each.
	show := b.Hide("#labels")
	laid := b.WaitSettled("the layout settled", func(s browsertest.PageState) bool { return s.Drawn(2) })
	shot, _ := b.Screenshot()
	show()
	for i, counts := range browsertest.CountViews(shot, laid) {
		t.Logf("view %d: %d player, %d red, %d grey pixels", i, counts.Player, counts.Red, counts.Grey)
		if counts.Player < 100 || counts.Grey < 500 {
			t.Errorf("view %d shows too few cube pixels: %+v", i, counts)
		}
	}

	// Hold the right arrow for 1.5 s, then give the simulation one more
	// second, enough for the remote copy to receive where the player
	// stopped (50 ms latency, a snapshot every 100 ms).
	before := st
	b.Press(browsertest.ArrowRight)
	time.Sleep(1500 * time.Millisecond)
	held, err := b.State()
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	if strings.Join(held.Keys, ",") != "right" {
		t.Errorf("page holds keys %v, want [right]", held.Keys)
	}
	b.Release(browsertest.ArrowRight)
	released := b.WaitState("keys released", func(s browsertest.PageState) bool { return len(s.Keys) == 0 })
	releaseTick := released.MustFigure(t, "tick")
	st = b.WaitState("a second of simulation after the release", func(s browsertest.PageState) bool {
		tick, ok := s.Figure("tick")
		return s.Drawn(2) && ok && tick >= releaseTick+60
	})
	t.Logf("player at %v after %v; page: %d frames, %d skipped, %.0f ms per draw",
		st.Views[0].Player, time.Since(start), st.Frames, st.Skipped, st.DrawMs)
	for i, v := range st.Views {
		from := before.Views[i].Player
		if dx := v.Player[0] - from[0]; dx <= 1 {
			t.Errorf("view %s: player moved %.2f m along +X on the right arrow, want over 1 m (from %v to %v)", v.Name, dx, from, v.Player)
		}
		// It slides on flat ground, 8 m clear of the tower: nothing turns it.
		if dz := v.Player[2] - from[2]; math.Abs(dz) > 0.25 {
			t.Errorf("view %s: player moved %.2f m along z on the right arrow (from %v to %v)", v.Name, dz, from, v.Player)
		}
	}

	// The overlay follows the run: the tick and the packet counts grew
	// between the two reads, traffic flows both ways and its mean rate
	// moved, and the table on the page shows the figures.
	for _, name := range []string{"tick", "packets down", "packets up"} {
		if a, z := before.MustFigure(t, name), st.MustFigure(t, name); z <= a {
			t.Errorf("figure %q went from %g to %g: the overlay did not update", name, a, z)
		}
	}
	for _, name := range []string{"down", "up", "rtt"} {
		if v := st.MustFigure(t, name); v <= 0 {
			t.Errorf("figure %q is %g, want above 0", name, v)
		}
	}
	if a, z := before.MustFigure(t, "down"), st.MustFigure(t, "down"); a == z {
		t.Errorf("figure \"down\" stayed at %g kbps: the overlay did not update", a)
	}
	table := b.Text("#figure-rows")
	for _, want := range []string{"tick", "down", "kbps", "position error", "latency (set)", "50ms each way", "your keys"} {
		if !strings.Contains(table, want) {
			t.Errorf("overlay %q lacks %q", table, want)
		}
	}
	if st.Error != "" {
		t.Errorf("page reported an error: %s", st.Error)
	}
}

// shootDemo takes the README's picture: the 900-cube world at 1280 × 640
// after 6 s of the scripted minute of play (the player rolled into the
// grid and is gathering cubes), under the demo's default network
// conditions, and writes it to docs/demo.png.
func shootDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	cfg := DefaultConfig()
	cfg.Script = scene.PlayMinute
	b := startDemo(t, ctx, cfg, 1280, 640)
	st := b.WaitSettled("6 s of play drawn", func(s browsertest.PageState) bool {
		tick, ok := s.Figure("tick")
		return s.Drawn(2) && ok && tick >= 6*tickRate
	})
	img, shot := b.Screenshot()
	for half, counts := range browsertest.CountViews(img, st) {
		t.Logf("picture, view %d: %d player, %d red, %d grey pixels", half, counts.Player, counts.Red, counts.Grey)
		// Stacked views framing the whole grid: the player is a few
		// hundred pixels, the cubes it gathered thousands.
		if counts.Player < 150 || counts.Red < 5000 || counts.Grey < 20000 {
			t.Errorf("picture, view %d shows too few cube pixels: %+v", half, counts)
		}
	}
	dir := filepath.Join("..", "..", "docs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "demo.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

// startDemo runs the demo with cfg, no status lines, publishing to a
// viewer served by an httptest server, and opens the viewer page in a
// browser of width × height. The demo stops at the end of the test, after
// the browser is closed; the test fails if Run returns early or with an
// error, and then the browser stops waiting at once.
func startDemo(t *testing.T, ctx context.Context, cfg Config, width, height int) *browsertest.Browser {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	srv := viewer.New(viewer.Config{Logger: quiet})
	web := httptest.NewServer(srv.Handler())
	cfg.Viewer, cfg.Logger, cfg.Status, cfg.Duration = srv, quiet, nil, 0

	var summary Summary
	t.Cleanup(func() { // after the demo stopped
		srv.Close()
		web.Close()
		if summary.BadMessages != 0 {
			t.Errorf("%d state messages did not decode", summary.BadMessages)
		}
	})
	browserCtx := browsertest.RunBehind(t, ctx, func(ctx context.Context) (err error) {
		summary, err = Run(ctx, cfg)
		return err
	})
	b := browsertest.Start(t, browserCtx, width, height)
	b.Open(web.URL)
	return b
}
