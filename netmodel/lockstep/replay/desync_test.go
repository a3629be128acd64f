package replay_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
)

// party records one party's view of a 200-tick match of two players:
// its game (bugAfter > 0 plants the gravity bug in marble 3) stepped
// with the bots' inputs, player flip's input of tick flipAt turned
// around (flipAt -1: none), and the state of tick keep written into the
// replay as on a desync (-1: none).
func party(t *testing.T, name string, bugAfter, flipAt lockstep.Tick, flip int, keep lockstep.Tick) *replay.Replay[push] {
	t.Helper()
	var buf bytes.Buffer
	h := testHeader(2)
	h.Party = name
	rec, err := replay.NewRecorder[push](&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	g := newMarbles()
	g.bugAfter = bugAfter
	w := rec.Wrap(g)
	for tick := range lockstep.Tick(200) {
		in := []push{bot(0, tick), bot(1, tick)}
		if tick == flipAt {
			in[flip].X = -in[flip].X
			if in[flip].X == 0 {
				in[flip].X = 1
			}
		}
		w.Step(in)
	}
	if keep >= 0 {
		if err := w.Desync(keep, "desync"); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := replay.Read[push](&buf)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestDesyncPlantedBug: party B's game falls faster in marble 3 from
// tick 50 on. Re-simulated with each party's own game, the report names
// tick 50 and marble 3: its position.y (integrated from the new
// velocity in the same tick, and first in field order).
func TestDesyncPlantedBug(t *testing.T) {
	a := party(t, "player 0", 0, -1, 0, -1)
	b := party(t, "player 1", 50, -1, 0, -1)
	r, err := replay.Diagnose(a, b, func(p int) (lockstep.Game[push], error) {
		g := newMarbles()
		if p == 1 {
			g.bugAfter = 50
		}
		return g, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + r.String())
	tick, d, at := r.First()
	if tick != 50 || at != 50 || d == nil || d.ObjectName != "marble 3" || d.Field != "position.y" {
		t.Fatalf("first difference at tick %d: %v (at %d), want tick 50, marble 3, position.y", tick, d, at)
	}
	if r.InputTick != -1 || r.SumTick != 50 || r.SimTick != 50 || r.Own != [2]lockstep.Tick{-1, -1} {
		t.Fatalf("inputs %d, sums %d, sim %d, own %v", r.InputTick, r.SumTick, r.SimTick, r.Own)
	}
	if !strings.Contains(r.String(), "re-simulation: A and B first differ after tick 50: marble 3 (object 3), position.y") {
		t.Fatalf("report:\n%s", r)
	}
}

// TestDesyncFromTheRecordingsAlone: the same bug, diagnosed as netphys
// desync does, with the correct game for both parties. Re-simulation
// cannot reproduce B's bug, but B's recorded checksums disagree with a
// re-simulation of its own inputs from tick 50, and the states both kept
// of tick 120 (the tick the server named) differ at marble 3.
func TestDesyncFromTheRecordingsAlone(t *testing.T) {
	a := party(t, "player 0", 0, -1, 0, 120)
	b := party(t, "player 1", 50, -1, 0, 120)
	r, err := replay.Diagnose(a, b, func(int) (lockstep.Game[push], error) { return newMarbles(), nil })
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + r.String())
	if r.Own != [2]lockstep.Tick{-1, 50} || r.SumTick != 50 || r.SimTick != -1 {
		t.Fatalf("own %v, sums %d, sim %d: want B alone diverging at 50", r.Own, r.SumTick, r.SimTick)
	}
	if r.States.Tick != 120 || r.States.Diff == nil || r.States.Diff.ObjectName != "marble 3" {
		t.Fatalf("kept states: %+v", r.States)
	}
	// B's kept state is the one the re-simulation does not reproduce.
	if r.OwnState[0].Tick != -1 || r.OwnState[1].Tick != 120 || r.OwnState[1].Diff.ObjectName != "marble 3" {
		t.Fatalf("kept states against the re-simulation: %+v", r.OwnState)
	}
	tick, d, at := r.First()
	if tick != 50 || d == nil || d.ObjectName != "marble 3" || at != 120 {
		t.Fatalf("verdict: tick %d, %v at %d", tick, d, at)
	}
	if !strings.Contains(r.String(), "B (player 1): its checksum of tick 50 differs from the re-simulation of its own inputs") {
		t.Fatalf("report:\n%s", r)
	}
}

// TestDesyncFlippedInput: B recorded player 1's input of tick 70 turned
// around (a bad relay, a forged input). The report names the input and
// the marble it pushes, in x.
func TestDesyncFlippedInput(t *testing.T) {
	a := party(t, "server", 0, -1, 0, -1)
	b := party(t, "player 0", 0, 70, 1, -1)
	r, err := replay.Diagnose(a, b, func(int) (lockstep.Game[push], error) { return newMarbles(), nil })
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + r.String())
	if r.InputTick != 70 || r.InputPlayer != 1 {
		t.Fatalf("inputs differ first at tick %d player %d, want 70 and 1", r.InputTick, r.InputPlayer)
	}
	tick, d, _ := r.First()
	if tick != 70 || d == nil || d.ObjectName != "marble 1" || d.Field != "position.x" {
		t.Fatalf("first difference at tick %d: %v, want tick 70, marble 1, position.x", tick, d)
	}
}

// TestNoDesync: two parties of one honest match: nothing differs.
func TestNoDesync(t *testing.T) {
	a := party(t, "player 0", 0, -1, 0, 120)
	b := party(t, "player 1", 0, -1, 0, 120)
	r, err := replay.Diagnose(a, b, func(int) (lockstep.Game[push], error) { return newMarbles(), nil })
	if err != nil {
		t.Fatal(err)
	}
	if tick, d, _ := r.First(); tick != -1 || d != nil || r.Simulated != 200 || !strings.Contains(r.String(), "verdict: no difference found") {
		t.Fatalf("an honest match: first difference at %d (%v), %d ticks simulated\n%s", tick, d, r.Simulated, r)
	}
	other := party(t, "x", 0, -1, 0, -1)
	other.Header.Players = 3
	if _, err := replay.Diagnose(a, other, nil); err == nil || !strings.Contains(err.Error(), "2 players against 3") {
		t.Fatalf("replays of other matches: %v", err)
	}
}
