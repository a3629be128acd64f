package interp_test

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// TestRenderClockNeverJumps: once started, the render clock advances by
// one frame's ticks times 1 ± MaxTimeScale every frame (the drift it
// follows on this link is under 1 %), also when the network changes
// under it (the delay then grows or shrinks smoothly); only when data
// runs short in the bad spell does it slow further, never below MinScale.
func TestRenderClockNeverJumps(t *testing.T) {
	cfg := interp.DefaultConfig()
	srv, err := interp.NewServer(cfg, &orbits{n: orbitObjects}, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	good := netsim.Conditions{Latency: 20 * time.Millisecond}
	bad := netsim.Conditions{Latency: 120 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.2}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 9, Conditions: good}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	c, err := interp.NewClient(cfg, orbitObjects, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	slot, _ := m.Join(c)
	frame := (time.Second / 60).Seconds() * 60 // ticks per frame
	last, started, slowed := 0.0, false, 0
	var delays []time.Duration
	for i := range 20 * 60 {
		switch i {
		case 6 * 60:
			m.SetLink(slot, bad, bad)
		case 13 * 60:
			m.SetLink(slot, good, good)
		}
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
		if i%60 == 59 {
			delays = append(delays, c.RenderDelay())
		}
		_, tick, ok := c.View()
		if !ok {
			continue
		}
		if started {
			step := tick - last
			lo, hi := frame*(1-cfg.MaxTimeScale)*0.99, frame*(1+cfg.MaxTimeScale)*1.01
			bad := i >= 6*60 && i < 14*60
			if bad && step < lo && step >= frame*cfg.MinScale*0.99 {
				slowed++
			} else if step < lo || step > hi {
				t.Fatalf("frame %d: the clock moved %.4f ticks, want %.2f ± %.0f %%", i, step, frame, 100*cfg.MaxTimeScale)
			}
		}
		last, started = tick, true
	}
	// The delay followed the network: longer in the bad spell, coming
	// back down after it (the jitter is forgotten within Samples
	// snapshots, the loss within LossWindow).
	before, during, after := delays[5], delays[12], delays[19]
	t.Logf("render delay %v, %v in the bad spell, %v after; %d frames slowed", before, during, after, slowed)
	if slowed > 60 {
		t.Errorf("%d frames slowed in the bad spell: the delay should cover its losses", slowed)
	}
	if !(during > 2*before && after < during*3/4) {
		t.Errorf("render delay %v, %v, %v: want it to rise with loss and jitter and fall back", before, during, after)
	}
}
