package agones_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/agones"
	"github.com/netphys/netphys/transport/agones/agonestest"
)

// gateway is an SDK server a test drives: the fake, or the real
// sdk-server (real_test.go, build tag agonesreal).
type gateway interface {
	URL() string
	Allocate(labels, annotations map[string]string) error
	State() string
	Healths() int
}

func TestClientAgainstFake(t *testing.T) {
	f := agonestest.New(4, map[string]string{"netphys.dev/model": "echo"})
	defer f.Close()
	exerciseClient(t, f)
	if h := f.History(); !slices.Equal(h, []string{"Scheduled", "Ready", "Allocated", "Shutdown"}) {
		t.Errorf("states went %v", h)
	}
}

// exerciseClient is the lifecycle a game server goes through, checked
// call by call: the same assertions hold for the fake and the real server.
func exerciseClient(t *testing.T, g gateway) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := agones.New(g.URL())

	gs, err := c.GameServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gs.Status.State != agones.StateScheduled || gs.ObjectMeta.Labels["netphys.dev/model"] != "echo" {
		t.Fatalf("first GameServer: state %q labels %v", gs.Status.State, gs.ObjectMeta.Labels)
	}
	if l := gs.Status.Lists["players"]; l.Capacity != 4 {
		t.Fatalf("List players has capacity %d, want 4 (int64 read from a JSON string)", l.Capacity)
	}

	// The watch reports the state now, then every change.
	events := make(chan agones.GameServer, 32)
	watchDone := make(chan error, 1)
	go func() { watchDone <- c.Watch(ctx, func(gs agones.GameServer) { events <- gs }) }()
	waitState(t, events, agones.StateScheduled)

	if err := c.Health(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	waitState(t, events, agones.StateReady)
	if err := c.SetLabel(ctx, "phase", "waiting"); err != nil {
		t.Fatal(err)
	}
	if gs := waitFor(t, events, func(gs agones.GameServer) bool { return gs.ObjectMeta.Labels["agones.dev/sdk-phase"] == "waiting" }); gs.Status.State != agones.StateReady {
		t.Fatalf("after SetLabel: state %s", gs.Status.State)
	}

	if err := g.Allocate(map[string]string{"netphys.dev/pool": "eu"}, map[string]string{"netphys.dev/match": "m-17"}); err != nil {
		t.Fatal(err)
	}
	gs = waitState(t, events, agones.StateAllocated)
	if gs.ObjectMeta.Annotations["netphys.dev/match"] != "m-17" || gs.ObjectMeta.Labels["netphys.dev/pool"] != "eu" {
		t.Fatalf("allocated GameServer: labels %v annotations %v", gs.ObjectMeta.Labels, gs.ObjectMeta.Annotations)
	}

	// Lists: add two players, refuse a duplicate, remove one.
	for _, id := range []string{"11", "12"} {
		if _, err := c.AddListValue(ctx, "players", id); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.AddListValue(ctx, "players", "11")
	var se *agones.StatusError
	if !errors.As(err, &se) || se.HTTPStatus != 500 || se.Code != 2 || !errors.Is(err, agones.ErrStatus) {
		t.Fatalf("adding a value twice: %v, want HTTP 500 with gRPC code 2", err)
	}
	l, err := c.RemoveListValue(ctx, "players", "11")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Values, []string{"12"}) || l.Capacity != 4 {
		t.Fatalf("List after the removal: %+v", l)
	}
	if l, err = c.List(ctx, "players"); err != nil || !slices.Equal(l.Values, []string{"12"}) {
		t.Fatalf("List players: %+v %v", l, err)
	}
	if _, err := c.List(ctx, "nope"); !errors.Is(err, agones.ErrStatus) {
		t.Fatalf("a List that does not exist: %v", err)
	}
	// Player tracking is behind a feature gate both servers leave off.
	if _, err := c.PlayerConnect(ctx, "11"); !errors.Is(err, agones.ErrStatus) {
		t.Fatalf("player tracking without its feature gate: %v", err)
	}
	// Counters: set within capacity, read back, refused beyond it.
	if ct, err := c.SetCounter(ctx, "matches", 3); err != nil || ct.Count != 3 || ct.Capacity != 1000 {
		t.Fatalf("SetCounter matches 3: %+v %v", ct, err)
	}
	if ct, err := c.Counter(ctx, "matches"); err != nil || ct.Count != 3 {
		t.Fatalf("Counter matches: %+v %v", ct, err)
	}
	if _, err := c.SetCounter(ctx, "matches", 1001); !errors.Is(err, agones.ErrStatus) {
		t.Fatalf("a Counter beyond its capacity: %v", err)
	}

	before := g.Healths()
	hctx, hstop := context.WithCancel(ctx)
	hdone := make(chan struct{})
	go func() { c.HealthLoop(hctx, 10*time.Millisecond, func(err error) { t.Error(err) }); close(hdone) }()
	for g.Healths() < before+3 {
		select {
		case <-ctx.Done():
			t.Fatalf("health pings: %d before, %d now", before, g.Healths())
		case <-time.After(10 * time.Millisecond):
		}
	}
	hstop()
	<-hdone

	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	waitState(t, events, agones.StateShutdown)
	cancel()
	if err := <-watchDone; err != nil {
		t.Fatalf("watch ended with %v, want nil when its context ends", err)
	}
}

// exercisePlayerTracking: the alpha player tracking API, on a server
// with the PlayerTracking feature gate on.
func exercisePlayerTracking(t *testing.T, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := agones.New(url)
	if err := c.SetPlayerCapacity(ctx, 2); err != nil {
		t.Fatal(err)
	}
	for i, tt := range []struct {
		connect bool
		id      string
		want    bool
	}{{true, "a", true}, {true, "a", false}, {true, "b", true}, {false, "a", true}, {false, "a", false}} {
		var got bool
		var err error
		if tt.connect {
			got, err = c.PlayerConnect(ctx, tt.id)
		} else {
			got, err = c.PlayerDisconnect(ctx, tt.id)
		}
		if err != nil || got != tt.want {
			t.Fatalf("step %d (connect %v %s): %v %v, want %v", i, tt.connect, tt.id, got, err, tt.want)
		}
	}
	if n, err := c.PlayerCount(ctx); err != nil || n != 1 {
		t.Fatalf("PlayerCount: %d %v, want 1", n, err)
	}
	c.PlayerConnect(ctx, "c")
	if _, err := c.PlayerConnect(ctx, "d"); !errors.Is(err, agones.ErrStatus) {
		t.Fatalf("a third player over capacity 2: %v", err)
	}
}

func TestPlayerTrackingAgainstFake(t *testing.T) {
	f := agonestest.New(4, nil)
	f.PlayerTracking = true
	defer f.Close()
	exercisePlayerTracking(t, f.URL())
}

func waitState(t *testing.T, events <-chan agones.GameServer, state string) agones.GameServer {
	t.Helper()
	return waitFor(t, events, func(gs agones.GameServer) bool { return gs.Status.State == state })
}

func waitFor(t *testing.T, events <-chan agones.GameServer, ok func(agones.GameServer) bool) agones.GameServer {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case gs := <-events:
			if ok(gs) {
				return gs
			}
		case <-timeout:
			t.Fatal("the watch did not report the change within 10 s")
		}
	}
}
