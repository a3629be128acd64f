package viewer_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"image"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/netphys/netphys/viewer"
)

var saveScreenshot = flag.Bool("screenshot", false, "save the browser test's screenshot to testdata/screenshot.png")

const chromiumPath = "/usr/bin/chromium"

// pageState is the part of window.__viewerState the test reads.
type pageState struct {
	Connected bool     `json:"connected"`
	Frames    int      `json:"frames"`
	Seq       uint32   `json:"seq"`
	Rendered  uint32   `json:"rendered"`
	DrawMs    float64  `json:"drawMs"`
	Skipped   int      `json:"skipped"`
	Error     string   `json:"error"`
	Keys      []string `json:"keys"`
	Views     []struct {
		Name   string    `json:"name"`
		Cubes  int       `json:"cubes"`
		Player []float64 `json:"player"`
	} `json:"views"`
	Figures []struct {
		Name  string   `json:"name"`
		Value *float64 `json:"value"`
	} `json:"figures"`
}

// TestBrowser is the end-to-end test: Debian's chromium loads the page
// served by a Server fed by the fixture world, the canvas shows the cubes
// of both views, holding the right arrow in the page moves the player in
// the fixture and so in both views, and the figures overlay follows.
func TestBrowser(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("no browser at %s: install chromium (apt-get install chromium)", chromiumPath)
	}
	// One deadline bounds everything, the waits included: SwiftShader on a
	// loaded 2-core machine draws a few frames a second.
	ctx, cancel := context.WithTimeout(context.Background(), 55*time.Second)
	defer cancel()

	srv := viewer.New(viewer.Config{Logger: discardLogger()})
	web := httptest.NewServer(srv.Handler())
	world := newTestWorld()
	worldCtx, stopWorld := context.WithCancel(ctx)
	worldDone := make(chan struct{})
	go func() {
		defer close(worldDone)
		world.run(worldCtx, srv, time.Second/60)
	}()
	defer func() {
		stopWorld()
		<-worldDone
		srv.Close()
		web.Close()
	}()

	// Software WebGL pays per pixel: a small window unless the picture is
	// wanted for the README.
	width, height := 960, 480
	if *saveScreenshot {
		width, height = 1280, 640
	}
	start := time.Now()
	browser, dataDir := startChromium(t, ctx, width, height)
	t.Logf("chromium up after %v", time.Since(start))
	defer assertNoLeftovers(t, dataDir)
	defer chromedp.Cancel(browser) // closes the browser gracefully, then the allocator waits for it

	// Every error the page logs or throws fails the test: a CSP violation,
	// a shader that does not compile, an exception in a handler.
	consoleCtx, stopConsole := context.WithCancel(browser)
	var (
		consoleMu   sync.Mutex
		pageErrors  []string
		consoleDone = make(chan struct{})
	)
	go func() {
		defer close(consoleDone)
		for m, err := range chromedp.Console(consoleCtx) {
			if err != nil {
				return
			}
			t.Logf("page console: %v", m)
			if m.Type == chromedp.ConsoleError || m.IsException() {
				consoleMu.Lock()
				pageErrors = append(pageErrors, m.String())
				consoleMu.Unlock()
			}
		}
	}()
	defer func() {
		stopConsole()
		<-consoleDone
		for _, e := range pageErrors {
			t.Errorf("page error: %s", e)
		}
	}()

	var st pageState
	if err := chromedp.Do(browser,
		chromedp.EmulateViewport(int64(width), int64(height)),
		chromedp.Navigate(web.URL),
	); err != nil {
		t.Fatalf("load the page: %v", err)
	}
	st = waitState(t, browser, "both views drawn", func(s pageState) bool {
		return s.Rendered > 0 && len(s.Views) == 2 && s.Views[0].Player != nil && s.Views[1].Player != nil
	})
	t.Logf("page drawn after %v", time.Since(start))
	if st.Views[0].Name != "authority" || st.Views[1].Name != "remote" || st.Views[0].Cubes != gridSide*gridSide+1 {
		t.Fatalf("views drawn: %+v, want authority and remote of %d cubes", st.Views, gridSide*gridSide+1)
	}

	// The canvas shows the cubes: player blue, interacting red and grey
	// pixels in each half of the picture.
	shot := screenshot(t, browser)
	for half, counts := range colourCounts(t, shot) {
		t.Logf("view %d: %d player, %d red, %d grey pixels", half, counts.player, counts.red, counts.grey)
		if counts.player < 200 || counts.red < 200 || counts.grey < 5000 {
			t.Errorf("view %d shows too few cube pixels: %+v", half, counts)
		}
	}

	// Hold the right arrow until the player moved 1.5 m in both views.
	before := st
	tickBefore := figure(t, st, "tick")
	key(t, browser, input.DispatchKeyEventTypeKeyDown)
	st = waitState(t, browser, "player moved right in both views", func(s pageState) bool {
		return len(s.Views) == 2 && s.Views[0].Player != nil && s.Views[1].Player != nil &&
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
	key(t, browser, input.DispatchKeyEventTypeKeyUp)
	for i, v := range st.Views {
		if dz := v.Player[2] - before.Views[i].Player[2]; dz != 0 {
			t.Errorf("view %s: player moved %g m along z on the right arrow", v.Name, dz)
		}
	}
	waitState(t, browser, "keys released", func(s pageState) bool { return len(s.Keys) == 0 })

	// The overlay follows the figures: the tick grew, in the state and in
	// the table on the page.
	if tick := figure(t, st, "tick"); tick <= tickBefore {
		t.Errorf("tick figure %g after %g: the overlay did not update", tick, tickBefore)
	}
	table, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS("#figure-rows")))
	if err != nil {
		t.Fatalf("read the overlay: %v", err)
	}
	for _, want := range []string{"tick", "position error", "kbps", "RTT"} {
		if !strings.Contains(table, want) {
			t.Errorf("overlay %q lacks %q", table, want)
		}
	}
	if st.Error != "" {
		t.Errorf("page reported an error: %s", st.Error)
	}

	checkPageDecoder(t, browser)

	if *saveScreenshot {
		// After the move: the player among red cubes, the remote catching up.
		png := screenshotPNG(t, browser)
		if err := os.WriteFile(filepath.Join("testdata", "screenshot.png"), png, 0o644); err != nil {
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
		return { Seq: f.seq, Names: f.views.map((v) => v.name), Cubes: cubes, Rejected: rejected };
	})()`
	got, err := chromedp.Run(browser, chromedp.Evaluate[decoded](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("page decoder: %v", err)
	}
	if got.Seq != 77 || len(got.Names) != 2 || got.Names[1] != "remote" || got.Rejected != len(msg) {
		t.Fatalf("page decoded seq %d, views %q, rejected %d of %d cuts", got.Seq, got.Names, got.Rejected, len(msg))
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
			if fmt.Sprint(g) != fmt.Sprint(want) {
				t.Errorf("view %d cube %d: page read %v, want %v", i, j, g, want)
			}
		}
	}
}

// startChromium starts headless chromium with a fresh profile and no
// background traffic (the network is closed; background fetches hang).
func startChromium(t *testing.T, ctx context.Context, width, height int) (context.Context, string) {
	dataDir := t.TempDir()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(dataDir),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// A headless tab counts as hidden: without these, chromium runs its
		// timers and frames about once a second.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		// WebGL without a GPU: SwiftShader, the software renderer chromium
		// ships, which --disable-gpu would otherwise leave switched off.
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.WindowSize(width, height),
	)
	t.Cleanup(cancelAlloc) // kills what is left and waits for the process
	browser, _ := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("start %s: %v", chromiumPath, err)
	}
	return browser, dataDir
}

// waitState polls window.__viewerState until ok or the test's deadline.
func waitState(t *testing.T, browser context.Context, what string, ok func(pageState) bool) pageState {
	t.Helper()
	var st pageState
	for {
		var err error
		st, err = chromedp.Run(browser, chromedp.Evaluate[pageState](`window.__viewerState ?? {}`))
		if err == nil && ok(st) {
			return st
		}
		if browser.Err() != nil {
			t.Fatalf("waiting for %s: last state %+v, err %v", what, st, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// key presses (keyDown) or releases (keyUp) the right arrow. The page
// sees a held key until the release, as with a real keyboard.
func key(t *testing.T, browser context.Context, typ input.DispatchKeyEventType) {
	t.Helper()
	ev := input.DispatchKeyEventParams{Type: typ, Key: "ArrowRight", Code: "ArrowRight", WindowsVirtualKeyCode: 39}
	err := chromedp.Do(browser, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, ev)
		return err
	}))
	if err != nil {
		t.Fatalf("key %s: %v", typ, err)
	}
}

func figure(t *testing.T, st pageState, name string) float64 {
	t.Helper()
	for _, f := range st.Figures {
		if f.Name == name && f.Value != nil {
			return *f.Value
		}
	}
	t.Fatalf("no figure %q in %+v", name, st.Figures)
	return 0
}

func screenshotPNG(t *testing.T, browser context.Context) []byte {
	t.Helper()
	b, err := chromedp.Run(browser, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return b
}

func screenshot(t *testing.T, browser context.Context) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(screenshotPNG(t, browser)))
	if err != nil {
		t.Fatalf("decode the screenshot: %v", err)
	}
	return img
}

type pixelCounts struct{ player, red, grey int }

// colourCounts classifies the pixels of each half of img by the cube
// colours of the page, lit: blue-dominant for the player, red-dominant for
// interacting cubes, bright neutral grey for the others. The background and
// the ground are darker than any lit grey face.
func colourCounts(t *testing.T, img image.Image) [2]pixelCounts {
	var c [2]pixelCounts
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r16, g16, b16, _ := img.At(x, y).RGBA()
			r, g, bl := int(r16>>8), int(g16>>8), int(b16>>8)
			half := 0
			if x >= (b.Min.X+b.Max.X)/2 {
				half = 1
			}
			switch {
			case bl > r+60 && bl > g+25:
				c[half].player++
			case r > g+70 && r > bl+70:
				c[half].red++
			case r > 110 && abs(r-g) < 14 && abs(g-bl) < 18:
				c[half].grey++
			}
		}
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// assertNoLeftovers fails if a process of the browser, known by its
// profile directory on the command line, outlived the test.
func assertNoLeftovers(t *testing.T, dataDir string) {
	want := []byte("--user-data-dir=" + dataDir)
	var left []string
	for range 40 { // the browser's children exit shortly after it
		left = left[:0]
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			if _, err := strconv.Atoi(e.Name()); err != nil {
				continue
			}
			cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err == nil && bytes.Contains(cmd, want) {
				left = append(left, fmt.Sprintf("%s: %.80s", e.Name(), bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
			}
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("browser processes left running: %v", left)
}
