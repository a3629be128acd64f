package viewer

import (
	"encoding/json"
	"testing"
)

// TestFigureCell checks how a figure's row and column are read: from Row
// and Column when set, else from a Name that starts with a player or the
// server, and none for a figure of the whole match.
func TestFigureCell(t *testing.T) {
	tests := []struct {
		f        Figure
		row, col string
	}{
		{Figure{Name: "p1 up"}, "p1", "up"},
		{Figure{Name: "p16 input delay"}, "p16", "input delay"},
		{Figure{Name: "server cpu"}, "server", "cpu"},
		{Figure{Name: "server tick"}, "server", "tick"},
		{Figure{Name: "up", Row: "p2"}, "p2", "up"},
		{Figure{Name: "p2 up", Row: "p2"}, "p2", "up"},
		{Figure{Name: "anything", Row: "p3", Column: "rtt"}, "p3", "rtt"},
		{Figure{Name: "p1 whatever", Column: "rtt"}, "p1", "rtt"},
		// Not a player: a figure of the whole match.
		{Figure{Name: "checksums compared"}, "", ""},
		{Figure{Name: "p1"}, "", ""},
		{Figure{Name: "p1 "}, "", ""},
		{Figure{Name: "p0 up"}, "", ""},
		{Figure{Name: "pa up"}, "", ""},
		{Figure{Name: "p12345 up"}, "", ""},
		{Figure{Name: "position error"}, "", ""},
		{Figure{Name: "rtt", Column: "rtt"}, "", ""},
	}
	for _, tt := range tests {
		row, col := tt.f.Cell()
		if row != tt.row || col != tt.col {
			t.Errorf("%+v: cell (%q, %q), want (%q, %q)", tt.f, row, col, tt.row, tt.col)
		}
	}
}

// TestFiguresMessageCells checks that the figures message carries each
// figure's cell, and none for a figure of the whole match.
func TestFiguresMessageCells(t *testing.T) {
	b := marshalFigures(4, []Figure{
		{Name: "network", Text: "100 ms each way"},
		{Name: "p1 up", Value: 28.5, Unit: "kbps"},
		{Name: "p2 loss", Text: "no estimate yet"},
	})
	var m struct {
		Figures []map[string]any `json:"figures"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Figures) != 3 {
		t.Fatalf("%s: %d figures", b, len(m.Figures))
	}
	if _, ok := m.Figures[0]["row"]; ok {
		t.Errorf("%s: the whole match's figure has a row", b)
	}
	if m.Figures[1]["row"] != "p1" || m.Figures[1]["col"] != "up" || m.Figures[1]["name"] != "p1 up" {
		t.Errorf("%s: p1 up in cell (%v, %v)", b, m.Figures[1]["row"], m.Figures[1]["col"])
	}
	if m.Figures[2]["row"] != "p2" || m.Figures[2]["col"] != "loss" || m.Figures[2]["text"] != "no estimate yet" {
		t.Errorf("%s: p2 loss in cell (%v, %v)", b, m.Figures[2]["row"], m.Figures[2]["col"])
	}
}
