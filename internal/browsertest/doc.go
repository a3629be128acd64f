// Package browsertest drives Debian's headless chromium (/usr/bin/chromium,
// through chromedp) for the end-to-end tests of the viewer page: the
// viewer's own test against its fixture world and the demo's test against
// the real networked cube world share it.
//
// # Usage
//
//	ctx, cancel := context.WithTimeout(context.Background(), 55*time.Second)
//	t.Cleanup(cancel) // not defer: the context must outlive Close, which runs in a cleanup
//	b := browsertest.Start(t, ctx, 960, 480) // fails the test if chromium is missing
//	b.Open(web.URL)
//	st := b.WaitState("both views drawn", func(s browsertest.PageState) bool { return s.Drawn(2) })
//	img, _ := b.Screenshot()
//	counts := browsertest.CountViews(img, st) // cube pixels per view
//	b.Press(browsertest.ArrowRight)
//	...
//	b.Release(browsertest.ArrowRight)
//	b.Drag(browsertest.LeftButton, 300, 200, 500, 200, 10, 50*time.Millisecond) // real mouse events
//
// Start registers Browser.Close with t.Cleanup; a test that wants the
// browser gone earlier calls Close itself (it runs once). Close fails the
// test for every error the page logged or threw (a CSP violation, a
// shader that does not compile, an exception in a handler) and for every
// browser process that outlived the browser.
//
// Every wait is bounded by the context given to Start, never by a sleep
// count: software WebGL (SwiftShader) on a loaded 2-core machine draws a
// few frames a second, so the tests state what they wait for and the
// context states how long at most.
//
// The harness reads the page through window.__viewerState, the debug
// hook the viewer page (viewer/static/viewer.js) keeps of what it
// received and drew; PageState mirrors the part the tests use.
package browsertest
