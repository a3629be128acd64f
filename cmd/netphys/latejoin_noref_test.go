package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

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
// refusal is the server's reason for refusing a late joiner, as play prints it.
var refusal = regexp.MustCompile(`the session of \d+ players is running and [^\n]*`)

func TestLockstepLateJoinWithoutRefereeBetweenProcesses(t *testing.T) {
	t.Parallel() // its processes mostly wait for their frames
	const ticks = 900
	p := newProcs(t, 90*time.Second)
	match := []string{"--model", "lockstep", "--late-join", "--layout", "tower20", "--players", "4"}
	serve, serveBuf := p.serve(nil, append(match, "--referee=false")...)
	play := func(id int, extra ...string) proc {
		return p.run(nil, append(botArgs(p.token(id, "--expiry", "2m"), ticks, match...), extra...)...)
	}
	var finish []proc
	for id := 1; id <= 3; id++ {
		finish = append(finish, play(id))
	}
	victim := play(4)
	time.Sleep(2500 * time.Millisecond)
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	victim.cmd.Wait()
	time.Sleep(1500 * time.Millisecond)
	finish = append(finish, play(6, "--spectate"))
	stranger := play(5)
	// The server drops the killed player 2 s after its inputs stop
	// (MaxLag) and frees its seat for its client id a second later.
	time.Sleep(2500 * time.Millisecond)
	finish = append(finish, play(4))
	if err := stranger.cmd.Wait(); err == nil || !strings.Contains(stranger.out.String(), "the session of 4 players is running and") ||
		!strings.Contains(stranger.out.String(), "(or join as a spectator)") {
		t.Errorf("the stranger who asked to play was not refused with the reason (%v):\n%s", err, stranger.out.String())
	} else {
		t.Logf("the stranger: %v: %s", err, refusal.FindString(stranger.out.String()))
	}
	sameChecksum(t, ticks, waitAll(t, finish))
	serve.Process.Signal(os.Interrupt)
	serve.Wait()
	out := serveBuf.String()
	if !regexp.MustCompile(`1 players seated while running, \d spectators \(0 dropped\); [12] states asked of players, 0 failed, 0 found wrong by the joiner`).MatchString(out) ||
		!strings.Contains(out, "none: the majority of the players judges the checksums") {
		t.Errorf("the server's summary does not count the late joiner seated from a player's state:\n%s", out)
	}
	t.Log(out)
}
