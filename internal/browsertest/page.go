package browsertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// PageState is the part of the viewer page's window.__viewerState the
// tests read (see viewer/static/viewer.js).
type PageState struct {
	Connected bool     `json:"connected"`
	Frames    int      `json:"frames"`   // binary frames received
	Seq       uint32   `json:"seq"`      // of the newest frame received
	Rendered  uint32   `json:"rendered"` // seq of the frame last drawn
	DrawMs    float64  `json:"drawMs"`   // JavaScript time of the last draw, ms
	Skipped   int      `json:"skipped"`  // frames not sent to the page while it was busy
	Error     string   `json:"error"`
	Keys      []string `json:"keys"`    // held, as last sent
	Pointer   *Pointer `json:"pointer"` // the mouse as last sent, nil before it moved over the views
	Views     []View   `json:"views"`
	Grid      *Grid    `json:"grid"` // the viewports' grid, nil before the first draw
	Figures   []Figure `json:"figures"`
	Legend    []string `json:"legend"` // the colour legend's entries, as shown
}

// Grid is the viewports' grid.
type Grid struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Box is a rectangle on the page, CSS pixels from its top left.
type Box struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Overlaps reports whether b and o share any area.
func (b Box) Overlaps(o Box) bool {
	return b.X < o.X+o.W && o.X < b.X+b.W && b.Y < o.Y+o.H && o.Y < b.Y+b.H
}

// Inside reports whether b lies within o, to within a pixel.
func (b Box) Inside(o Box) bool {
	return b.X >= o.X-1 && b.Y >= o.Y-1 && b.X+b.W <= o.X+o.W+1 && b.Y+b.H <= o.Y+o.H+1
}

// View is one viewport as drawn.
type View struct {
	Name    string      `json:"name"`
	Cubes   int         `json:"cubes"`
	Player  []float64   `json:"player"`  // x, y, z in m; nil when the view has no player
	Players [][]float64 `json:"players"` // every player cube's x, y, z in frame order (the VR avatars' hands and heads)
	// Overview says the view is nobody's own (the server's world), framed
	// whole.
	Overview bool `json:"overview"`
	// Cell is the view's viewport, CSS pixels from the canvas's top left.
	Cell *Box `json:"cell"`
	// Own is the view's player projected on its viewport as last drawn,
	// normalized device coordinates (-1 to 1 across it when inside), nil
	// for an overview or a view without a player.
	Own []float64 `json:"own"`
	// Drawn counts the draws of a player's view, OwnInFrame those that
	// showed the player inside the viewport.
	Drawn      int `json:"drawn"`
	OwnInFrame int `json:"ownInFrame"`
	// Camera is what the mouse did to the view's camera.
	Camera Camera `json:"camera"`
}

// Camera is a view's camera as the mouse left it: zoom 1, yaw and pitch 0
// is the view's own framing.
type Camera struct {
	Zoom  float64 `json:"zoom"`  // times the framing's distance
	Yaw   float64 `json:"yaw"`   // radians turned around the point looked at
	Pitch float64 `json:"pitch"` // log of the rise's factor
}

// Pointer is the mouse as the page sends it (viewer.Pointer).
type Pointer struct {
	From []float64 `json:"from"`
	Dir  []float64 `json:"dir"`
	Lift float64   `json:"lift"`
	Grip bool      `json:"grip"`
}

// Figure is one row of the figures overlay; Value is nil when the page
// shows none, Text is set when the row shows a text instead.
type Figure struct {
	Name  string   `json:"name"`
	Value *float64 `json:"value"`
	Unit  string   `json:"unit"`
	Text  string   `json:"text"`
	Row   string   `json:"row"` // the table's row, "" for a figure of the whole match
	Col   string   `json:"col"` // the table's column
}

// Drawn reports whether the page has drawn a frame of n views, each
// showing its player.
func (s PageState) Drawn(n int) bool {
	if s.Rendered == 0 || len(s.Views) != n {
		return false
	}
	for _, v := range s.Views {
		if v.Player == nil {
			return false
		}
	}
	return true
}

// Figure returns the value of the figure called name, and whether the page
// shows one.
func (s PageState) Figure(name string) (float64, bool) {
	for _, f := range s.Figures {
		if f.Name == name && f.Value != nil {
			return *f.Value, true
		}
	}
	return 0, false
}

// MustFigure returns the figure's value, failing the test when the page
// does not show it.
func (s PageState) MustFigure(t testing.TB, name string) float64 {
	t.Helper()
	v, ok := s.Figure(name)
	if !ok {
		t.Fatalf("no figure %q in %+v", name, s.Figures)
	}
	return v
}

// State reads window.__viewerState once.
func (b *Browser) State() (PageState, error) {
	return chromedp.Run(b.ctx, chromedp.Evaluate[PageState](`window.__viewerState ?? {}`))
}

// pollEvery is how often WaitState reads the page: often enough to see a
// change within a frame or two of SwiftShader, rarely enough not to load
// the page's main thread.
const pollEvery = 100 * time.Millisecond

// WaitState reads window.__viewerState until ok holds, and returns that
// state. It fails the test with the last state read when the context
// given to Start ends first.
func (b *Browser) WaitState(what string, ok func(PageState) bool) PageState {
	b.t.Helper()
	for {
		st, err := b.State()
		if err == nil && ok(st) {
			return st
		}
		if b.ctx.Err() != nil {
			b.t.Fatalf("waiting for %s: last state %+v, err %v", what, st, err)
		}
		time.Sleep(pollEvery)
	}
}

// WaitSettled is WaitState for a layout: it returns a state in which ok
// holds and every view has the same viewport as in the state read before
// it, with a frame drawn in between, so that boxes read from the page
// right after belong to the same layout (a figures panel that grows moves
// the viewports).
func (b *Browser) WaitSettled(what string, ok func(PageState) bool) PageState {
	b.t.Helper()
	var prev PageState
	return b.WaitState(what, func(s PageState) bool {
		settled := ok(s) && s.Rendered > prev.Rendered && sameCells(s, prev)
		prev = s
		return settled
	})
}

// sameCells reports whether a and b show the same views in the same
// viewports.
func sameCells(a, b PageState) bool {
	if len(a.Views) != len(b.Views) {
		return false
	}
	for i := range a.Views {
		ca, cb := a.Views[i].Cell, b.Views[i].Cell
		if ca == nil || cb == nil || *ca != *cb {
			return false
		}
	}
	return true
}

// Text returns the text content of the first element matching the CSS
// selector sel.
func (b *Browser) Text(sel string) string {
	b.t.Helper()
	text, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("read %s: %v", sel, err)
	}
	return text
}

// Covered returns the text of the elements matching sel whose box
// intersects the box of an element matching over, such as the view labels
// under the figures panel.
func (b *Browser) Covered(sel, over string) []string {
	b.t.Helper()
	js := fmt.Sprintf(`(() => {
		const tops = [...document.querySelectorAll(%q)].map((e) => e.getBoundingClientRect());
		return [...document.querySelectorAll(%q)].filter((e) => {
			const r = e.getBoundingClientRect();
			return tops.some((t) => r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom);
		}).map((e) => e.textContent);
	})()`, over, sel)
	covered, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](js))
	if err != nil {
		b.t.Fatalf("boxes of %s under %s: %v", sel, over, err)
	}
	return covered
}

// Boxes returns the boxes of the visible elements matching the CSS
// selector sel, with their text, in document order.
func (b *Browser) Boxes(sel string) []TextBox {
	b.t.Helper()
	return b.Layout(sel).Boxes[sel]
}

// Layout is the page's state and the boxes of some of its elements, read
// at once.
type Layout struct {
	State PageState            `json:"state"`
	Boxes map[string][]TextBox `json:"boxes"` // per selector, as Boxes returns them
}

// Layout reads the page's state and the boxes of the elements matching
// each selector in one evaluation, so that they belong to the same
// layout: a page busy drawing answers each evaluation late.
func (b *Browser) Layout(sels ...string) Layout {
	b.t.Helper()
	js := fmt.Sprintf(`(() => {
		const boxes = {};
		for (const sel of %s) {
			boxes[sel] = [...document.querySelectorAll(sel)].filter((e) => e.getClientRects().length > 0).map((e) => {
				const r = e.getBoundingClientRect();
				return { box: { x: r.left, y: r.top, w: r.width, h: r.height }, text: e.textContent,
					overflows: e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1 };
			});
		}
		return { state: window.__viewerState ?? {}, boxes };
	})()`, jsStrings(sels))
	l, err := chromedp.Run(b.ctx, chromedp.Evaluate[Layout](js))
	if err != nil {
		b.t.Fatalf("boxes of %q: %v", sels, err)
	}
	return l
}

// jsStrings writes strs as a JavaScript array of strings.
func jsStrings(strs []string) string {
	out := "["
	for i, s := range strs {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", s)
	}
	return out + "]"
}

// TextBox is an element's box and text, and whether its content overflows
// the box (scrolls or is clipped).
type TextBox struct {
	Box       Box    `json:"box"`
	Text      string `json:"text"`
	Overflows bool   `json:"overflows"`
}

// Resize sets the page's viewport to width × height CSS pixels, as a
// window resized.
func (b *Browser) Resize(width, height int) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		b.t.Fatalf("set the viewport to %d×%d: %v", width, height, err)
	}
}

// Key is a key of the keyboard as the DevTools protocol names it.
type Key struct {
	Key, Code   string // KeyboardEvent.key and .code
	VirtualCode int64  // Windows virtual key code
}

// ArrowRight is the key the viewer tests hold: it pushes the player
// along +X.
var ArrowRight = Key{"ArrowRight", "ArrowRight", 39}

// Press presses k in the page; the page sees it held until Release, as
// with a real keyboard.
func (b *Browser) Press(k Key) {
	b.t.Helper()
	b.dispatchKey(input.DispatchKeyEventTypeKeyDown, k)
}

// Release releases k.
func (b *Browser) Release(k Key) {
	b.t.Helper()
	b.dispatchKey(input.DispatchKeyEventTypeKeyUp, k)
}

func (b *Browser) dispatchKey(typ input.DispatchKeyEventType, k Key) {
	b.t.Helper()
	ev := input.DispatchKeyEventParams{Type: typ, Key: k.Key, Code: k.Code, WindowsVirtualKeyCode: k.VirtualCode}
	err := chromedp.Do(b.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, ev)
		return err
	}))
	if err != nil {
		b.t.Fatalf("key %s %s: %v", k.Key, typ, err)
	}
}

// Hide makes the elements matching the CSS selector sel invisible, such
// as the overlays above the canvas before a pixel count, and returns the
// function that shows them again. It fails the test when nothing matches:
// a stale selector would hide nothing and let overlay pixels count.
func (b *Browser) Hide(sel string) (show func()) {
	b.t.Helper()
	set := func(visibility string) {
		b.t.Helper()
		js := fmt.Sprintf(`(() => {
			const all = document.querySelectorAll(%q);
			all.forEach((e) => { e.style.visibility = %q; });
			return all.length;
		})()`, sel, visibility)
		n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](js))
		if err != nil || n == 0 {
			b.t.Fatalf("set %s to visibility %q: %d elements, err %v", sel, visibility, n, err)
		}
	}
	set("hidden")
	return func() {
		b.t.Helper()
		set("")
	}
}

// Move moves the mouse to (x, y), CSS pixels from the top left of the
// page, with no button held.
func (b *Browser) Move(x, y float64) {
	b.t.Helper()
	b.mouse(input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 0)
}

// Button is a mouse button as the DevTools protocol names it.
type Button struct {
	name input.MouseButton
	mask int64 // its bit in the buttons held
}

// The buttons the viewer tests drag with.
var (
	LeftButton  = Button{input.MouseButtonLeft, 1}
	RightButton = Button{input.MouseButtonRight, 2}
)

// Drag presses button at (x0, y0) (CSS pixels from the top left of the
// page), moves the mouse to (x1, y1) in steps moves, waiting pause after
// each so that the page sees the way, and releases the button there:
// pointer events in the page, as from a real mouse.
func (b *Browser) Drag(button Button, x0, y0, x1, y1 float64, steps int, pause time.Duration) {
	b.t.Helper()
	b.mouse(input.DispatchMouseEventTypeMouseMoved, x0, y0, input.MouseButtonNone, 0)
	b.mouse(input.DispatchMouseEventTypeMousePressed, x0, y0, button.name, button.mask)
	for i := 1; i <= steps; i++ {
		f := float64(i) / float64(steps)
		b.mouse(input.DispatchMouseEventTypeMouseMoved, x0+f*(x1-x0), y0+f*(y1-y0), button.name, button.mask)
		time.Sleep(pause)
	}
	b.mouse(input.DispatchMouseEventTypeMouseReleased, x1, y1, button.name, 0)
}

// modifierShift is the shift key's bit in the DevTools protocol's
// modifiers.
const modifierShift = 8

// ShiftDrag drags with the left button and the shift key held from (x0,
// y0) to (x1, y0) in steps moves: the viewer's orbit.
func (b *Browser) ShiftDrag(x0, y0, x1 float64, steps int) {
	b.t.Helper()
	b.modifiers = modifierShift
	defer func() { b.modifiers = 0 }()
	b.Drag(LeftButton, x0, y0, x1, y0, steps, 30*time.Millisecond)
}

// mouse dispatches one mouse event; buttons is the mask of those held
// after it.
func (b *Browser) mouse(typ input.DispatchMouseEventType, x, y float64, button input.MouseButton, buttons int64) {
	b.t.Helper()
	ev := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Button: button, Buttons: buttons, Modifiers: b.modifiers}
	if typ != input.DispatchMouseEventTypeMouseMoved {
		ev.ClickCount = 1
	}
	err := chromedp.Do(b.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, input.DispatchMouseEvent, ev)
		return err
	}))
	if err != nil {
		b.t.Fatalf("mouse %s at (%g, %g): %v", typ, x, y, err)
	}
}
