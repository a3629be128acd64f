package tabbench

import (
	"testing"
	"time"
)

// TestRunEveryCase runs every case for a few frames: each client
// simulates ticks, and the figures are positive and ordered.
func TestRunEveryCase(t *testing.T) {
	for _, c := range Cases {
		t.Run(c.Name, func(t *testing.T) {
			first := 0
			r, err := Run(c, Config{Warmup: time.Second, Frames: 5, FirstTick: func() { first++ }})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%+v, %v per tick", r, r.PerTick())
			if r.Case != c.Name || r.Frames != 5 || r.Ticks < 1 {
				t.Errorf("%+v: want the case's name, 5 frames timed and ticks simulated", r)
			}
			if r.Mean <= 0 || r.P99 < r.Mean/2 || r.Max < r.P99 || r.PerTick() <= 0 {
				t.Errorf("%+v: want a positive mean, p99 and max, in order", r)
			}
			if first != 1 {
				t.Errorf("FirstTick called %d times, want once", first)
			}
		})
	}
	if _, err := Run(Cases[0], Config{Frames: 0}); err == nil {
		t.Error("Run with 0 frames: no error")
	}
	if _, err := Lookup("lockstep mars"); err == nil {
		t.Error("Lookup of an unknown case: no error")
	}
}
