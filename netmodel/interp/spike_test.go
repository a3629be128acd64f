package interp_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// driftingClient shows the client a clock running at rate times the real
// one.
type driftingClient struct {
	*interp.Client
	rate float64
}

func (c driftingClient) at(now time.Time) time.Time {
	return simmatch.Epoch.Add(time.Duration(float64(now.Sub(simmatch.Epoch)) * c.rate))
}

func (c driftingClient) Update(now time.Time, send func([]byte)) error {
	return c.Client.Update(c.at(now), send)
}

func (c driftingClient) Receive(now time.Time, d []byte) error {
	return c.Client.Receive(c.at(now), d)
}

// renderRun plays the orbit game for d with one client whose clock runs
// at rate, under the conditions cond returns for each frame's sends, and
// returns the client's share of dry frames and its mean and largest
// delay behind the server beyond latency, after 3 s of warm-up.
func renderRun(t *testing.T, cfg interp.Config, rate float64, latency time.Duration, cond func(time.Duration) netsim.Conditions, d time.Duration) (dry float64, mean, worst time.Duration, c *interp.Client) {
	t.Helper()
	srv, err := interp.NewServer(cfg, &orbits{n: orbitObjects}, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 4, Conditions: cond(0)}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	c, err = interp.NewClient(cfg, orbitObjects, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Join(driftingClient{c, rate}); err != nil {
		t.Fatal(err)
	}
	frame := time.Second / 60
	var frames, dryFrames, lastDry uint64
	var sum time.Duration
	for m.Elapsed() < d {
		if err := m.Sim().SetConditions(cond(m.Elapsed() + frame)); err != nil {
			t.Fatal(err)
		}
		if err := m.Run(frame); err != nil {
			t.Fatal(err)
		}
		k := c.Counters()
		wasDry := k.Dry != lastDry
		lastDry = k.Dry
		_, tick, ok := c.View()
		if !ok || m.Elapsed() < 3*time.Second {
			continue
		}
		frames++
		if wasDry {
			dryFrames++
		}
		behind := m.Elapsed() - time.Duration(tick/60*float64(time.Second)) - latency
		sum += behind
		worst = max(worst, behind)
	}
	return float64(dryFrames) / float64(frames), sum / time.Duration(frames), worst, c
}

// TestSpikes: on the spiky network (100 ms RTT, ±40 ms jitter,
// a 300 ms stall every 4 s, 2 s of 20 % loss every 10 s) the render
// clock runs dry on at most 0.5 % of the frames, and the mean delay it
// adds stays under 250 ms: the delay covers the jitter and loss, and the
// clock slows down through each stall instead of covering it always.
func TestSpikes(t *testing.T) {
	base := netsim.Conditions{Latency: 50 * time.Millisecond, Jitter: 40 * time.Millisecond}
	spiky := func(at time.Duration) netsim.Conditions {
		c := base
		if at >= 2*time.Second {
			if in := (at - 2*time.Second) % (4 * time.Second); in < 300*time.Millisecond {
				c.Latency += 300*time.Millisecond - in // held until the stall ends
			}
		}
		if at >= 5*time.Second && (at-5*time.Second)%(10*time.Second) < 2*time.Second {
			c.Loss = 0.2
		}
		return c
	}
	cfg := interp.DefaultConfig()
	dry, mean, worst, c := renderRun(t, cfg, 1, base.Latency, spiky, 43*time.Second)
	t.Logf("dry %.2f %%, delay mean %v, worst %v, %+v", 100*dry, mean, worst, c.Counters())
	if dry > 0.005 || mean > 250*time.Millisecond {
		t.Errorf("dry %.2f %% of frames (want <= 0.5 %%), mean delay %v (want < 250 ms)", 100*dry, mean)
	}
	// Without the slowing down, the same delay runs dry through every
	// stall.
	cfg.SlowBelow = 0
	dry, mean, _, _ = renderRun(t, cfg, 1, base.Latency, spiky, 43*time.Second)
	t.Logf("without slowing down: dry %.2f %%, delay mean %v", 100*dry, mean)
	if dry < 0.01 {
		t.Errorf("without slowing down, dry %.2f %% of frames: are there stalls?", 100*dry)
	}
}

// TestClientClockDrift: a client clock running up to 10 % fast or slow
// is followed: no dry frames to speak of, and the delay stays near what
// the network needs instead of growing or shrinking with the drift.
func TestClientClockDrift(t *testing.T) {
	cond := netsim.Conditions{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}
	for _, d := range []float64{-0.10, -0.08, -0.06, 0.06, 0.08, 0.10} {
		t.Run(fmt.Sprintf("%+.0f%%", 100*d), func(t *testing.T) {
			dry, mean, worst, _ := renderRun(t, interp.DefaultConfig(), 1+d, cond.Latency, func(time.Duration) netsim.Conditions { return cond }, 20*time.Second)
			t.Logf("dry %.2f %%, delay mean %v, worst %v", 100*dry, mean, worst)
			if dry > 0.005 || mean > 150*time.Millisecond || worst > 250*time.Millisecond {
				t.Errorf("dry %.2f %% (want <= 0.5 %%), delay mean %v (want < 150 ms), worst %v (want < 250 ms)", 100*dry, mean, worst)
			}
		})
	}
}

// TestLongGap: the link goes down for 3 s. The clock slows through the
// first MaxSlow of it, then runs on dry; it never jumps, and within the
// 8 s MaxTimeScale needs after the link is back the delay is where it
// was before.
func TestLongGap(t *testing.T) {
	cfg := interp.DefaultConfig()
	srv, err := interp.NewServer(cfg, &orbits{n: orbitObjects}, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	up := netsim.Conditions{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond}
	down := up
	down.Loss = 1
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 2, Conditions: up}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	c, err := interp.NewClient(cfg, orbitObjects, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m.Join(c)
	frame := 1.0 // ticks per frame at 60 Hz
	last, slowest, fastest := -1.0, 2.0, 0.0
	var before, after, worst time.Duration
	for i := range 20 * 60 {
		switch i {
		case 5 * 60:
			m.Sim().SetConditions(down)
		case 8 * 60:
			m.Sim().SetConditions(up)
		}
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
		_, tick, ok := c.View()
		if !ok {
			continue
		}
		if last >= 0 {
			step := (tick - last) / frame
			slowest, fastest = min(slowest, step), max(fastest, step)
		}
		last = tick
		behind := m.Elapsed() - time.Duration(tick/60*float64(time.Second))
		worst = max(worst, behind)
		switch i {
		case 5*60 - 1:
			before = behind
		case 20*60 - 1:
			after = behind
		}
	}
	t.Logf("behind the server %v before the gap, %v at worst, %v 12 s after; clock rate %.3f to %.3f", before, worst, after, slowest, fastest)
	if slowest < cfg.MinScale*0.99 || fastest > (1+cfg.MaxTimeScale)*1.01 {
		t.Errorf("the clock ran at %.3f to %.3f of real time", slowest, fastest)
	}
	// The clock ran on through the gap: it fell behind only while it
	// slowed, (1 - MinScale)·MaxSlow at most.
	if lag := worst - before; lag < 100*time.Millisecond || lag > 420*time.Millisecond {
		t.Errorf("%v further behind in the gap: want at most (1 - MinScale)·MaxSlow = 400 ms", lag)
	}
	if after > before+30*time.Millisecond {
		t.Errorf("%v behind 12 s after the gap, %v before it", after, before)
	}
}
