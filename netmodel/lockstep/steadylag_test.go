package lockstep

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
)

// TestLaggingWithinMaxLagCostsAtMostMaxLag: a player whose inputs lag the
// session clock by less than MaxLag (2 s) is within the rules and stays,
// whether it lags 1.5 s steadily or goes silent 1.8 s in every 3 s. What
// it costs the others is bounded by MaxLag: one stall while their input
// delay follows the lag, then a delay that never exceeds MaxLag (far from
// the 5 s cap of Config.MaxDelay) and no stall.
func TestLaggingWithinMaxLagCostsAtMostMaxLag(t *testing.T) {
	cfg := DefaultConfig()
	for _, c := range []struct {
		name    string
		hostile func(p *player, g *tally)
	}{
		{"steady 1.5 s", func(p *player, _ *tally) {
			p.withhold = func(tick Tick, est float64) bool { return float64(tick) > est-90 }
		}},
		{"silent 1.8 s in 3 s", func(p *player, _ *tally) {
			p.silent = func(now time.Time) bool {
				d := now.Sub(simmatch.Epoch) - 3*time.Second
				return d > 0 && d%(3*time.Second) < 1800*time.Millisecond
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newArena(t, cfg, true, c.hostile)
			a.run(t, 15*time.Second)
			var worstDelay time.Duration
			for range 10 * 60 {
				a.run(t, frame)
				for _, p := range a.honest() {
					worstDelay = max(worstDelay, p.Stats().InputDelay)
				}
			}
			worstStall := a.worstStall(t, 10*time.Second)
			st := a.server.Stats(a.m.Now())
			t.Logf("honest input delay up to %v after 15 s, worst stall since %v; their longest stall before %v",
				worstDelay.Round(time.Millisecond), worstStall, a.players[0].Stats().LongestStall)
			if !st.Players[3].Connected || st.Disconnected != 0 {
				t.Fatalf("a player within MaxLag was dropped: %+v", st.Players[3])
			}
			if worstDelay > cfg.MaxLag {
				t.Errorf("the honest players' input delay reached %v, above MaxLag (%v)", worstDelay, cfg.MaxLag)
			}
			if worstStall > 0 || a.players[0].Stats().LongestStall > cfg.MaxLag {
				t.Errorf("an honest player stalled %v after the delay followed the lag, %v at worst", worstStall, a.players[0].Stats().LongestStall)
			}
			a.checkHonest(t, Tick(30*time.Second/frame))
		})
	}
}
