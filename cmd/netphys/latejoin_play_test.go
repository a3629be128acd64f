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
	processTest(t)
	const ticks, spectators = 600, 8
	out := killAndRejoin(t, ticks, nil, func(play func(id int, extra ...string) proc) (finish []proc) {
		for id := 6; id < 6+spectators; id++ {
			finish = append(finish, play(id, "--spectate"))
		}
		return finish
	})
	if !strings.Contains(out, "1 players seated while running") {
		t.Errorf("the server's summary does not count the late joiner:\n%s", out)
	}
}

// killAndRejoin plays a lockstep --late-join match of 4 bots on tower20
// for ticks, serve given serveFlags besides: player 4's process is killed
// 2.5 s in; 1.5 s later meanwhile starts what else joins and returns
// those of its processes that play to the end; 2.5 s after that player 4
// comes back as a new process with a fresh token. Every process that
// plays to the end must print the same checksum of tick ticks. It
// returns serve's output once serve is interrupted.
func killAndRejoin(t *testing.T, ticks int, serveFlags []string, meanwhile func(play func(id int, extra ...string) proc) []proc) string {
	t.Helper()
	p := newProcs(t, 90*time.Second)
	match := []string{"--model", "lockstep", "--late-join", "--layout", "tower20", "--players", "4"}
	serve, serveBuf := p.serve(nil, append(match, serveFlags...)...)
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
	finish = append(finish, meanwhile(play)...)
	// The server drops the killed player 2 s after its inputs stop
	// (MaxLag) and frees its seat for its client id a second later.
	time.Sleep(2500 * time.Millisecond)
	finish = append(finish, play(4))
	sameChecksum(t, ticks, waitAll(t, finish))
	serve.Process.Signal(os.Interrupt)
	serve.Wait()
	return serveBuf.String()
}
