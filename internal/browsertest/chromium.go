package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/netphys/netphys/internal/headless"
)

// ChromiumPath is where Debian's chromium package installs the browser.
const ChromiumPath = headless.ChromiumPath

// Browser is one headless chromium with one tab, owned by one test.
type Browser struct {
	t       testing.TB
	ctx     context.Context // the tab: chromedp actions run on it
	dataDir string          // the fresh profile, which names the browser's processes
	stopAll context.CancelFunc
	shots   int // screenshots taken

	modifiers int64 // held during the mouse events dispatched (ShiftDrag): the protocol's bits, shift 8

	stopConsole context.CancelFunc
	consoleDone chan struct{}
	consoleMu   sync.Mutex
	pageErrors  []string

	closeOnce sync.Once
}

// Start starts headless chromium with a fresh profile and a window of
// width × height CSS pixels, bound by ctx: when ctx ends the browser is
// killed and every wait fails. It fails the test, never skips it, when
// chromium is not installed.
func Start(t testing.TB, ctx context.Context, width, height int) *Browser {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		t.Fatalf("no browser at %s: install chromium (apt-get install chromium)", ChromiumPath)
	}
	b := &Browser{t: t, dataDir: t.TempDir(), consoleDone: make(chan struct{})}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, headless.Options(b.dataDir, width, height)...)
	b.stopAll = cancelAlloc // kills what is left and waits for the process
	b.ctx, _ = chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	if err := chromedp.Do(b.ctx); err != nil {
		cancelAlloc()
		t.Fatalf("start %s: %v", ChromiumPath, err)
	}
	b.watchConsole()
	t.Cleanup(b.Close)
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("set the viewport to %d×%d: %v", width, height, err)
	}
	return b
}

// Context is the tab's context, for chromedp actions the harness does not
// wrap.
func (b *Browser) Context() context.Context { return b.ctx }

// Open loads url in the tab and waits for its load event.
func (b *Browser) Open(url string) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(url)); err != nil {
		b.t.Fatalf("load %s: %v", url, err)
	}
}

// watchConsole logs what the page prints and keeps its errors for Close.
func (b *Browser) watchConsole() {
	ctx, stop := context.WithCancel(b.ctx)
	b.stopConsole = stop
	go func() {
		defer close(b.consoleDone)
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			b.t.Logf("page console: %v", m)
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.consoleMu.Lock()
				b.pageErrors = append(b.pageErrors, m.String())
				b.consoleMu.Unlock()
			}
		}
	}()
}

// Close fails the test for every error the page logged, closes the
// browser gracefully and waits for it, then fails the test if any of its
// processes is still running. It runs once; Start registers it with
// t.Cleanup.
func (b *Browser) Close() {
	b.closeOnce.Do(func() {
		b.stopConsole()
		<-b.consoleDone
		for _, e := range b.pageErrors {
			b.t.Errorf("page error: %s", e)
		}
		chromedp.Cancel(b.ctx) // closes the browser, then the allocator waits for it
		b.assertNoLeftovers()
		b.stopAll()
	})
}

// assertNoLeftovers fails the test if a process of the browser, known by
// its profile directory on the command line, outlived it.
func (b *Browser) assertNoLeftovers() {
	want := []byte("--user-data-dir=" + b.dataDir)
	var left []string
	for range 40 { // the browser's children exit shortly after it: 2 s at most
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
	b.t.Errorf("browser processes left running: %v", left)
}
