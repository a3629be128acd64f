package interp

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// feedEstimator records n snapshots at interval iv (s), each delivered
// after base + uniform jitter, each lost with probability loss.
func feedEstimator(e *delayEstimator, n int, iv, base, jitter, loss float64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for k := range n {
		if rng.Float64() < loss {
			continue
		}
		s := float64(k) * iv
		e.add(Number(k), s, s+base+jitter*rng.Float64())
	}
}

// TestDelayFollowsJitterAndLoss: the adaptive delay grows with the jitter
// (beyond what the margin for a lost packet already covers)
// and with the loss, and the predicted dry share falls as the delay grows.
func TestDelayFollowsJitterAndLoss(t *testing.T) {
	const iv = 1.0 / 30
	delay := func(jitter, loss float64) float64 {
		var e delayEstimator
		feedEstimator(&e, 600, iv, 0.05, jitter, loss, 3)
		d, ok := e.delay(Adaptive, iv, 0.001, 1)
		if !ok {
			t.Fatal("no delay")
		}
		_, mean, _ := e.stats()
		return d - mean
	}
	calm, jittery, lossy := delay(0, 0), delay(0.06, 0), delay(0, 0.1)
	t.Logf("added delay: %.1f ms calm, %.1f ms with 60 ms of jitter, %.1f ms at 10 %% loss", 1000*calm, 1000*jittery, 1000*lossy)
	if !(calm < jittery && calm < lossy) || calm < iv || calm > 3*iv {
		t.Errorf("added delay %.4f calm, %.4f jittery, %.4f lossy", calm, jittery, lossy)
	}
	var e delayEstimator
	feedEstimator(&e, 600, iv, 0.05, 0.02, 0.1, 4)
	prev := 2.0
	for D := 0.0; D < 0.5; D += 0.005 {
		f := e.dry(D, iv, e.loss())
		if f > prev+1e-12 || f < 0 || f > 1 {
			t.Fatalf("dry(%.3f) = %g after %g", D, f, prev)
		}
		prev = f
	}
}

// TestAnchorsDelays: the article's delay is its table's (150 ms at 30 pps
// after the fastest delivery), Mirror's about two intervals after the
// mean.
func TestAnchorsDelays(t *testing.T) {
	const iv = 1.0 / 30
	var e delayEstimator
	feedEstimator(&e, 300, iv, 0.05, 0, 0, 5)
	fixed, _ := e.delay(Fixed, iv, 0.001, 1)
	if d := fixed - 0.05; d < 0.1499 || d > 0.1501 {
		t.Errorf("article's delay %.4f s after the fastest delivery, want 0.150", d)
	}
	var m delayEstimator
	feedEstimator(&m, 300, iv, 0.05, 0, 0, 5)
	mirror, _ := m.delay(Mirror, iv, 0.001, 1)
	if d := mirror - 0.05; d < 2*iv-0.001 || d > 2*iv+0.005 {
		t.Errorf("Mirror's delay %.4f s after the mean delivery, want about %.4f", d, 2*iv)
	}
}

func TestConfigValidation(t *testing.T) {
	if err := func() error { c := DefaultConfig(); return c.validate() }(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	for name, mod := range map[string]func(*Config){
		"pps not dividing the tick rate": func(c *Config) { c.PPS = 7 },
		"zero pps":                       func(c *Config) { c.PPS = 0 },
		"tick interval":                  func(c *Config) { c.TickInterval = time.Second / 50 },
		"extrapolation over 200 ms":      func(c *Config) { c.ExtrapolationLimit = 300 * time.Millisecond },
		"time scale over 5 %":            func(c *Config) { c.MaxTimeScale = 0.1 },
		"dry target":                     func(c *Config) { c.DryTarget = 0 },
		"max delay":                      func(c *Config) { c.MaxDelay = 0 },
		"fragments over a datagram":      func(c *Config) { c.Reliable.FragmentSize = 1200 },
		"sent velocity never sent":       func(c *Config) { c.SentVelocity = true },
	} {
		c := DefaultConfig()
		mod(&c)
		if err := c.validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
}
