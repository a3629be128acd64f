package viewer

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Figure is one live number of the overlay, such as {"up", 42.5, "kbps"},
// or a short text in its place, such as a setting or "no estimate yet".
// Figures are shown in the order given, so related ones can sit together.
type Figure struct {
	Name  string  // short label: "up", "loss", "position error"
	Value float64 // integers shown whole, others with 3 to 0 decimals as they grow; NaN and ±Inf show as "–"
	Unit  string  // "kbps", "%", "ms", "cm", or "" for a count
	Text  string  // when set, shown instead of Value and Unit: "100 ms each way", "no estimate yet"
}

// Control is one entry of the controls line at the bottom of the page:
// what to press and what it does, such as {[]string{"left button"},
// "grip"}. A key of the input (left, right, up, down, space, z) is drawn
// as a key cap that lights up while held, "left button" lights up while
// the mouse grips; any other name (mouse, right drag, wheel) is written
// out.
type Control struct {
	Keys []string `json:"keys"`
	Does string   `json:"does"`
}

// The server's text messages to a page are JSON objects told apart by
// "type" (the page's own are in pagemessage.go):
//
//	{"type":"hello","protocol":1,"inputResendMs":500}
//	{"type":"controls","controls":[{"keys":["mouse"],"does":"move the hand"}, ...]}
//	{"type":"figures","seq":17,"figures":[{"name":"up","value":42.5,"unit":"kbps"}, ...]}
//
// A figure with a Text has "text" as well, and no value or unit:
// {"name":"loss","value":null,"unit":"","text":"no estimate yet"}.
//
// hello comes first on every connection and tells the page how often to
// repeat its key state. controls follows it, and again whenever they
// change, once Server.SetControls replaced the page's own line (the cube
// world's keys). figures follows a binary frame when the figures
// changed since the last ones sent to that page; its seq is the frame's in
// which they last changed, which may be older than that binary frame if
// the page skipped frames.

type figuresMessage struct {
	Type    string       `json:"type"`
	Seq     FrameSeq     `json:"seq"`
	Figures []jsonFigure `json:"figures"`
}

// jsonFigure is a Figure as JSON, where a value that is not finite, which
// JSON cannot carry, becomes null.
type jsonFigure struct {
	Name  string   `json:"name"`
	Value *float64 `json:"value"`
	Unit  string   `json:"unit"`
	Text  string   `json:"text,omitempty"`
}

func marshalHello(resend time.Duration) []byte {
	return fmt.Appendf(nil, `{"type":"hello","protocol":%d,"inputResendMs":%d}`, FrameVersion, resend.Milliseconds())
}

func marshalControls(controls []Control) []byte {
	b, err := json.Marshal(struct {
		Type     string    `json:"type"`
		Controls []Control `json:"controls"`
	}{"controls", controls})
	if err != nil {
		panic(fmt.Sprintf("viewer: controls message: %v", err)) // strings only
	}
	return b
}

func marshalFigures(seq FrameSeq, figs []Figure) []byte {
	m := figuresMessage{Type: "figures", Seq: seq, Figures: make([]jsonFigure, len(figs))}
	for i, f := range figs {
		if f.Text != "" {
			m.Figures[i] = jsonFigure{Name: f.Name, Text: f.Text}
			continue
		}
		m.Figures[i] = jsonFigure{Name: f.Name, Unit: f.Unit}
		if !math.IsNaN(f.Value) && !math.IsInf(f.Value, 0) {
			v := f.Value
			m.Figures[i].Value = &v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("viewer: figures message: %v", err)) // only finite floats and strings remain
	}
	return b
}
