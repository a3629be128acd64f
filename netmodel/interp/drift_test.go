package interp_test

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// slowServer runs the server's clock at rate times the real one: a server
// machine whose clock drifts, or one that cannot keep up.
type slowServer struct {
	*interp.Server
	rate float64
}

func (s slowServer) at(now time.Time) time.Time {
	return simmatch.Epoch.Add(time.Duration(float64(now.Sub(simmatch.Epoch)) * s.rate))
}

func (s slowServer) Update(now time.Time, send func(int, []byte)) error {
	return s.Server.Update(s.at(now), send)
}

func (s slowServer) Receive(now time.Time, slot int, d []byte) error {
	return s.Server.Receive(s.at(now), slot, d)
}

// TestServerClockDrift: the server's clock runs 3 % slow; the client's
// render clock follows it within its ±5 % and the delay stays bounded.
func TestServerClockDrift(t *testing.T) {
	cfg := interp.DefaultConfig()
	srv, err := interp.NewServer(cfg, &orbits{n: orbitObjects}, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 6, Conditions: netsim.Conditions{Latency: 40 * time.Millisecond}}}, slowServer{srv, 0.97})
	if err != nil {
		t.Fatal(err)
	}
	c, err := interp.NewClient(cfg, orbitObjects, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m.Join(c)
	if err := m.Run(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	k := c.Counters()
	_, tick, _ := c.View()
	t.Logf("%+v, render delay %v, showing tick %.0f of %d", k, c.RenderDelay(), tick, srv.Tick())
	if float64(k.Dry) > 0.02*float64(k.Frames) {
		t.Errorf("%d of %d frames dry", k.Dry, k.Frames)
	}
	if behind := float64(srv.Tick()) - tick; behind < 0 || behind > 30 {
		t.Errorf("showing tick %.1f, the server at %d", tick, srv.Tick())
	}
}
