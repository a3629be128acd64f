package main

import (
	"context"
	"io"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/agones"
	"github.com/netphys/netphys/transport/agones/agonestest"
	"github.com/netphys/netphys/transport/tokenservice"
)

// countedGateway is an SDK server whose GameServer a rooms fleet's
// allocation (tokenservice.Allocator.Counter) can take again while it is
// Allocated, one more in its Counter.
type countedGateway interface {
	sdkGateway
	AllocateCounted(counter string, labels, annotations map[string]string) error
}

// TestServeRoomsAgonesWaitsForAllocatedMatch: `serve --rooms --agones`
// runs match a; the fleet allocates it match b too (the Counter at 2);
// a ends before b's players come. The server stays Allocated with the
// Counter at 1 (b counted while it waits), b's two `play --bot`
// processes then play their match to its end, and only then the server
// goes Shutdown and exits 0.
func TestServeRoomsAgonesWaitsForAllocatedMatch(t *testing.T) {
	processTest(t)
	f := agonestest.New(4, testFleet)
	defer f.Close()
	addr := freeUDPAddr(t)
	f.SetAddress(netip.MustParseAddrPort(addr))
	agonesRoomsWaitScenario(t, addr, f)
	if h := f.History(); !slices.Equal(h, []string{"Scheduled", "Ready", "Allocated", "Shutdown"}) {
		t.Errorf("GameServer states: %v", h)
	}
}

// agonesRoomsWaitScenario is TestServeRoomsAgonesWaitsForAllocatedMatch
// against gw. serve's allocation wait is its default (30 s): b's players
// come well within it, and the test does not wait for it to run out.
func agonesRoomsWaitScenario(t *testing.T, addr string, gw countedGateway) {
	p := newProcs(t, 2*time.Minute)
	p.addr = addr
	sdk := agones.New(gw.URL())
	serve, serveBuf := p.serve([]string{"NETPHYS_LOG=info"}, "--rooms", "--agones", "--agones-sdk", gw.URL(), "--agones-health", "100ms")
	waitGameServer(t, p.ctx, sdk, "Ready", serveBuf, func(gs agones.GameServer) bool { return gs.Status.State == agones.StateReady })
	allocate := func(match string) {
		t.Helper()
		if err := gw.AllocateCounted("matches", nil, map[string]string{tokenservice.MatchAnnotation: match}); err != nil {
			t.Fatalf("allocating match %s: %v", match, err)
		}
		waitOutput(t, serveBuf, `msg="agones: the allocated match waits for its players; it counts as a match until its room opens" match_id=`+match, 1)
	}
	play := func(id int, match string, ticks int) proc {
		t.Helper()
		tok := p.token(id, "--match", match, "--match-model", "lockstep", "--match-layout", "tower20", "--match-players", "2")
		return p.run(nil, botArgs(tok, ticks, "--model", "lockstep", "--layout", "tower20", "--players", "2")...)
	}
	wait := func(ps []proc, what string) {
		t.Helper()
		for i, pl := range ps {
			if err := pl.cmd.Wait(); err != nil {
				t.Fatalf("player %d of match %s: %v\n%s", i+1, what, err, pl.out)
			}
		}
	}
	allocate("a")
	a := []proc{play(1, "a", 180), play(2, "a", 180)}
	waitOutput(t, serveBuf, `msg="rooms: match opened" match=a`, 1)
	allocate("b")
	wait(a, "a")
	waitOutput(t, serveBuf, `msg="lifecycle: the last running match ended; matches allocated to this server wait for their players, so the server stays" waiting=[b] matches_ended=1`, 1)
	gs, err := sdk.GameServer(p.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c := gs.Status.Counters["matches"].Count; gs.Status.State != agones.StateAllocated || c != 1 {
		t.Fatalf("a over, b allocated and waiting: the GameServer is %s with the Counter at %d, want Allocated and 1\n%s", gs.Status.State, c, serveBuf)
	}
	b := []proc{play(3, "b", 120), play(4, "b", 120)}
	wait(b, "b")
	if err := serve.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, serveBuf)
	}
	out := serveBuf.String()
	for _, want := range []string{
		`msg="agones: matches counted" counter=matches count=2 `,
		`msg="agones: matches counted" counter=matches count=1 running=0 waiting=1`,
		`msg="agones: matches counted" counter=matches count=0 running=0 waiting=0`,
		`msg="lifecycle: match over: the last running match ended" matches_ended=2`, `msg="agones: shutdown: exiting"`} {
		if !strings.Contains(out, want) {
			t.Errorf("serve's output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "never came") {
		t.Errorf("a match's players were said never to have come:\n%s", out)
	}
	if i, j := strings.Index(out, `msg="rooms: match opened" match=b`), strings.Index(out, `msg="agones: shutdown: exiting"`); i < 0 || j < i {
		t.Errorf("serve shut down before b opened:\n%s", out)
	}
}

// TestServeRoomsAgonesAllocatedMatchNeverJoined: a match allocated to
// `serve --rooms --agones --agones-allocation-wait 2s` whose players never
// come is counted for the wait, then logged as such, no longer counted,
// and the server, with nothing else to run, goes Shutdown and exits 0.
func TestServeRoomsAgonesAllocatedMatchNeverJoined(t *testing.T) {
	processTest(t)
	f := agonestest.New(4, testFleet)
	defer f.Close()
	addr := freeUDPAddr(t)
	f.SetAddress(netip.MustParseAddrPort(addr))
	p := newProcs(t, time.Minute)
	p.addr = addr
	sdk := agones.New(f.URL())
	serve, serveBuf := p.serve([]string{"NETPHYS_LOG=info"}, "--rooms", "--agones", "--agones-sdk", f.URL(), "--agones-health", "100ms",
		"--agones-allocation-wait", "2s")
	waitGameServer(t, p.ctx, sdk, "Ready", serveBuf, func(gs agones.GameServer) bool { return gs.Status.State == agones.StateReady })
	allocated := time.Now()
	if err := f.AllocateCounted("matches", nil, map[string]string{tokenservice.MatchAnnotation: "lost"}); err != nil {
		t.Fatal(err)
	}
	if err := serve.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, serveBuf)
	}
	if d := time.Since(allocated); d < 2*time.Second {
		t.Errorf("serve ended %v after the allocation, before its 2 s wait ran out", d)
	}
	out := serveBuf.String()
	for _, want := range []string{
		`msg="agones: the allocated match waits for its players; it counts as a match until its room opens" match_id=lost allocation_wait=2s`,
		`msg="agones: matches counted" counter=matches count=1 running=0 waiting=1`,
		`msg="agones: an allocated match's players never came: it is no longer counted" match_id=lost`,
		`allocation_wait=2s next="no match runs or waits: the match is over (--agones-after-match shutdown)"`,
		`msg="agones: matches counted" counter=matches count=0 running=0 waiting=0`,
		`msg="lifecycle: match over: the last running match ended" matches_ended=0`, `msg="agones: shutdown: exiting"`} {
		if !strings.Contains(out, want) {
			t.Errorf("serve's output lacks %s:\n%s", want, out)
		}
	}
	if h := f.History(); !slices.Equal(h, []string{"Scheduled", "Ready", "Allocated", "Shutdown"}) {
		t.Errorf("GameServer states: %v", h)
	}
	if c := f.GameServer().Status.Counters["matches"].Count; c != 0 {
		t.Errorf("the Counter is %d after the allocated match expired, want 0", c)
	}
}

// TestServeRoomsAgonesInProcess runs serve --rooms --agones and a player
// through run, in this process, so that the race detector sees the rooms
// telling the lifecycle of a room opened (RoomsConfig.Opened) while it
// counts an allocated match: the fleet allocates m-1, its one lockstep bot plays,
// and serve goes Shutdown and returns nil by itself, the Counter at 0.
func TestServeRoomsAgonesInProcess(t *testing.T) {
	key := strings.Repeat("3d", 32)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, addr, served := serveAgonesInProcess(ctx, t, key, "--rooms", "--agones-allocation-wait", "20s")
	if err := f.AllocateCounted("matches", nil, map[string]string{tokenservice.MatchAnnotation: "m-1"}); err != nil {
		t.Fatal(err)
	}
	tok := filepath.Join(t.TempDir(), "p.token")
	if err := run(ctx, []string{"token", "--key", key, "--servers", addr, "--client-id", "78", "--match", "m-1",
		"--match-model", "lockstep", "--match-players", "1", "--match-layout", "tower20", "--out", tok}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, botArgs(tok, 60, "--model", "lockstep", "--layout", "tower20", "--players", "1"), io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if h := f.History(); !slices.Equal(h, []string{"Scheduled", "Ready", "Allocated", "Shutdown"}) {
		t.Errorf("GameServer states: %v", h)
	}
	if c := f.GameServer().Status.Counters["matches"].Count; c != 0 {
		t.Errorf("the Counter is %d after the match, want 0", c)
	}
}
