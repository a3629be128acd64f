package main

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// guestAgreed is a guest's agreement line when its world held the
// host's bits at the end: the host tick it agreed from and how long after
// the host's world came to rest.
var guestAgreed = regexp.MustCompile(`agreement\s+with the host: bit for bit since host tick (\d+), ([\d.]+) s after the host's world came to rest \((\d+) of (\d+) digests matched\)`)

// hostAgreed is the host's part of its agreement line for player n.
func hostAgreed(n int) *regexp.Regexp {
	return regexp.MustCompile(fmt.Sprintf(`player %d: bit for bit since host tick \d+, [\d.]+ s after the host's world came to rest \(\d+ of \d+ digests matched\)`, n))
}

// TestStatesyncProcessesConvergeBitForBit is issue 25's agreement figure
// for state sync, as separate processes: `serve --model statesync
// --players 3` (the host and its bot) and two `play --bot` guests that
// play 15 s (every bot has stacked its cubes by then; the script's
// throws start at 40 s), stop acting and linger 4 s while the table
// comes to rest. Every guest prints that its world held the host's bits,
// computed from the host's digests, and the host prints the same of
// every guest from theirs.
func TestStatesyncProcessesConvergeBitForBit(t *testing.T) {
	processTest(t)
	p := newProcs(t, 2*time.Minute)
	match := []string{"--model", "statesync", "--players", "3"}
	serve, serveOut := p.serve(nil, match...)
	const guests, ticks = 2, 900
	var plays []proc
	for id := 1; id <= guests; id++ {
		plays = append(plays, p.run(nil, append(botArgs(p.token(id), ticks, match...), "--linger", "4s")...))
	}
	for i, pl := range plays {
		err := pl.cmd.Wait()
		t.Logf("guest process %d:\n%s", i+1, pl.out)
		if err != nil {
			t.Fatalf("guest process %d: %v", i+1, err)
		}
		m := guestAgreed.FindStringSubmatch(pl.out.String())
		if m == nil {
			t.Fatalf("guest process %d printed no bit-for-bit agreement with the host", i+1)
		}
		// The table rests for the last seconds at least: a run of
		// matching digests, not one.
		if matched, _ := strconv.Atoi(m[3]); matched < 2 {
			t.Errorf("guest process %d: %s of %s digests matched", i+1, m[3], m[4])
		}
	}
	stopServe(t, serve, serveOut)
	for n := 1; n <= guests; n++ {
		if !hostAgreed(n).MatchString(serveOut.String()) {
			t.Errorf("the host's summary does not say player %d converged bit for bit", n)
		}
	}
}
