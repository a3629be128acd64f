package agones_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/agones"
	"github.com/netphys/netphys/transport/agones/agonestest"
)

// TestFakeAllocateCounted: the fake plays a rooms fleet's allocation
// (tokenservice.Allocator.Counter): Ready to Allocated with the Counter
// at 1, again while Allocated (the Counter at 2, the new annotation,
// one watch event, no new state), and a refusal when the Counter is full,
// when it is missing and after Shutdown.
func TestFakeAllocateCounted(t *testing.T) {
	f := agonestest.New(4, nil)
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := agones.New(f.URL())
	if err := f.AllocateCounted("matches", nil, nil); err == nil {
		t.Error("a Scheduled server was allocated")
	}
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	events := make(chan agones.GameServer, 32)
	go c.Watch(ctx, func(gs agones.GameServer) { events <- gs })
	<-events // the state now
	allocate := func(match string) agones.GameServer {
		t.Helper()
		if err := f.AllocateCounted("matches", map[string]string{"k": "v"}, map[string]string{"netphys.dev/match": match}); err != nil {
			t.Fatal(err)
		}
		select {
		case gs := <-events:
			return gs
		case <-ctx.Done():
			t.Fatal("no watch event for the allocation")
		}
		return agones.GameServer{}
	}
	for i, match := range []string{"m-1", "m-2"} {
		gs := allocate(match)
		if gs.Status.State != agones.StateAllocated || gs.Status.Counters["matches"].Count != agones.Int64(i+1) ||
			gs.ObjectMeta.Annotations["netphys.dev/match"] != match || gs.ObjectMeta.Labels["k"] != "v" {
			t.Errorf("allocation %d: state %s, counters %v, annotations %v, labels %v", i+1, gs.Status.State, gs.Status.Counters, gs.ObjectMeta.Annotations, gs.ObjectMeta.Labels)
		}
	}
	if _, err := c.SetCounter(ctx, "matches", 1000); err != nil {
		t.Fatal(err)
	}
	if err := f.AllocateCounted("matches", nil, nil); err == nil {
		t.Error("a server with its Counter full was allocated")
	}
	if err := f.AllocateCounted("rooms", nil, nil); err == nil {
		t.Error("a server without the Counter was allocated")
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.AllocateCounted("matches", nil, nil); err == nil {
		t.Error("a server shut down was allocated")
	}
	if h := f.History(); !slices.Equal(h, []string{"Scheduled", "Ready", "Allocated", "Shutdown"}) {
		t.Errorf("states went %v", h)
	}
}
