package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestServeOutlivesHostilePlayers is issue 21's separate-process check:
// one `serve --model lockstep` on loopback hosts, one after another,
//
//  1. three honest bots and a player that reports a false checksum of
//     tick 120 (NETPHYS_TEST_LIE_AT), while a player set up for another
//     layout and one set up for 2 players knock: the liar is dropped and
//     told why, the two misconfigured ones are refused with the
//     difference named, the honest three finish with equal checksums;
//  2. four players, one of which is killed with SIGKILL: the others go on
//     without it, and a fresh token knocking meanwhile is refused with a
//     message saying the match is running;
//  3. four new players, the killed one's client id among them.
//
// serve never exits until it is interrupted.
func TestServeOutlivesHostilePlayers(t *testing.T) {
	processTest(t)
	p := newProcs(t, 2*time.Minute)
	match := []string{"--model", "lockstep", "--layout", "tower20", "--players", "4"}
	metricsAddr := freeTCPAddr(t)

	serve, serveBuf := p.serve(nil, append([]string{"--metrics", metricsAddr}, match...)...)
	// play starts a bot of ticks with client id id, the match flags
	// changed by extra, and env.
	play := func(id, ticks int, env []string, extra ...string) proc {
		return p.run(env, append(botArgs(p.token(id), ticks, match...), extra...)...)
	}

	// 1. A liar and two misconfigured players.
	const ticks = 240
	var honest []proc
	for id := 1; id <= 3; id++ {
		honest = append(honest, play(id, ticks, nil))
	}
	liar := play(4, ticks, []string{"NETPHYS_TEST_LIE_AT=120"})
	time.Sleep(2 * time.Second)
	layout := play(5, ticks, nil, "--layout", "pyramid10")
	players := play(6, ticks, nil, "--players", "2")
	out := layout.wait(t, "the other layout's player", false)
	if !strings.Contains(out, "server runs lockstep (pure lockstep, datagrams) on tower20 for 4 players; you asked for lockstep (pure lockstep, datagrams) on pyramid10 for 4 players") {
		t.Errorf("the other layout's player does not print the difference")
	}
	out = players.wait(t, "the 2-player player", false)
	if !strings.Contains(out, "on tower20 for 4 players; you asked for lockstep (pure lockstep, datagrams) on tower20 for 2 players") {
		t.Errorf("the 2-player player does not print the difference")
	}
	out = liar.wait(t, "the liar", false)
	if !strings.Contains(out, "your state differs from the server's at tick 120") {
		t.Errorf("the liar does not print why it was dropped")
	}
	var outs []string
	for i, p := range honest {
		outs = append(outs, p.wait(t, fmt.Sprintf("honest player %d", i+1), true))
	}
	sameChecksum(t, ticks, outs)
	serveRunning(t, serve, serveBuf, "after the first match")

	// 2. A player killed mid-match; a fresh token knocks meanwhile. The
	// match is long enough (6 s of ticks, and the 2 s the others wait for
	// the dead player) that the knock comes while it runs.
	const longer = 360
	honest = honest[:0]
	for id := 7; id <= 9; id++ {
		honest = append(honest, play(id, longer, nil))
	}
	victim := play(10, longer, nil)
	time.Sleep(2500 * time.Millisecond)
	victim.kill(t)
	// The server drops it 2 s after its inputs stop (MaxLag) and frees
	// its slot a second later.
	time.Sleep(3500 * time.Millisecond)
	late := play(10, longer, nil)
	out = late.wait(t, "the late joiner", false)
	if !strings.Contains(out, "is running (lockstep has no late join): try again when it is over") {
		t.Errorf("the late joiner does not print why it was refused")
	}
	outs = outs[:0]
	for i, p := range honest {
		outs = append(outs, p.wait(t, fmt.Sprintf("survivor %d", i+1), true))
	}
	sameChecksum(t, longer, outs)
	serveRunning(t, serve, serveBuf, "after the second match")

	// 3. The next match takes the killed player's id again.
	const short = 120
	var next []proc
	for _, id := range []int{10, 11, 12, 13} {
		next = append(next, play(id, short, nil))
	}
	outs = outs[:0]
	for i, p := range next {
		outs = append(outs, p.wait(t, fmt.Sprintf("third match, player %d", i+1), true))
	}
	sameChecksum(t, short, outs)

	serveRunning(t, serve, serveBuf, "after the third match")
	body := metricsPage(t, metricsAddr)
	for _, want := range []string{`netphys_match_refused_total{reason="config_mismatch"} 2`, `netphys_match_refused_total{reason="dropped_desync"} 1`,
		`netphys_match_refused_total{reason="dropped_lag"} 1`, `netphys_match_refused_total{reason="join_refused"} 1`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	got := stopServe(t, serve, serveBuf)
	for _, want := range []string{"desync 1", "lag 1", "config_mismatch 2", "dropped_desync 1", "dropped_lag 1", "join_refused 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("the server's summaries lack %q", want)
		}
	}
	if n := strings.Count(got, "serve summary"); n < 3 {
		t.Errorf("%d match summaries, want 3", n)
	}
}
