package interp_test

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire/snapshot"
)

// match runs the orbit game's server and clients (one per config) over
// netsim for d, checking at every frame that each client draws what the
// server had at the displayed time within tol metres, dry frames aside. It returns the
// clients.
func match(t *testing.T, srvCfg interp.Config, cfgs []interp.Config, cond netsim.Conditions, d time.Duration, tol float64) []*interp.Client {
	t.Helper()
	const n = 6
	srv, err := interp.NewServer(srvCfg, &orbits{n: n}, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 3, Conditions: cond}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	var clients []*interp.Client
	for _, cfg := range cfgs {
		c, err := interp.NewClient(cfg, n, simmatch.Epoch)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(c); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	truth := make([]snapshot.Cube, n)
	worst := 0.0
	dry := make([]uint64, len(clients))
	for m.Elapsed() < d {
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
		for i, c := range clients {
			view, tick, ok := c.View()
			wasDry := c.Counters().Dry != dry[i]
			dry[i] = c.Counters().Dry
			if !ok || wasDry || m.Elapsed() < 2*time.Second {
				continue // nothing to interpolate yet, or the estimate settles
			}
			orbitState(n, tick, truth)
			for k := range view {
				e := view[k].Position.Sub(truth[k].Position).Length()
				worst = max(worst, e)
				if e > tol {
					t.Fatalf("client %d at %v: object %d drawn %.3f m from the truth at tick %.2f", i, m.Elapsed(), k, e, tick)
				}
			}
		}
	}
	t.Logf("worst error %.4f m", worst)
	return clients
}

func TestClientsDrawTheServersWorld(t *testing.T) {
	cfg := interp.DefaultConfig()
	herm := cfg
	herm.Interpolation = interp.Hermite
	cond := netsim.Conditions{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}
	clients := match(t, cfg, []interp.Config{cfg, herm}, cond, 20*time.Second, 0.1)
	for i, c := range clients {
		k := c.Counters()
		t.Logf("client %d: %+v, render delay %v, loss %.3f", i, k, c.RenderDelay(), c.Loss())
		if k.Snapshots < 500 || k.Frames < 1100 || k.Dropped != 0 {
			t.Errorf("client %d: %+v", i, k)
		}
		if float64(k.Dry) > 0.02*float64(k.Frames) {
			t.Errorf("client %d: %d of %d frames dry", i, k.Dry, k.Frames)
		}
		if d := c.RenderDelay(); d <= 0 || d > 150*time.Millisecond {
			t.Errorf("client %d: render delay %v", i, d)
		}
	}
}
