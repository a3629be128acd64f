package viewer

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// Figure is one live number of the overlay, such as {"up", 42.5, "kbps"},
// or a short text in its place, such as a setting or "no estimate yet".
//
// The page shows the figures of many players as a table, a row per player
// (Row) and a column per figure (Column), with the unit in the column's
// header, and plots the columns it knows (rtt, up, down, the delays, the
// corrections) over the last 30 s. A figure without a Row is a row of its
// own in the list above the table, named by Name. Name is what the page's
// debug hook and the terminal call the figure.
//
// Figures that predate Row and Column name their player in Name, as
// "p1 up" or "server cpu": a figure with an empty Row whose Name starts
// with a player ("p" and a number) or "server" and a space is put in that
// row, its column the rest of the name (Cell). Figures are shown in the
// order given: rows and columns in the order they first appear.
type Figure struct {
	Name  string  // short label: "up", "loss", "position error"; with Row, the full name: "p1 up"
	Value float64 // integers shown whole, others with 3 to 0 decimals as they grow; NaN and ±Inf show as "–"
	Unit  string  // "kbps", "%", "ms", "cm", or "" for a count
	Text  string  // when set, shown instead of Value and Unit: "100 ms each way", "no estimate yet"
	// Row is whose figure it is, such as "p1" or "server"; empty: taken
	// from Name (see above), or none: a figure of the whole match.
	Row string
	// Column is the figure's column, such as "up"; empty: Name less the
	// row's prefix.
	Column string
}

// Cell returns the row and column the page shows f in: Row and Column
// when set, else those read from Name ("p3 input delay" is row "p3",
// column "input delay"). The row is empty for a figure of the whole match.
func (f Figure) Cell() (row, column string) {
	row, column = f.Row, f.Column
	if row == "" {
		if who, rest, ok := strings.Cut(f.Name, " "); ok && rest != "" && isRowName(who) {
			row, column = who, cmp.Or(column, rest)
		}
	}
	if row != "" && column == "" {
		column = strings.TrimPrefix(f.Name, row+" ")
	}
	if row == "" {
		column = ""
	}
	return row, column
}

// isRowName reports whether a name's first word names a row: "server", or
// "p" and a player number.
func isRowName(w string) bool {
	if w == "server" {
		return true
	}
	if len(w) < 2 || len(w) > 4 || w[0] != 'p' || w[1] == '0' {
		return false
	}
	for _, c := range w[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
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
//	{"type":"figures","seq":17,"figures":[{"name":"p1 up","value":42.5,"unit":"kbps","row":"p1","col":"up"}, ...]}
//
// A figure with a Text has "text" as well, and no value or unit:
// {"name":"loss","value":null,"unit":"","text":"no estimate yet"}. "row"
// and "col" are the figure's Cell, absent for a figure of the whole match.
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
	Row   string   `json:"row,omitempty"`
	Col   string   `json:"col,omitempty"`
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
		row, col := f.Cell()
		if f.Text != "" {
			m.Figures[i] = jsonFigure{Name: f.Name, Text: f.Text, Row: row, Col: col}
			continue
		}
		m.Figures[i] = jsonFigure{Name: f.Name, Unit: f.Unit, Row: row, Col: col}
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
