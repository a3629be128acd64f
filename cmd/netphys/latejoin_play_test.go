package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestLockstepLateJoinBetweenProcesses: serve --late-join and 4 bots on
// tower20 playing 600 ticks; player 4's process is killed 2.5 s in, and
// comes back 6.5 s in as a new process with a fresh token for the same
// client id (netcode replaces the silent slot at once, not after its 10 s
// timeout) and takes the free seat from the referee's state; eight
// spectators (play --spectate) join 4 s in. Every process that reaches
// tick 600 prints the same checksum of it: the three survivors, the
// rejoined player and the spectators.
func TestLockstepLateJoinBetweenProcesses(t *testing.T) {
	t.Parallel() // its processes mostly wait for their frames
	const ticks, spectators = 600, 8
	p := newProcs(t, 90*time.Second)
	match := []string{"--model", "lockstep", "--late-join", "--layout", "tower20", "--players", "4"}
	serve, serveBuf := p.serve(nil, match...)
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
	for id := 6; id < 6+spectators; id++ {
		finish = append(finish, play(id, "--spectate"))
	}
	// The server drops the killed player 2 s after its inputs stop
	// (MaxLag) and frees its seat a second later.
	time.Sleep(2500 * time.Millisecond)
	finish = append(finish, play(4))
	sameChecksum(t, ticks, waitAll(t, finish))
	serve.Process.Signal(os.Interrupt)
	serve.Wait()
	if out := serveBuf.String(); !strings.Contains(out, "1 players seated while running") {
		t.Errorf("the server's summary does not count the late joiner:\n%s", out)
	}
}
