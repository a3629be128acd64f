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
// with the server's and sees hits, and the server commits hits.
func TestPredictMatchBetweenProcesses(t *testing.T) {
	t.Parallel() // its processes mostly wait for their frames
	const players, ticks = 3, 360
	outs, serveOut := processMatch(t, players, ticks, "--model", "predict")
	compared := regexp.MustCompile(`mispredicted\s+\d+ of (\d+) ticks clear of contacts, \d+ of (\d+) near them`)
	for i, out := range outs {
		m := compared.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("player process %d printed no mispredictions", i)
		}
		free, near := atoi(t, m[1]), atoi(t, m[2])
		if free+near < ticks/2 {
			t.Errorf("player process %d compared %d ticks of %d", i, free+near, ticks)
		}
	}
	if !regexp.MustCompile(`[1-9]\d* hits committed`).MatchString(serveOut) || !strings.Contains(serveOut, "player 3") {
		t.Errorf("server summary lacks committed hits or a player")
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
