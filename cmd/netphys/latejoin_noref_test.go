package main

import (
	"regexp"
	"strings"
	"testing"
)

// refusal is the server's reason for refusing a late joiner, as play prints it.
var refusal = regexp.MustCompile(`the session of \d+ players is running and [^\n]*`)

// TestLockstepLateJoinWithoutRefereeBetweenProcesses: serve --late-join
// --referee=false and 4 bots on tower20 playing 900 ticks; player 4's
// process is killed 2.5 s in and comes back 6.5 s in as a new process
// with a fresh token for the same client id: its seat was held for it,
// and it is seated from player state (the server has no world), checked
// against the checksum all players agreed on. A spectator (play
// --spectate) joins 4 s in, seated the same way from a player's state,
// and a stranger who asked to play is refused with the reason (seat 4 is
// taken or held for its player), never made a spectator. Every process
// that plays or watches prints the same checksum of tick 900, and the
// server counts the states asked of players and none failed.
func TestLockstepLateJoinWithoutRefereeBetweenProcesses(t *testing.T) {
	processTest(t)
	const ticks = 900
	var stranger proc
	out := killAndRejoin(t, ticks, []string{"--referee=false"}, func(play func(id int, extra ...string) proc) []proc {
		spectator := play(6, "--spectate")
		stranger = play(5)
		return []proc{spectator}
	})
	if err := stranger.cmd.Wait(); err == nil || !strings.Contains(stranger.out.String(), "the session of 4 players is running and") ||
		!strings.Contains(stranger.out.String(), "(or join as a spectator)") {
		t.Errorf("the stranger who asked to play was not refused with the reason (%v):\n%s", err, stranger.out.String())
	} else {
		t.Logf("the stranger: %v: %s", err, refusal.FindString(stranger.out.String()))
	}
	if !regexp.MustCompile(`1 players seated while running, \d spectators \(0 dropped\); [12] states asked of players, 0 failed, 0 found wrong by the joiner`).MatchString(out) ||
		!strings.Contains(out, "none: the majority of the players judges the checksums") {
		t.Errorf("the server's summary does not count the late joiner seated from a player's state:\n%s", out)
	}
	t.Log(out)
}
