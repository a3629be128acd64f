package match

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/udpdrive"
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

// Value returns the value of the line name in the section named section
// ("server", "player 2", ...), and whether there is one: a program reads
// a figure of the summary (a checksum, the ticks verified) as the person
// reads it.
func (s Summary) Value(section, name string) (string, bool) {
	for _, sec := range s.Sections {
		if sec.Name != section {
			continue
		}
		for _, l := range sec.Lines {
			if l.Name == name {
				return l.Value, true
			}
		}
	}
	return "", false
}

// Print writes the summary as an indented table; an empty Summary prints
// nothing.
func (s Summary) Print(w io.Writer) {
	if s.Command == "" {
		return
	}
	fmt.Fprintf(w, "%s summary: model %s, %v\n", s.Command, s.Model, s.Duration.Round(time.Millisecond))
	width := 18 // the names' column: the longest name, 18 at least
	for _, sec := range s.Sections {
		for _, l := range sec.Lines {
			width = max(width, utf8.RuneCountInString(l.Name))
		}
	}
	for _, sec := range s.Sections {
		fmt.Fprintf(w, "  %s\n", sec.Name)
		for _, l := range sec.Lines {
			fmt.Fprintf(w, "    %-*s %s\n", width, l.Name, l.Value)
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

// meter turns growing Traffic counts and Step costs into the rates of
// the last window, for live figures that follow the match rather than its
// mean since the start.
type meter struct {
	start    time.Time
	last     netmodel.Traffic
	lastCost udpdrive.Cost
	full     bool    // a whole window has passed
	up, down float64 // kbps over the last full window, or since the start before that
	cpu      float64 // mean ms per Step over the same window
}

const meterWindow = time.Second

// sample notes the counts and cost at now.
func (m *meter) sample(now time.Time, t netmodel.Traffic, c udpdrive.Cost) {
	if m.start.IsZero() {
		m.start, m.last, m.lastCost = now, t, c
	}
	if d := now.Sub(m.start); d >= meterWindow || !m.full && d > 0 {
		w := t.Sub(m.last)
		m.up, m.down = w.UpKbps(d), w.DownKbps(d)
		m.cpu = ms(c.Sub(m.lastCost).Mean())
		if d >= meterWindow {
			m.start, m.last, m.lastCost, m.full = now, t, c, true
		}
	}
}

// figures appends the rates, names prefixed by who; cpu only if cost.
func (m *meter) figures(dst []viewer.Figure, who string, cost bool) []viewer.Figure {
	dst = append(dst,
		viewer.Figure{Name: who + "up", Value: m.up, Unit: "kbps"},
		viewer.Figure{Name: who + "down", Value: m.down, Unit: "kbps"},
	)
	if cost {
		dst = append(dst, viewer.Figure{Name: who + "cpu", Value: m.cpu, Unit: "ms"})
	}
	return dst
}

// dropLines appends a line about what a driver dropped, if anything:
// payloads that arrived while the model's goroutine was too far behind,
// datagrams the connection refused to send.
func dropLines(dst []Line, d interface{ Dropped() (inbox, send uint64) }) []Line {
	inbox, send := d.Dropped()
	if inbox == 0 && send == 0 {
		return dst
	}
	return append(dst, Line{"driver drops", fmt.Sprintf("%d payloads while the model was behind, %d datagrams not sent", inbox, send)})
}

// refusalLines appends a line counting the clients the server refused or
// sent away, by reason, since it started.
func refusalLines(dst []Line, r []udpdrive.Refusal) []Line {
	if len(r) == 0 {
		return dst
	}
	parts := make([]string, len(r))
	for i, x := range r {
		parts[i] = fmt.Sprintf("%s %d", x.Reason, x.Count)
	}
	return append(dst, Line{"refused", strings.Join(parts, ", ") + " (clients refused or sent away since serve started)"})
}

// costLine is the summary line of a side's Step cost.
func costLine(c udpdrive.Cost) Line {
	return Line{"cpu", fmt.Sprintf("%.3f ms mean per frame, %.1f ms max (model and sends, wall clock)", ms(c.Mean()), ms(c.Max))}
}

// prefixed appends src to dst with every name prefixed by who.
func prefixed(dst []viewer.Figure, who string, src []viewer.Figure) []viewer.Figure {
	for _, f := range src {
		f.Name = who + f.Name
		dst = append(dst, f)
	}
	return dst
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Round formats v for a person: three significant digits at most, no
// exponent, no trailing zeros ("29.4", "0.0361", "1543", "0").
func Round(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', -1, 64)
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	if g := strconv.FormatFloat(v, 'g', 3, 64); !strings.ContainsAny(g, "e") {
		return g
	}
	// Below 0.001: four decimals at most, "0" for less.
	s := strconv.FormatFloat(v, 'f', 4, 64)
	if s = strings.TrimRight(strings.TrimRight(s, "0"), "."); s == "-0" {
		s = "0"
	}
	return s
}

// FigureText is a figure's value as a person reads it: rounded, with its
// unit ("29.4 kbps", "3 %", "0.5 /s"), or its text.
func FigureText(f viewer.Figure) string {
	if f.Text != "" {
		return f.Text
	}
	if f.Unit == "" {
		return Round(f.Value)
	}
	return Round(f.Value) + " " + f.Unit
}

// logKey is a figure's name as a log key: "input delay" → "input_delay".
func logKey(name string) string { return strings.ReplaceAll(strings.TrimSpace(name), " ", "_") }

// figureAttrs turns figures into slog attributes: rounded values with
// their units, names with underscores.
func figureAttrs(figs []viewer.Figure) []any {
	attrs := make([]any, 0, len(figs))
	for _, f := range figs {
		attrs = append(attrs, slog.String(logKey(f.Name), FigureText(f)))
	}
	return attrs
}

// spread is the range of one figure over the players.
type spread struct {
	n        int
	min, max float64
}

func (s *spread) add(v float64) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
}

// text is "28.4 kbps" if every player's is the same when rounded, else
// "27.1–29 kbps".
func (s spread) text(unit string) string {
	lo, hi := Round(s.min), Round(s.max)
	v := lo
	if lo != hi {
		v = lo + "–" + hi
	}
	if unit == "" {
		return v
	}
	return v + " " + unit
}

// playerPrefix is the prefix of a player's figures on the page, "p3 " for
// slot 2: players are numbered from 1, slot+1.
func playerPrefix(slot int) string { return fmt.Sprintf("p%d ", slot+1) }

// Agreer is a side that can say, in a line, how far its world agreed with
// the authority's: lockstep's checksums, predict's mispredictions and
// corrections and the hits the server confirmed, statesync's convergence
// with the host (bit for bit, and from when). Play, Serve and Demo print
// it first in the side's summary, named "agreement"; a side without it
// prints none.
type Agreer interface {
	Agreement(now time.Time) string
}

// withAgreement puts side's agreement line, if it has one, before lines.
func withAgreement(side any, now time.Time, lines []Line) []Line {
	a, ok := side.(Agreer)
	if !ok {
		return lines
	}
	v := a.Agreement(now)
	if v == "" {
		return lines
	}
	return append([]Line{{"agreement", v}}, lines...)
}
