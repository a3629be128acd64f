package interp_test

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// largestStep runs the orbit game to one client through a 300 ms outage
// and returns the largest distance an object moved from one frame to the
// next after the outage, and the client's counters.
func largestStep(t *testing.T, cfg interp.Config) (float64, interp.ClientCounters) {
	srv, err := interp.NewServer(cfg, &orbits{n: orbitObjects}, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	ok := netsim.Conditions{Latency: 30 * time.Millisecond}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 4, Conditions: ok}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	c, err := interp.NewClient(cfg, orbitObjects, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	slot, _ := m.Join(c)
	var last [orbitObjects][3]float64
	have := false
	largest := 0.0
	for i := range 6 * 60 {
		switch i {
		case 3 * 60:
			m.SetLink(slot, ok, netsim.Conditions{Loss: 1})
		case 3*60 + 18:
			m.SetLink(slot, ok, ok)
		}
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
		view, _, drawn := c.View()
		if !drawn {
			continue
		}
		for k, v := range view {
			p := [3]float64{v.Position.X, v.Position.Y, v.Position.Z}
			if have && i > 3*60+18 {
				dx, dy, dz := p[0]-last[k][0], p[1]-last[k][1], p[2]-last[k][2]
				largest = max(largest, dx*dx+dy*dy+dz*dz)
			}
			last[k] = p
		}
		have = true
	}
	return largest, c.Counters()
}

// TestExtrapolationBlendsBack: through an outage the client extrapolates,
// and when data returns the blend spreads the correction over frames: the
// largest step between frames is smaller than without the blend.
func TestExtrapolationBlendsBack(t *testing.T) {
	cfg := interp.DefaultConfig()
	cfg.Extrapolate = true
	blended, k := largestStep(t, cfg)
	cfg.BlendTime = 0
	snapped, _ := largestStep(t, cfg)
	t.Logf("largest step² after the outage: %.5f m² blended, %.5f m² without; %+v", blended, snapped, k)
	if k.Extrapolated == 0 || k.Extrapolated != k.Dry {
		t.Errorf("%d frames extrapolated of %d dry", k.Extrapolated, k.Dry)
	}
	if !(blended < snapped) {
		t.Errorf("largest step² %.5f blended, %.5f without blending", blended, snapped)
	}
}
