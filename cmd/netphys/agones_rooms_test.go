package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/agones"
)

// TestServeRoomsAgonesCountsMatches: `serve --rooms --agones` against
// the fake SDK server, two lockstep matches of two bots at once, a long
// one and a short one. The Counter "matches" counts them (2 while both
// run); when the short one ends the count drops to 1 and the GameServer
// stays Allocated; when the long one, the last, ends the count is 0 and
// the server Shuts down and exits 0. The List "players" is per process,
// as without rooms.
func TestServeRoomsAgonesCountsMatches(t *testing.T) {
	processTest(t)
	againstFake(t, agonesRoomsScenario, "Scheduled", "Ready", "Allocated", "Shutdown")
}

// agonesRoomsScenario is TestServeRoomsAgonesCountsMatches against gw;
// it reads the GameServer through the SDK's gateway, as serve does.
func agonesRoomsScenario(t *testing.T, addr string, gw sdkGateway) {
	p := newProcs(t, 2*time.Minute)
	p.addr = addr
	sdk := agones.New(gw.URL())
	serve, serveBuf := p.serve([]string{"NETPHYS_LOG=info"}, "--rooms", "--agones", "--agones-sdk", gw.URL(), "--agones-health", "100ms")
	var gs agones.GameServer
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		gs = waitGameServer(t, p.ctx, sdk, what, serveBuf, func(g agones.GameServer) bool { gs = g; return cond() })
	}
	count := func() int64 { return int64(gs.Status.Counters["matches"].Count) }
	waitFor("Ready", func() bool { return gs.Status.State == agones.StateReady })
	play := func(id int, match string, ticks int) proc {
		t.Helper()
		tok := p.token(id, "--match", match, "--match-model", "lockstep", "--match-layout", "tower20", "--match-players", "2")
		return p.run(nil, botArgs(tok, ticks, "--model", "lockstep", "--layout", "tower20", "--players", "2")...)
	}
	long := []proc{play(1, "long", 900), play(2, "long", 900)}
	short := []proc{play(3, "short", 120), play(4, "short", 120)}
	waitFor("two matches counted", func() bool { return count() == 2 })
	if v := gs.Status.Lists["players"].Values; len(v) == 0 {
		t.Errorf("no player in the List players while two matches run")
	}
	wait := func(ps []proc, what string) {
		t.Helper()
		for i, pl := range ps {
			if err := pl.cmd.Wait(); err != nil {
				t.Fatalf("player %d of the %s match: %v\n%s", i, what, err, pl.out)
			}
		}
	}
	wait(short, "short")
	waitFor("one match counted after the short one", func() bool { return count() == 1 })
	if s := gs.Status.State; s != agones.StateAllocated {
		t.Fatalf("with the long match still running the GameServer is %s, want Allocated", s)
	}
	wait(long, "long")
	if err := serve.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, serveBuf)
	}
	for _, want := range []string{`msg="agones: matches counted" counter=matches count=2 running=2 waiting=0`, `msg="agones: matches counted" counter=matches count=0 running=0 waiting=0`,
		`msg="lifecycle: match over: the last running match ended" matches_ended=2`, `msg="agones: shutdown: exiting"`} {
		if !strings.Contains(serveBuf.String(), want) {
			t.Errorf("serve's output lacks %s:\n%s", want, serveBuf)
		}
	}
	if n := strings.Count(serveBuf.String(), `msg="agones: player joined"`); n != 4 {
		t.Errorf("%d players joined, want 4", n)
	}
}

// waitGameServer waits until cond holds of the GameServer, read through
// sdk every 50 ms, and returns it; serve's output goes with a failure.
func waitGameServer(t *testing.T, ctx context.Context, sdk *agones.Client, what string, serveOut fmt.Stringer, cond func(agones.GameServer) bool) agones.GameServer {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		gs, err := sdk.GameServer(ctx)
		if err == nil && cond(gs) {
			return gs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within a minute (%v); GameServer %s, counters %v; serve's output:\n%s", what, err, gs.Status.State, gs.Status.Counters, serveOut)
		}
	}
}

// waitOutput waits until out holds s n times (a process's log).
func waitOutput(t *testing.T, out fmt.Stringer, s string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Count(out.String(), s) >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the output did not hold %q %d times within 20 s:\n%s", s, n, out)
}
