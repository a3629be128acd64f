package interp_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/cpuclock"
	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire/snapshot"
)

// timedGame times the cube world's steps, to tell the simulation's CPU
// from the encoding's in the server's Update.
type timedGame struct {
	*scene.InterpGame
	spent time.Duration
}

func (g *timedGame) Step() uint32 {
	t := cpuclock.Now()
	in := g.InterpGame.Step()
	g.spent += cpuclock.Now() - t
	return in
}

func (g *timedGame) Capture(dst []snapshot.Cube) {
	t := cpuclock.Now()
	g.InterpGame.Capture(dst)
	g.spent += cpuclock.Now() - t
}

// timedServer times the server's Updates.
type timedServer struct {
	*interp.Server
	spent time.Duration
}

func (s *timedServer) Update(now time.Time, send func(int, []byte)) error {
	t := cpuclock.Now()
	err := s.Server.Update(now, send)
	s.spent += cpuclock.Now() - t
	return err
}

// BenchmarkServer64 runs one server feeding 64 clients at 30 pps under
// 100 ms RTT, 5 % loss and 10 ms jitter, in virtual time, from the
// katamari segment of the scripted minute on: each iteration is one
// second of play. It reports the server's CPU (the thread's clock) per
// client per snapshot without the simulation (the encoding), the
// simulation's per tick, and how many clients one core could feed at
// 30 pps besides the simulation.
//
//	go test -run '^$' -bench Server64 -benchtime 10x ./netmodel/interp/
func BenchmarkServer64(b *testing.B) {
	for _, sim := range []bool{false, true} {
		name := "range-coded"
		if sim {
			name = "range-coded+simulation"
		}
		b.Run(name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cfg := interp.DefaultConfig()
			if sim {
				p, err := scene.NewPredictor(scene.Cubes900, scene.DefaultConfig())
				if err != nil {
					b.Fatal(err)
				}
				cfg.Codec.Simulator = p
			}
			ig, err := scene.NewInterpGame(scene.Cubes900, scene.DefaultConfig(), scene.PlayMinute)
			if err != nil {
				b.Fatal(err)
			}
			game := &timedGame{InterpGame: ig}
			srv, err := interp.NewServer(cfg, game, simmatch.Epoch)
			if err != nil {
				b.Fatal(err)
			}
			ts := &timedServer{Server: srv}
			cond := netsim.Conditions{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}
			m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 1, Conditions: cond}}, ts)
			if err != nil {
				b.Fatal(err)
			}
			for range 64 {
				ccfg := cfg
				if sim {
					p, _ := scene.NewPredictor(scene.Cubes900, scene.DefaultConfig())
					ccfg.Codec.Simulator = p
				}
				c, err := interp.NewClient(ccfg, ig.Objects(), simmatch.Epoch)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := m.Join(c); err != nil {
					b.Fatal(err)
				}
			}
			if err := m.Run(4 * time.Second); err != nil { // into the katamari segment
				b.Fatal(err)
			}
			ts.spent, game.spent = 0, 0
			k0 := srv.Counters()
			e0 := srv.EncoderCounters()
			for b.Loop() {
				if err := m.Run(time.Second); err != nil {
					b.Fatal(err)
				}
			}
			k, e := srv.Counters(), srv.EncoderCounters()
			pkts := float64(k.Packets - k0.Packets)
			enc := ts.spent - game.spent
			b.ReportMetric(float64(enc.Microseconds())/pkts, "enc-µs/client/snap")
			b.ReportMetric(float64(e.Encodings-e0.Encodings)/pkts, "encodings/packet")
			b.ReportMetric(float64(game.spent.Microseconds())/float64(k.Ticks-k0.Ticks), "sim-µs/tick")
			// One core at 30 pps: what the simulation leaves of each
			// second, over the encoding's CPU per client per second.
			perClient := enc.Seconds() / pkts * 30
			b.ReportMetric((1-game.spent.Seconds()/float64(b.N))/perClient, "clients/core")
		})
	}
}
