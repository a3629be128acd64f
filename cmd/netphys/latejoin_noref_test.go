package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestLockstepLateJoinWithoutRefereeBetweenProcesses: serve --late-join
// --referee=false and 4 bots on tower20 playing 900 ticks; player 4's
// process is killed 2.5 s in and comes back 6.5 s in as a new process
// with a fresh token for the same client id: its seat was held for it,
// and it is seated from player state (the server has no world), checked
// against the checksum all players agreed on. Every process prints the
// same checksum of tick 900, and the server counts one state asked of a
// player and none failed.
func TestLockstepLateJoinWithoutRefereeBetweenProcesses(t *testing.T) {
	t.Parallel() // its processes mostly wait for their frames
	const ticks = 900
	p := newProcs(t, 90*time.Second)
	match := []string{"--model", "lockstep", "--late-join", "--layout", "tower20", "--players", "4"}
	serve, serveBuf := p.serve(nil, append(match, "--referee=false")...)
	play := func(id int) proc {
		return p.run(nil, botArgs(p.token(id, "--expiry", "2m"), ticks, match...)...)
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
	// The server drops the killed player 2 s after its inputs stop
	// (MaxLag) and frees its seat for its client id a second later.
	time.Sleep(4 * time.Second)
	finish = append(finish, play(4))
	sameChecksum(t, ticks, waitAll(t, finish))
	serve.Process.Signal(os.Interrupt)
	serve.Wait()
	out := serveBuf.String()
	if !strings.Contains(out, "1 players seated while running, 0 spectators (0 dropped); 1 states asked of players, 0 failed, 0 found wrong by the joiner") ||
		!strings.Contains(out, "none: the majority of the players judges the checksums") {
		t.Errorf("the server's summary does not count the late joiner seated from a player's state:\n%s", out)
	}
	t.Log(out)
}
