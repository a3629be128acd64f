package match

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/viewer"
)

func TestRound(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{29.419620221567694, "29.4"}, {0.036351, "0.0364"}, {1543.4, "1543"}, {301, "301"}, {0, "0"},
		{99.96, "100"}, {0.5, "0.5"}, {-2.345, "-2.35"}, {0.00001, "0"}, {12, "12"},
	} {
		if got := Round(c.v); got != c.want {
			t.Errorf("Round(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestFigureAttrsRoundAndName(t *testing.T) {
	attrs := figureAttrs([]viewer.Figure{{Name: "p1 up", Value: 29.419620221567694, Unit: "kbps"}, {Name: "tick", Value: 112}, {Name: "model", Text: "lockstep"}})
	var b strings.Builder
	for _, a := range attrs {
		b.WriteString(a.(interface{ String() string }).String() + " ")
	}
	if got, want := b.String(), "p1_up=29.4 kbps tick=112 model=lockstep "; got != want {
		t.Errorf("attrs %q, want %q", got, want)
	}
}

// TestPrintStatusIsShort: 64 players' figures fit one short line, as the
// range over the players; verbose, every player's follow its name.
func TestPrintStatusIsShort(t *testing.T) {
	figs := []viewer.Figure{{Name: "model", Text: "lockstep, 64 players"}, {Name: "session tick", Value: 165}, {Name: "server cpu", Value: 0.3612, Unit: "ms"}}
	for i := range 64 {
		figs = append(figs,
			viewer.Figure{Name: playerPrefix(i) + "up", Value: 28 + float64(i)/100, Unit: "kbps"},
			viewer.Figure{Name: playerPrefix(i) + "loss", Value: 0, Unit: "%"},
			viewer.Figure{Name: playerPrefix(i) + "rollbacks", Value: 0.5, Unit: "/s"})
	}
	var short, long strings.Builder
	printStatus(&short, 3*time.Second, figs, false)
	printStatus(&long, 3*time.Second, figs, true)
	if want := "   3.0s  session tick 165, server cpu 0.361 ms | 64 players: up 28–28.6 kbps, loss 0%, rollbacks 0.5/s\n"; short.String() != want {
		t.Errorf("short line\n%q, want\n%q", short.String(), want)
	}
	if !strings.Contains(long.String(), "| p64 up 28.6 kbps, loss 0%, rollbacks 0.5/s") || len(long.String()) < 64*30 {
		t.Errorf("verbose line lacks player 64's figures: %q", long.String())
	}
}

type agreeing string

func (a agreeing) Agreement(time.Time) string { return string(a) }

func TestAgreementComesFirst(t *testing.T) {
	lines := []Line{{"ticks", "240"}}
	got := withAgreement(agreeing("converged with the host bit for bit from tick 212"), time.Time{}, lines)
	if len(got) != 2 || got[0] != (Line{"agreement", "converged with the host bit for bit from tick 212"}) || got[1] != lines[0] {
		t.Errorf("lines %q", got)
	}
	if got := withAgreement(agreeing(""), time.Time{}, lines); len(got) != 1 {
		t.Errorf("an empty agreement printed: %q", got)
	}
	if got := withAgreement(struct{}{}, time.Time{}, lines); len(got) != 1 {
		t.Errorf("a side without Agreement printed one: %q", got)
	}
}

// TestSummaryColumns: a name longer than the column widens it for every
// line rather than pushing its own value out of line.
func TestSummaryColumns(t *testing.T) {
	var b strings.Builder
	Summary{Command: "serve", Model: "predict", Duration: 4 * time.Second, Sections: []Section{{Name: "server", Lines: []Line{
		{"ticks", "287"}, {"bodies out of the arena's spec", "0"},
	}}}}.Print(&b)
	want := "serve summary: model predict, 4s\n  server\n" +
		"    ticks                          287\n" +
		"    bodies out of the arena's spec 0\n"
	if b.String() != want {
		t.Errorf("summary\n%s\nwant\n%s", b.String(), want)
	}
}

func TestConnectionEndedSaysItOnce(t *testing.T) {
	for st, want := range map[netcode.ClientState]string{
		netcode.StateTimedOut:     "the server went silent",
		netcode.StateDisconnected: "the server closed the connection without giving a reason",
		netcode.StateDenied:       `netcode state "denied"`,
	} {
		got := connectionEnded(st)
		if !strings.Contains(got, want) || strings.Count(got, "disconnected") > 0 {
			t.Errorf("%v: %q, want %q said once", st, got, want)
		}
	}
	err := error(&endedError{msg: connectionEnded(netcode.StateDisconnected), err: udpdrive.ErrDisconnected})
	if !errors.Is(err, udpdrive.ErrDisconnected) {
		t.Error("the ended error does not wrap ErrDisconnected")
	}
}
