package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPredictMatchBetweenProcesses is issue 13's separate-process check:
// `serve --model predict` and three `play --model predict --bot`
// processes on loopback; each player predicts its ticks, compares them
// with the server's, sees hits and learns which the server confirmed, and
// the server commits hits.
func TestPredictMatchBetweenProcesses(t *testing.T) {
	processTest(t)
	const players, ticks = 3, 360
	outs, serveOut := processMatch(t, players, ticks, "--model", "predict")
	compared := regexp.MustCompile(`mispredicted\s+\d+ of (\d+) ticks clear of contacts, \d+ of (\d+) near them`)
	hits := regexp.MustCompile(`(\d+) seen to hit, (\d+) hits confirmed by the server`)
	confirmed := 0
	for i, out := range outs {
		h := hits.FindStringSubmatch(out)
		if h == nil {
			t.Fatalf("player process %d printed no hits seen and confirmed:\n%s", i, out)
		}
		t.Logf("player process %d: %s hits seen, %s confirmed by the server", i, h[1], h[2])
		confirmed += atoi(t, h[2])
		m := compared.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("player process %d printed no mispredictions", i)
		}
		free, near := atoi(t, m[1]), atoi(t, m[2])
		if free+near < ticks/2 {
			t.Errorf("player process %d compared %d ticks of %d", i, free+near, ticks)
		}
	}
	committed := regexp.MustCompile(`(\d+) hits committed`).FindStringSubmatch(serveOut)
	if committed == nil || !strings.Contains(serveOut, "player 3") {
		t.Fatalf("server summary lacks committed hits or a player:\n%s", serveOut)
	}
	// The players learn of the server's hits from its states, up to the
	// end of their match: some, and never more than the server committed.
	if n := atoi(t, committed[1]); confirmed == 0 || confirmed > n {
		t.Errorf("the players count %d hits confirmed, the server committed %d", confirmed, n)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPredictServeCountsRefusals is issue 21's refusal count for predict
// over real UDP: one of two `play --model predict --bot` processes is
// killed with SIGKILL 2.5 s in; its character repeats its last controls
// for Grace, then stands still, every tick counted. serve's summary names
// the refusal, and `serve --metrics` exports every reason of the model's
// refusals (netphys_model_refused_total, zeros included) with that one
// counted.
func TestPredictServeCountsRefusals(t *testing.T) {
	processTest(t)
	p := newProcs(t, time.Minute)
	match := []string{"--model", "predict", "--players", "2"}
	metricsAddr := freeTCPAddr(t)
	serve, serveBuf := p.serve(nil, append([]string{"--metrics", metricsAddr}, match...)...)
	const ticks = 360
	survivor := p.run(nil, botArgs(p.token(1), ticks, match...)...)
	victim := p.run(nil, botArgs(p.token(2), ticks, match...)...)
	time.Sleep(2500 * time.Millisecond)
	victim.kill(t)
	if err := survivor.cmd.Wait(); err != nil {
		t.Fatalf("the surviving player: %v\n%s", err, survivor.out)
	}
	body := metricsPage(t, metricsAddr)
	for _, reason := range []string{"malformed_packet", "packet_flood", "input_too_late", "input_too_far_ahead", "rewind_over_budget",
		"shot_too_late", "shot_claim_capped", "shot_refused_by_game", "input_idle_after_grace"} {
		if !strings.Contains(body, `netphys_model_refused_total{reason="`+reason+`"}`) {
			t.Errorf("/metrics lacks netphys_model_refused_total of %s", reason)
		}
	}
	idle := regexp.MustCompile(`netphys_model_refused_total\{reason="input_idle_after_grace"\} (\d+)`).FindStringSubmatch(body)
	if idle == nil || atoi(t, idle[1]) == 0 {
		t.Errorf("/metrics counts no tick of the dead player's character standing still: %q", idle)
	}
	if got := stopServe(t, serve, serveBuf); !regexp.MustCompile(`refusals .*input_idle_after_grace \d+`).MatchString(got) {
		t.Errorf("the server's summary lacks the idle ticks among its refusals")
	}
}
