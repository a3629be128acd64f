package main

import (
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLockstepRejoinHoldOffBetweenProcesses: serve --late-join and 4 bots
// on tower20. Player 4's process is killed, comes back as a new process
// with a fresh token for its client id and is seated again (a first
// departure is free), is killed again, and its next process, started as
// soon as the server has dropped it the second time, is refused with
// the reason (its client id is held off for MaxLag after a second
// departure: a player coming straight back into its seat would make the
// others wait for its inputs again and again). The refusal is counted as
// netphys_model_refused_total{reason="rejoin_held_off"}; the three
// others play to the end with equal checksums and serve keeps running.
func TestLockstepRejoinHoldOffBetweenProcesses(t *testing.T) {
	processTest(t)
	const ticks = 2700
	p := newProcs(t, 3*time.Minute)
	match := []string{"--model", "lockstep", "--late-join", "--layout", "tower20", "--players", "4"}
	metricsAddr := freeTCPAddr(t)
	serve, serveBuf := p.serve(nil, append([]string{"--metrics", metricsAddr}, match...)...)
	play := func(id int) proc {
		return p.run(nil, botArgs(p.token(id, "--expiry", "2m"), ticks, match...)...)
	}
	metric := func(name, reason string) int {
		t.Helper()
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		if err != nil {
			return -1
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		m := regexp.MustCompile(name + `\{reason="` + reason + `"\} (\d+)`).FindSubmatch(body)
		if m == nil {
			return 0
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	// waitFor polls the metric until it reaches n.
	waitFor := func(name, reason string, n int) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); metric(name, reason) < n; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s{reason=%q} did not reach %d:\n%s", name, reason, n, serveBuf.String())
			}
		}
	}
	// kill kills v, whose Wait runs in a goroutine that sends on done if
	// done is not nil.
	kill := func(v proc, done chan error) {
		t.Helper()
		if err := v.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		if done != nil {
			<-done
		} else {
			v.cmd.Wait()
		}
	}
	var honest []proc
	for id := 1; id <= 3; id++ {
		honest = append(honest, play(id))
	}
	victim := play(4)
	time.Sleep(2500 * time.Millisecond)
	kill(victim, nil)
	// Dropped for lag (the first departure), then seated again once it
	// was told (1 s).
	waitFor("netphys_match_refused_total", "dropped_lag", 1)
	time.Sleep(1500 * time.Millisecond)
	victim = play(4)
	// Killed again; its next process starts as soon as the drop shows.
	// It is held off for 2 s after the second departure, 4 s after the
	// third: a machine so loaded that the new process connects later
	// than that is seated, killed again and tries once more.
	refused := false
	var done chan error
	for drops := 2; drops <= 4 && !refused; drops++ {
		time.Sleep(3 * time.Second)
		kill(victim, done)
		waitFor("netphys_match_refused_total", "dropped_lag", drops)
		victim = play(4)
		done = make(chan error, 1)
		go func(v proc, done chan<- error) { done <- v.cmd.Wait() }(victim, done)
		select {
		case err := <-done:
			out := victim.out.String()
			t.Logf("player 4 coming straight back after drop %d (%v):\n%s", drops, err, out)
			if err == nil || !strings.Contains(out, "left its seat or was dropped") || !strings.Contains(out, "may play again in") {
				t.Fatalf("player 4 does not print why it was refused")
			}
			refused = true
		case <-time.After(8 * time.Second):
			t.Logf("player 4 was seated after drop %d: the machine is slow; once more", drops)
		}
	}
	if !refused {
		t.Fatal("player 4 was never held off")
	}
	if n := metric("netphys_model_refused_total", "rejoin_held_off"); n < 1 {
		t.Errorf("netphys_model_refused_total{reason=\"rejoin_held_off\"} is %d", n)
	}
	sameChecksum(t, ticks, waitAll(t, honest))
	if serve.ProcessState != nil {
		t.Fatalf("serve exited:\n%s", serveBuf.String())
	}
	serve.Process.Signal(os.Interrupt)
	serve.Wait()
}
