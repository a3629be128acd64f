package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestTabPlaysLockstepWithThreeNativeBots is issue 26's first browser
// check: a tab plays a 4-player lockstep match with three native
// `play --bot` processes over the real transport (WebTransport for the
// tab, UDP for the others), and its checksum at the last tick equals
// theirs; the server verified the match's checksums equal. Once with
// input delay, once with rollback.
func TestTabPlaysLockstepWithThreeNativeBots(t *testing.T) {
	heavyTest(t)
	const ticks = 240
	for _, c := range []struct {
		name  string
		flags []string
	}{{"delay", nil}, {"rollback", []string{"--rollback"}}} {
		t.Run(c.name, func(t *testing.T) {
			match := append([]string{"--model", "lockstep", "--players", "4", "--layout", "tower20"}, c.flags...)
			natives := make([]tabNative, 3)
			for i := range natives {
				natives[i] = tabNative{ticks: ticks, flags: match}
			}
			r := tabGame(t, tabSetup{match: match, tabTicks: ticks, natives: natives})
			sums := map[string]string{"the tab": r.tab}
			for i, out := range r.natives {
				sums[fmt.Sprintf("native player %d", i+1)] = out
			}
			want := ""
			for _, who := range []string{"the tab", "native player 1", "native player 2", "native player 3"} {
				c := checksumLine.FindStringSubmatch(sums[who])
				switch {
				case c == nil:
					t.Errorf("%s printed no checksum", who)
				case c[1] != fmt.Sprint(ticks):
					t.Errorf("%s's checksum is of tick %s, want %d", who, c[1], ticks)
				case want == "":
					want = c[2]
				case c[2] != want:
					t.Errorf("%s ended with checksum %s, the tab with %s", who, c[2], want)
				}
			}
			if !strings.Contains(r.serve, "verified equal") || !strings.Contains(r.serve, "player 4") {
				t.Errorf("the server's summary lacks the verified checksums or the fourth player")
			}
			checkCarrier(t, r.tab, r.serve)
		})
	}
}
