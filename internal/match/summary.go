package match

import (
	"fmt"
	"io"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/viewer"
)

// Summary is what a run of serve, play or demo prints when it stops: one
// section per side.
type Summary struct {
	Command  string // "serve", "play" or "demo"
	Model    string
	Duration time.Duration
	Sections []Section
}

// Section is one side's lines, such as "player 2".
type Section struct {
	Name  string
	Lines []Line
}

// Print writes the summary as an indented table.
func (s Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "%s summary: model %s, %v\n", s.Command, s.Model, s.Duration.Round(time.Millisecond))
	for _, sec := range s.Sections {
		fmt.Fprintf(w, "  %s\n", sec.Name)
		for _, l := range sec.Lines {
			fmt.Fprintf(w, "    %-18s %s\n", l.Name, l.Value)
		}
	}
}

// trafficLines are the runtime's lines about a player's datagrams over d,
// as its side of the link counted them: a side counts the datagrams its
// own model refused, so a player reports its down errors, the server the
// up ones.
func trafficLines(dst []Line, t netmodel.Traffic, d time.Duration) []Line {
	dst = append(dst,
		Line{"up", fmt.Sprintf("%.1f kbps, %d datagrams", t.UpKbps(d), t.UpPackets)},
		Line{"down", fmt.Sprintf("%.1f kbps, %d datagrams", t.DownKbps(d), t.DownPackets)},
	)
	if t.UpErrors > 0 || t.DownErrors > 0 {
		dst = append(dst, Line{"refused", fmt.Sprintf("%d up, %d down (datagrams the receiving model dropped)", t.UpErrors, t.DownErrors)})
	}
	return dst
}

// meter turns growing Traffic counts into the rates of the last window,
// for live figures that follow the match rather than its mean since the
// start.
type meter struct {
	start    time.Time
	last     netmodel.Traffic
	up, down float64 // kbps over the last full window
}

const meterWindow = time.Second

// sample notes the counts at now and returns the rates.
func (m *meter) sample(now time.Time, t netmodel.Traffic) (up, down float64) {
	if m.start.IsZero() {
		m.start, m.last = now, t
	}
	if d := now.Sub(m.start); d >= meterWindow {
		w := t.Sub(m.last)
		m.up, m.down = w.UpKbps(d), w.DownKbps(d)
		m.start, m.last = now, t
	}
	return m.up, m.down
}

// trafficFigures appends a player's live rates, names prefixed by who.
func trafficFigures(dst []viewer.Figure, who string, up, down float64) []viewer.Figure {
	return append(dst,
		viewer.Figure{Name: who + "up", Value: up, Unit: "kbps"},
		viewer.Figure{Name: who + "down", Value: down, Unit: "kbps"},
	)
}

// prefixed appends src to dst with every name prefixed by who.
func prefixed(dst []viewer.Figure, who string, src []viewer.Figure) []viewer.Figure {
	for _, f := range src {
		f.Name = who + f.Name
		dst = append(dst, f)
	}
	return dst
}
