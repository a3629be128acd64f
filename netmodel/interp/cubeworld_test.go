package interp_test

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
)

// TestCubeWorld plays the first seconds of the scripted minute to two
// clients under 100 ms RTT, 5 % loss and 10 ms jitter: every snapshot a
// client decodes equals, bit for bit, the one the server quantized, and
// the clients draw.
func TestCubeWorld(t *testing.T) {
	cfg := interp.DefaultConfig()
	game, err := scene.NewInterpGame(scene.Cubes900, scene.DefaultConfig(), scene.PlayMinute)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := interp.NewServer(cfg, game, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	cond := netsim.Conditions{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 2, Conditions: cond}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	herm := cfg
	herm.Interpolation = interp.Hermite
	var clients []*interp.Client
	for _, c := range []interp.Config{cfg, herm} {
		cl, err := interp.NewClient(c, game.Objects(), simmatch.Epoch)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(cl); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, cl)
	}
	checked := 0
	for range 3 * 30 {
		if err := m.Run(time.Second / 30); err != nil {
			t.Fatal(err)
		}
		n := interp.Number(srv.Tick() / 2)
		for back := interp.Number(0); back < 8; back++ {
			sent := srv.Sent(n - back)
			for _, c := range clients {
				got := c.Decoded(n - back)
				if sent == nil || got == nil {
					continue
				}
				for i := range sent.Cubes {
					if sent.Cubes[i] != got.Cubes[i] {
						t.Fatalf("snapshot %d cube %d: decoded %+v, sent %+v", n-back, i, got.Cubes[i], sent.Cubes[i])
					}
				}
				checked++
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d decoded snapshots checked", checked)
	}
	for i, c := range clients {
		if _, _, ok := c.View(); !ok || c.Counters().Dropped != 0 {
			t.Errorf("client %d: drawn %v, counters %+v", i, ok, c.Counters())
		}
	}
	t.Logf("server %+v, encoder %+v", srv.Counters(), srv.EncoderCounters())
}
