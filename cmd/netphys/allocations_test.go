package main

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/syncbuf"
	"github.com/netphys/netphys/transport/agones"
	"github.com/netphys/netphys/transport/tokenservice"
)

// TestAllocationsWaitForTheirRooms drives the allocated matches' book in
// virtual time: a match waits from its allocation until the rooms'
// figures count its room, or until its wait runs out if it never opens;
// an allocation shown again, or of a match whose players came first, is
// no new one; ids are forgotten after the recall.
func TestAllocationsWaitForTheirRooms(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	a := newAllocations(2 * time.Second)
	want := func(when string, ids ...string) {
		t.Helper()
		if got := a.ids(); !slices.Equal(got, ids) {
			t.Errorf("%s: waiting %v, want %v", when, got, ids)
		}
	}
	if !a.allocate(at(0), "B") || a.allocate(at(0), "B") || a.allocate(at(0), "") {
		t.Error("B allocated: new once, and an empty annotation names no match")
	}
	a.opened(at(100*time.Millisecond), "A") // the rooms' first match
	if a.allocate(at(200*time.Millisecond), "A") {
		t.Error("A's players came before the watch showed its allocation: A must not wait")
	}
	want("allocated", "B")
	if e := a.settle(at(time.Second), 1); len(e) != 0 {
		t.Errorf("expired %v within the wait", e)
	}
	a.opened(at(1500*time.Millisecond), "B") // the second room opened
	if e := a.settle(at(3*time.Second), 1); len(e) != 0 {
		t.Errorf("B opened but expired %v: an open room never expires", e)
	}
	want("B open, the figures a second old", "B")
	a.settle(at(3*time.Second), 2)
	want("the figures count B")

	if !a.allocate(at(3*time.Second), "C") {
		t.Fatal("C is a new allocation")
	}
	if e := a.settle(at(4900*time.Millisecond), 2); len(e) != 0 {
		t.Errorf("expired %v before the wait ran out", e)
	}
	e := a.settle(at(5*time.Second), 2)
	if len(e) != 1 || e[0].id != "C" || !e[0].at.Equal(at(3*time.Second)) {
		t.Errorf("expired %v, want C allocated at 3 s", e)
	}
	want("C expired")

	a.settle(at(recallAtLeast+2*time.Second), 2) // B seen at 1.5 s, C at 3 s
	if a.allocate(at(recallAtLeast+2*time.Second), "C") {
		t.Error("C allocated again within the recall")
	}
	if !a.allocate(at(recallAtLeast+2*time.Second), "B") {
		t.Error("B is remembered past the recall")
	}
	if ids := a.drop(); !slices.Equal(ids, []string{"B"}) || len(a.waiting) != 0 {
		t.Errorf("dropped %v, left %v", ids, a.ids())
	}
}

// TestAgonesObserveWaitsForNewAllocationsOnly: with --rooms, the watch's
// allocations that name a new match make it wait for its room; serve's
// own allocation (a player came without one) does not, even with an
// earlier match's annotation left on the GameServer, nor does turning
// Allocated again with that old annotation, nor an allocation while the
// server drains.
func TestAgonesObserveWaitsForNewAllocationsOnly(t *testing.T) {
	var log syncbuf.Buffer
	a := &agonesSide{lc: &lifecycle{f: &lifecycleFlags{allocWait: time.Second}, log: slog.New(slog.NewTextHandler(&log, nil))},
		alloc: newAllocations(time.Second)}
	gs := func(state, match string) agones.GameServer {
		var g agones.GameServer
		g.ObjectMeta.Name = "gs-1"
		g.ObjectMeta.Annotations = map[string]string{tokenservice.MatchAnnotation: match}
		g.Status.State = state
		return g
	}
	step := func(g agones.GameServer, waiting ...string) {
		t.Helper()
		a.observe(t.Context(), g)
		if got := a.alloc.ids(); !slices.Equal(got, waiting) {
			t.Errorf("after %s %q: waiting %v, want %v", g.Status.State, g.ObjectMeta.Annotations[tokenservice.MatchAnnotation], got, waiting)
		}
	}
	step(gs(agones.StateReady, ""))
	step(gs(agones.StateAllocated, "m-1"), "m-1")
	step(gs(agones.StateAllocated, "m-2"), "m-1", "m-2")
	step(gs(agones.StateAllocated, "m-2"), "m-1", "m-2") // a List changed
	a.alloc.drop()
	step(gs(agones.StateReady, "m-2")) // --agones-after-match ready
	a.selfAllocated = true             // players came with tokens minted by hand
	step(gs(agones.StateAllocated, "m-2"))
	step(gs(agones.StateReady, "m-2"))
	step(gs(agones.StateAllocated, "m-2")) // an allocation that set no annotation
	step(gs(agones.StateReady, "m-2"))
	step(gs(agones.StateAllocated, "m-3"), "m-3")
	a.lc.draining.Store(true) // SIGTERM: no new match opens
	step(gs(agones.StateAllocated, "m-4"), "m-3")
	if !strings.Contains(log.String(), `msg="agones: allocated while draining: the match is not taken, its players are refused" match_id=m-4`) {
		t.Errorf("no warning of the allocation while draining:\n%s", log.String())
	}
	if n := strings.Count(log.String(), `msg="agones: the allocated match waits for its players; it counts as a match until its room opens"`); n != 3 {
		t.Errorf("logged %d waits, want 3:\n%s", n, log.String())
	}
}
