package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// rejoinRun is what rejoinMatch saw: each survivor's output, the output
// of the process that came back, and the server's.
type rejoinRun struct {
	survivors []string
	back      string
	serve     string
}

// rejoinMatch serves match on loopback with players play --bot processes
// (client ids 1, 2, ...) playing ticks ticks; the last one is killed
// (SIGKILL) killAt in, and a new process with a fresh token for the same
// client id starts backAt in and plays backTicks. Tokens time out after
// 2 s of silence, so that netcode frees the killed client's id (and
// tells the model it left) before it comes back.
func rejoinMatch(t *testing.T, players, ticks, backTicks int, killAt, backAt time.Duration, match ...string) rejoinRun {
	t.Helper()
	p := newProcs(t, 90*time.Second)
	serve, serveBuf := p.serve(nil, match...)
	play := func(id, ticks int) proc {
		return p.run(nil, botArgs(p.token(id, "--timeout", "2"), ticks, match...)...)
	}
	var plays []proc
	for id := 1; id < players; id++ {
		plays = append(plays, play(id, ticks))
	}
	victim := play(players, ticks)
	start := time.Now()
	time.Sleep(killAt)
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	victim.cmd.Wait()
	time.Sleep(backAt - time.Since(start))
	plays = append(plays, play(players, backTicks))
	var run rejoinRun
	for i, pl := range plays {
		err := pl.cmd.Wait()
		t.Logf("process %d:\n%s", i, pl.out)
		if err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
		if i < len(plays)-1 {
			run.survivors = append(run.survivors, pl.out.String())
		} else {
			run.back = pl.out.String()
		}
	}
	serve.Process.Signal(os.Interrupt)
	if err := serve.Wait(); err != nil {
		t.Errorf("serve: %v\n%s", err, serveBuf.String())
	}
	run.serve = serveBuf.String()
	t.Logf("server:\n%s", run.serve)
	return run
}

// TestPredictRejoinBetweenProcesses: serve --model predict and two bots
// playing 15 s; player 2's process is killed 3 s in and a new process
// with a fresh token for its client id comes back 6 s in (netcode drops
// the dead one after the token's 2 s timeout; the model keeps its
// character for the 30 s grace). The server counts the character taken
// back and none parked; the survivor predicts every tick it was asked
// for without holding one back, and the player back predicts its own.
func TestPredictRejoinBetweenProcesses(t *testing.T) {
	processTest(t)
	const ticks, backTicks = 900, 360
	run := rejoinMatch(t, 2, ticks, backTicks, 3*time.Second, 6*time.Second, "--model", "predict", "--players", "2")
	if !strings.Contains(run.serve, "1 players back to their characters, 0 characters parked") {
		t.Errorf("the server's summary does not count the player back at its character")
	}
	held := regexp.MustCompile(`ticks\s+(\d+) predicted, (\d+) held back`)
	compared := regexp.MustCompile(`mispredicted\s+\d+ of (\d+) ticks clear of contacts, \d+ of (\d+) near them`)
	for i, out := range append(run.survivors, run.back) {
		want := ticks
		if i == len(run.survivors) {
			want = backTicks
		}
		h, c := held.FindStringSubmatch(out), compared.FindStringSubmatch(out)
		if h == nil || c == nil {
			t.Fatalf("process %d printed no ticks or mispredictions", i)
		}
		if atoi(t, h[1]) < want || h[2] != "0" || atoi(t, c[1])+atoi(t, c[2]) < want/2 {
			t.Errorf("process %d: %s predicted of %d, %s held back, %s+%s compared", i, h[1], want, h[2], c[1], c[2])
		}
	}
}

// TestStatesyncRejoinBetweenProcesses: serve --model statesync for a
// table of three (the host and two guests) and two bots playing 15 s;
// guest 2's process is killed 3 s in and a new process with a fresh
// token for its client id comes back 6 s in. The host seats it in its
// seat again and counts it; the survivor plays every tick it was asked
// for and heard the host all along (the host never waited for the
// seat), and both guests have nothing refused.
func TestStatesyncRejoinBetweenProcesses(t *testing.T) {
	processTest(t)
	const ticks, backTicks = 900, 360
	run := rejoinMatch(t, 2, ticks, backTicks, 3*time.Second, 6*time.Second, "--model", "statesync", "--players", "3")
	// The host counts a rejoin only for a guest seated in the seat it
	// held for its client id.
	if !strings.Contains(run.serve, "1 guests back in their seats") {
		t.Errorf("the host's summary does not count the guest back in its seat")
	}
	steps := regexp.MustCompile(`ticks\s+(\d+)`)
	received := regexp.MustCompile(`packets\s+\d+ sent, (\d+) received, 0 malformed`)
	for i, out := range append(run.survivors, run.back) {
		want := ticks
		if i == len(run.survivors) {
			want = backTicks
		}
		s, r := steps.FindStringSubmatch(out), received.FindStringSubmatch(out)
		if s == nil || r == nil {
			t.Fatalf("process %d printed no ticks, or had packets refused", i)
		}
		// The host sends a packet a frame that steps: about one a step,
		// fewer when a loaded machine runs two steps in a frame.
		if atoi(t, s[1]) < want || atoi(t, r[1]) < want*2/3 {
			t.Errorf("process %d: %s ticks of %d, %s packets from the host", i, s[1], want, r[1])
		}
	}
}
