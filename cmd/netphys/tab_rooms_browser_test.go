package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestTabJoinsARoom: `serve --rooms --webtransport --web` hosts, on its
// one UDP port and its WebTransport endpoint, a predict match that a tab
// joins (the page's token names no match: the --model match) while two
// native `play --bot` processes play a lockstep match their tokens name.
// The tab predicts, the native players' checksums agree, and none of the
// server's sends to the tab fails.
func TestTabJoinsARoom(t *testing.T) {
	heavyTest(t)
	const ticks = 240
	lockstep := []string{"--model", "lockstep", "--layout", "tower20", "--players", "2"}
	room := []string{"--match", "lock-1", "--match-model", "lockstep", "--match-layout", "tower20", "--match-players", "2"}
	r := tabGame(t, tabSetup{serve: []string{"--rooms"}, match: []string{"--model", "predict", "--players", "2"}, tabTicks: 600,
		natives: []tabNative{{token: room, ticks: ticks, flags: lockstep}, {token: room, ticks: ticks, flags: lockstep}}})
	if m := mispredictedLine.FindStringSubmatch(r.tab); m == nil || m[2] == "0" {
		t.Errorf("the tab's summary counts no predicted ticks:\n%s", r.tab)
	}
	a, b := checksumLine.FindStringSubmatch(r.natives[0]), checksumLine.FindStringSubmatch(r.natives[1])
	if a == nil || b == nil || a[1] != "240" || a[2] != b[2] {
		t.Errorf("the native players' checksums %q and %q: want both of tick %d, equal", a, b, ticks)
	}
	// The page's first token has client id 1<<48+1 (anyPage).
	for _, want := range []string{fmt.Sprintf("match (the default match) player 1 (client id %d)", uint64(1<<48+1)), "match lock-1 player 2"} {
		if !strings.Contains(r.serve, want) {
			t.Errorf("the server's summary lacks %q", want)
		}
	}
	checkCarrier(t, r.tab, r.serve)
}
