package match

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/browsertest"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/viewer"
)

// TestLockstepDemoBrowser is the lockstep demo end to end: the relay and
// four players over UDP through the proxy at 20 ms each way, every world
// published to a viewer, Debian's chromium showing the page. The page
// draws the four worlds side by side; holding the right arrow in the page
// pushes player 1's cube along +X, which it only does once the input has
// gone round the relay and the input delay has passed; the figures show
// every player, and the checksums the demo compares across the worlds
// agree.
func TestLockstepDemoBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	m, sides, setup := lockstepSides(t)
	b := demoInBrowser(t, ctx, m, sides, setup, 1280, 480)
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
}

// demoInBrowser runs the demo of m (seed 1, 20 ms each way) with its
// viewer, and a headless chromium of the given size on the viewer's page;
// both stop when the test ends, the demo first.
func demoInBrowser(t *testing.T, ctx context.Context, m *Model, sides Sides, setup Setup, width, height int) *browsertest.Browser {
	t.Helper()
	v := viewer.New(viewer.Config{Logger: quiet})
	web := httptest.NewServer(v.Handler())
	t.Cleanup(func() { v.Close(); web.Close() }) // after the demo stopped
	browserCtx := browsertest.RunBehind(t, ctx, func(ctx context.Context) error {
		_, err := Demo(ctx, DemoConfig{Model: m, Sides: sides, Setup: setup, Seed: 1, Viewer: v,
			Conditions: netsim.Conditions{Latency: 20 * time.Millisecond}})
		return err
	})
	b := browsertest.Start(t, browserCtx, width, height)
	b.Open(web.URL)
	return b
}
