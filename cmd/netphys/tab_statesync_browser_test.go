package main

import (
	"regexp"
	"strconv"
	"testing"
)

// statesyncPackets is the line of a state sync summary that counts its
// packets.
var statesyncPackets = regexp.MustCompile(`packets\s+(\d+) sent, (\d+) received, (\d+) malformed`)

// handsLine is the line of a state sync summary that counts each
// player's grabs and throws as that machine saw them; handsOf one
// player's part of it.
var (
	handsLine = regexp.MustCompile(`hands\s+grabs/throws seen: ([^\n]*)`)
	handsOf   = regexp.MustCompile(`player (\d+) (\d+)/(\d+)`)
)

// handsSeen returns what summary's hands line counts for player p:
// grabs and throws.
func handsSeen(t *testing.T, who, summary string, p int) (grabs, throws int) {
	t.Helper()
	m := handsLine.FindStringSubmatch(summary)
	if m == nil {
		t.Fatalf("%s's summary has no hands line:\n%s", who, summary)
	}
	for _, x := range handsOf.FindAllStringSubmatch(m[1], -1) {
		if x[1] == strconv.Itoa(p) {
			g, _ := strconv.Atoi(x[2])
			th, _ := strconv.Atoi(x[3])
			return g, th
		}
	}
	t.Fatalf("%s's hands line %q names no player %d", who, m[1], p)
	return 0, 0
}

// TestTabIsStatesyncGuest: a tab is a guest of a state sync match (the
// server's host plays the first seat) beside a native bot guest. It
// exchanges the model's packets with the host, none malformed; its bot
// grabs and throws cubes, which the host and the native guest see; and
// none of the server's sends to it fails.
func TestTabIsStatesyncGuest(t *testing.T) {
	heavyTest(t)
	tab, native, serve := tabMatch(t, []string{"--model", "statesync", "--players", "3"}, 900, 900)
	m := statesyncPackets.FindStringSubmatch(tab)
	if m == nil || m[1] == "0" || m[2] == "0" || m[3] != "0" {
		t.Fatalf("the tab's state sync packets: %q, want some sent and received, none malformed:\n%s", m, tab)
	}
	// The tab joins first (tabMatch waits for it to draw before the native
	// player starts): netcode slot 0, the table's player 1.
	const tabPlayer = 1
	if g, th := handsSeen(t, "the tab", tab, tabPlayer); g == 0 || th == 0 {
		t.Errorf("the tab's bot grabbed %d and threw %d cubes, want some of each", g, th)
	}
	if g, th := handsSeen(t, "the host", serve, tabPlayer); g == 0 || th == 0 {
		t.Errorf("the host saw the tab grab %d and throw %d cubes, want some of each", g, th)
	}
	if g, th := handsSeen(t, "the native guest", native, tabPlayer); g == 0 || th == 0 {
		t.Errorf("the native guest saw the tab grab %d and throw %d cubes, want some of each", g, th)
	}
	checkCarrier(t, tab, serve)
}
