package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
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
