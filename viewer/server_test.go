package viewer_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/netphys/netphys/viewer"
)

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// harness is a Server on an httptest server, torn down with the test.
type harness struct {
	srv *viewer.Server
	web *httptest.Server
	ctx context.Context
}

func newHarness(t *testing.T, cfg viewer.Config) *harness {
	t.Helper()
	cfg.Logger = discardLogger()
	srv := viewer.New(cfg)
	web := httptest.NewServer(srv.Handler())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(func() {
		srv.Close()
		web.Close()
		cancel()
	})
	return &harness{srv: srv, web: web, ctx: ctx}
}

// dial connects a page and reads its hello.
func (h *harness) dial(t *testing.T) *websocket.Conn {
	t.Helper()
	conn, _, err := websocket.Dial(h.ctx, "ws"+strings.TrimPrefix(h.web.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	conn.SetReadLimit(1 << 24)
	var hello struct {
		Type          string `json:"type"`
		Protocol      int    `json:"protocol"`
		InputResendMs int    `json:"inputResendMs"`
	}
	readJSON(t, h.ctx, conn, &hello)
	if hello.Type != "hello" || hello.Protocol != viewer.FrameVersion || hello.InputResendMs <= 0 {
		t.Fatalf("first message %+v, want a hello", hello)
	}
	// Publish only reaches pages the server has registered.
	for h.srv.Clients() == 0 {
		time.Sleep(time.Millisecond)
	}
	return conn
}

func readJSON(t *testing.T, ctx context.Context, conn *websocket.Conn, v any) {
	t.Helper()
	typ, b, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("got a %v message, want text", typ)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

// readFrame reads the next binary frame and the figures message after it,
// if one follows before the next frame.
func readFrame(t *testing.T, ctx context.Context, conn *websocket.Conn) (viewer.FrameSeq, []viewer.View) {
	t.Helper()
	typ, b, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageBinary {
		t.Fatalf("got text %s, want a binary frame", b)
	}
	seq, views, err := viewer.DecodeFrame(b)
	if err != nil {
		t.Fatal(err)
	}
	return seq, views
}

// ack acknowledges frame seq, as the page does on receiving it.
func ack(t *testing.T, ctx context.Context, conn *websocket.Conn, seq viewer.FrameSeq) {
	t.Helper()
	if err := conn.Write(ctx, websocket.MessageText, viewer.AppendAck(nil, seq)); err != nil {
		t.Fatalf("ack: %v", err)
	}
}

type figuresMsg struct {
	Type    string `json:"type"`
	Seq     uint32 `json:"seq"`
	Figures []struct {
		Name  string   `json:"name"`
		Value *float64 `json:"value"`
		Unit  string   `json:"unit"`
	} `json:"figures"`
}

func smallFrame(tick int) viewer.Frame {
	return viewer.Frame{
		Views: []viewer.View{
			{Name: "authority", Cubes: []viewer.Cube{{ID: 1, Position: [3]float32{float32(tick), 0.5, 0}, Rotation: [4]float32{0, 0, 0, 1}, Player: true}}},
			{Name: "remote", Cubes: []viewer.Cube{{ID: 1, Position: [3]float32{float32(tick - 1), 0.5, 0}, Rotation: [4]float32{0, 0, 0, 1}, Player: true}}},
		},
		Figures: []viewer.Figure{{Name: "tick", Value: float64(tick)}, {Name: "loss", Value: 5, Unit: "%"}},
	}
}

func TestFanOut(t *testing.T) {
	h := newHarness(t, viewer.Config{})
	pages := []*websocket.Conn{h.dial(t), h.dial(t), h.dial(t)}
	for h.srv.Clients() < len(pages) {
		time.Sleep(time.Millisecond)
	}
	if err := h.srv.Publish(smallFrame(5)); err != nil {
		t.Fatal(err)
	}
	for i, page := range pages {
		seq, views := readFrame(t, h.ctx, page)
		if seq != 1 || len(views) != 2 || views[1].Name != "remote" || views[0].Cubes[0].Position[0] != 5 || !views[0].Cubes[0].Player {
			t.Errorf("page %d: seq %d views %+v", i, seq, views)
		}
		var figs figuresMsg
		readJSON(t, h.ctx, page, &figs)
		if figs.Type != "figures" || figs.Seq != 1 || len(figs.Figures) != 2 || figs.Figures[1].Unit != "%" || *figs.Figures[0].Value != 5 {
			t.Errorf("page %d: figures %+v", i, figs)
		}
	}
}

// TestFiguresOnlyWhenChanged checks that unchanged figures are not resent
// and that values JSON cannot carry arrive as null.
func TestFiguresOnlyWhenChanged(t *testing.T) {
	h := newHarness(t, viewer.Config{})
	page := h.dial(t)
	f := smallFrame(1)
	f.Figures = []viewer.Figure{{Name: "rtt", Value: 100, Unit: "ms"}}
	h.srv.Publish(f)
	readFrame(t, h.ctx, page)
	var figs figuresMsg
	readJSON(t, h.ctx, page, &figs)
	ack(t, h.ctx, page, 1)

	h.srv.Publish(f) // same figures: a frame alone
	if seq, _ := readFrame(t, h.ctx, page); seq != 2 {
		t.Fatalf("seq %d, want 2", seq)
	}
	ack(t, h.ctx, page, 2)
	f.Figures = []viewer.Figure{{Name: "rtt", Value: math.Inf(1), Unit: "ms"}}
	h.srv.Publish(f)
	if seq, _ := readFrame(t, h.ctx, page); seq != 3 {
		t.Fatalf("seq %d, want 3: the unchanged figures were sent again", seq)
	}
	readJSON(t, h.ctx, page, &figs)
	if figs.Seq != 3 || figs.Figures[0].Value != nil {
		t.Errorf("figures %+v, want seq 3 with a null value", figs)
	}
}

func TestInputFromPages(t *testing.T) {
	h := newHarness(t, viewer.Config{})
	a, b := h.dial(t), h.dial(t)
	send := func(c *websocket.Conn, in viewer.Input) {
		t.Helper()
		if err := c.Write(h.ctx, websocket.MessageText, viewer.AppendInput(nil, in, nil)); err != nil {
			t.Fatal(err)
		}
	}
	waitInput := func(want viewer.Input) {
		t.Helper()
		for h.srv.Input() != want {
			if h.ctx.Err() != nil {
				t.Fatalf("input %v, want %v", h.srv.Input(), want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	if in := h.srv.Input(); in != 0 {
		t.Fatalf("input %v before any message", in)
	}
	send(a, viewer.KeyLeft|viewer.KeyZ)
	waitInput(viewer.KeyLeft | viewer.KeyZ)
	send(b, viewer.KeySpace) // two pages: the union
	waitInput(viewer.KeyLeft | viewer.KeyZ | viewer.KeySpace)
	send(a, 0)
	waitInput(viewer.KeySpace)
	b.Close(websocket.StatusNormalClosure, "") // a page that leaves releases its keys
	waitInput(0)
}

// TestPointerFromPages: the newest pointer of any page counts, a page's
// input without one withdraws its own, and a page that leaves takes its
// pointer along.
func TestPointerFromPages(t *testing.T) {
	h := newHarness(t, viewer.Config{})
	a, b := h.dial(t), h.dial(t)
	at := func(x float64, grip bool) *viewer.Pointer {
		return &viewer.Pointer{From: [3]float64{x, 10, 20}, Dir: [3]float64{0, -0.6, -0.8}, Lift: 0.5, Grip: grip}
	}
	send := func(c *websocket.Conn, p *viewer.Pointer) {
		t.Helper()
		if err := c.Write(h.ctx, websocket.MessageText, viewer.AppendInput(nil, viewer.KeyZ, p)); err != nil {
			t.Fatal(err)
		}
	}
	wait := func(want *viewer.Pointer) {
		t.Helper()
		for {
			p, ok := h.srv.Pointer()
			if (want == nil && !ok) || (want != nil && ok && p == *want) {
				return
			}
			if h.ctx.Err() != nil {
				t.Fatalf("pointer %+v (%v), want %+v", p, ok, want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	wait(nil)
	send(a, at(1, true))
	wait(at(1, true))
	time.Sleep(2 * time.Millisecond) // b's message must arrive measurably later
	send(b, at(2, false))
	wait(at(2, false))
	send(b, nil)
	wait(at(1, true))
	a.Close(websocket.StatusNormalClosure, "")
	wait(nil)
	if in := h.srv.Input(); in != viewer.KeyZ {
		t.Errorf("keys %v, want b's z", in)
	}
}

func TestInputTimeout(t *testing.T) {
	h := newHarness(t, viewer.Config{InputTimeout: 50 * time.Millisecond})
	page := h.dial(t)
	if err := page.Write(h.ctx, websocket.MessageText, viewer.AppendInput(nil, viewer.KeyUp, nil)); err != nil {
		t.Fatal(err)
	}
	seen := false
	for h.ctx.Err() == nil {
		in := h.srv.Input()
		if in == viewer.KeyUp {
			seen = true
		}
		if seen && in == 0 {
			return // forgotten once the page stopped repeating it
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("input never expired (seen: %v)", seen)
}

// TestBadPagesAreClosed checks each protocol violation closes the page's
// connection with a code and a reason, and leaves the server serving.
func TestBadPagesAreClosed(t *testing.T) {
	h := newHarness(t, viewer.Config{})
	tests := []struct {
		name   string
		typ    websocket.MessageType
		msg    string
		code   websocket.StatusCode
		reason string
	}{
		{"binary", websocket.MessageBinary, "\x01\x02", websocket.StatusUnsupportedData, "not binary"},
		{"not JSON", websocket.MessageText, "left", websocket.StatusPolicyViolation, "bad page message"},
		{"unknown key", websocket.MessageText, `{"type":"input","keys":["jump"]}`, websocket.StatusPolicyViolation, `unknown key "jump"`},
		{"pointer far away", websocket.MessageText, `{"type":"input","keys":[],"pointer":{"from":[0,1e9,0],"dir":[0,-1,0],"lift":0,"grip":false}}`, websocket.StatusPolicyViolation, "pointer coordinate 1"},
		{"ack of a frame not sent", websocket.MessageText, `{"type":"ack","seq":1}`, websocket.StatusPolicyViolation, "ack of frame 1: sent up to 0"},
		{"too long", websocket.MessageText, strings.Repeat(" ", viewer.MaxPageMessage+1), websocket.StatusMessageTooBig, ""},
	}
	for _, tt := range tests {
		page := h.dial(t)
		if err := page.Write(h.ctx, tt.typ, []byte(tt.msg)); err != nil {
			t.Fatalf("%s: write: %v", tt.name, err)
		}
		_, _, err := page.Read(h.ctx)
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != tt.code || !strings.Contains(ce.Reason, tt.reason) {
			t.Errorf("%s: read error %v, want close %v with reason containing %q", tt.name, err, tt.code, tt.reason)
		}
	}
	for h.srv.Clients() != 0 {
		if h.ctx.Err() != nil {
			t.Fatalf("%d pages still registered", h.srv.Clients())
		}
		time.Sleep(time.Millisecond)
	}
	if in := h.srv.Input(); in != 0 {
		t.Errorf("input %v from closed pages", in)
	}
	page := h.dial(t) // still serving
	h.srv.Publish(smallFrame(1))
	readFrame(t, h.ctx, page)
}

func TestMaxClients(t *testing.T) {
	h := newHarness(t, viewer.Config{MaxClients: 1})
	h.dial(t)
	_, resp, err := websocket.Dial(h.ctx, "ws"+strings.TrimPrefix(h.web.URL, "http")+"/ws", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("second page: err %v, response %v; want 503", err, resp)
	}
}

func TestClose(t *testing.T) {
	h := newHarness(t, viewer.Config{})
	page := h.dial(t)
	// The page reads while the server closes, as a browser does, so that
	// the close handshake completes.
	read := make(chan error, 1)
	go func() {
		_, _, err := page.Read(h.ctx)
		read <- err
	}()
	if err := h.srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-read; websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("page read %v, want close 1001", err)
	}
	if n := h.srv.Clients(); n != 0 {
		t.Errorf("%d pages after Close", n)
	}
	if err := h.srv.Publish(smallFrame(1)); !errors.Is(err, viewer.ErrClosed) {
		t.Errorf("Publish after Close: %v", err)
	}
	if err := h.srv.Publish(viewer.Frame{Views: make([]viewer.View, viewer.MaxViews+1)}); err == nil {
		t.Error("Publish of an invalid frame after Close succeeded")
	}
}

func TestPublishRejectsInvalidFrame(t *testing.T) {
	h := newHarness(t, viewer.Config{})
	if err := h.srv.Publish(viewer.Frame{Views: make([]viewer.View, viewer.MaxViews+1)}); !errors.Is(err, viewer.ErrLimit) {
		t.Errorf("Publish of %d views: %v, want ErrLimit", viewer.MaxViews+1, err)
	}
	page := h.dial(t)
	h.srv.Publish(smallFrame(1))
	if seq, _ := readFrame(t, h.ctx, page); seq != 1 {
		t.Errorf("seq %d after a rejected frame, want 1", seq)
	}
}

func TestServesPage(t *testing.T) {
	h := newHarness(t, viewer.Config{})
	for _, tt := range []struct{ path, typ, contains string }{
		{"/", "text/html", `src="viewer.js"`},
		{"/viewer.js", "javascript", "./worlds.js"},
		{"/worlds.js", "javascript", "./vendor/three.module.min.js"},
		{"/style.css", "text/css", "#figures"},
		{"/vendor/three.module.min.js", "javascript", "SPDX-License-Identifier: MIT"},
		{"/vendor/LICENSE", "text/plain", "MIT"},
	} {
		resp, err := http.Get(h.web.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), tt.typ) || !strings.Contains(string(body), tt.contains) {
			t.Errorf("GET %s: %d %q, body has %q: %v", tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), tt.contains, strings.Contains(string(body), tt.contains))
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET %s: CSP %q", tt.path, csp)
		}
	}
}

// TestControls: a page connected before SetControls gets the new controls
// line, one connected after gets it right after the hello, and the frames
// follow.
func TestControls(t *testing.T) {
	h := newHarness(t, viewer.Config{})
	early := h.dial(t)
	want := []viewer.Control{{Keys: []string{"mouse"}, Does: "moves the hand"}, {Keys: []string{"left button", "z"}, Does: "grips"}}
	h.srv.SetControls(want)
	late := h.dial(t)
	h.srv.Publish(smallFrame(1))
	for _, page := range []*websocket.Conn{early, late} {
		var msg struct {
			Type     string           `json:"type"`
			Controls []viewer.Control `json:"controls"`
		}
		readJSON(t, h.ctx, page, &msg)
		if msg.Type != "controls" || len(msg.Controls) != 2 || msg.Controls[1].Keys[0] != "left button" || msg.Controls[0].Does != "moves the hand" {
			t.Errorf("message %+v, want the controls", msg)
		}
		if seq, _ := readFrame(t, h.ctx, page); seq != 1 {
			t.Errorf("frame %d, want 1", seq)
		}
	}
}
