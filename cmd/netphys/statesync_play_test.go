package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestStatesyncMatchBetweenProcesses is the VR table as separate
// processes: `serve --model statesync --players 4` (the host) and three
// `play --bot` guests on loopback. Every guest must hear the host and
// have nothing refused, and the host must have seated all three.
func TestStatesyncMatchBetweenProcesses(t *testing.T) {
	processTest(t)
	const guests, ticks = 3, 240
	outs, serveOut := processMatch(t, guests, ticks, "--model", "statesync", "--players", "4")
	received := regexp.MustCompile(`packets\s+\d+ sent, ([1-9]\d*) received, 0 malformed`)
	for i, out := range outs {
		if !received.MatchString(out) {
			t.Errorf("guest process %d did not hear the host, or had packets refused", i)
		}
	}
	if !strings.Contains(serveOut, "player 3") {
		t.Errorf("the host's summary lacks the third guest")
	}
}
