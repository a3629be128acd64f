package statesync_test

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/cpuclock"
	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
)

// hostClock times a host's calls on the thread's CPU clock: the host's
// own CPU, its world's step included, the simulator's and the guests' not
// (what Update sends is handed on after the clock stops).
type hostClock struct {
	netmodel.Server
	cpu   time.Duration
	out   [][]byte // the datagrams of an Update, reused
	slots []int
	keep  func(int, []byte)
}

func (h *hostClock) Receive(now time.Time, slot int, d []byte) error {
	t := cpuclock.Now()
	err := h.Server.Receive(now, slot, d)
	h.cpu += cpuclock.Now() - t
	return err
}

func (h *hostClock) Update(now time.Time, send func(int, []byte)) error {
	if h.keep == nil {
		h.keep = func(slot int, d []byte) {
			if n := len(h.slots); n < len(h.out) {
				h.out[n] = append(h.out[n][:0], d...)
			} else {
				h.out = append(h.out, slices.Clone(d))
			}
			h.slots = append(h.slots, slot)
		}
	}
	h.slots = h.slots[:0]
	t := cpuclock.Now()
	err := h.Server.Update(now, h.keep)
	h.cpu += cpuclock.Now() - t
	for k, slot := range h.slots {
		send(slot, h.out[k])
	}
	return err
}

// vrSeat is player p's VR table with its scripted bot.
func vrSeat(tb testing.TB, cfg scene.VRConfig, p int) *scene.VR {
	tb.Helper()
	probe, err := scene.NewVR(cfg, statesync.Player(p), nil)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := scene.NewVR(cfg, statesync.Player(p), scene.NewVRBot(p, scene.VRMatch(probe, p)))
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

// BenchmarkHostVRTable is the host of `netphys bench server --model
// statesync`: the 4-seat VR table, a headless host (seat 0 its bot) and 3
// guests over 100 ms links with 1 % loss, a 256 kbps budget. One op is a
// 60 Hz frame of the match after a 3 s warm-up; host-cpu-ns/tick is the
// host's Receive and Update calls on the thread's CPU clock, its world's
// step included (profile it with -cpuprofile and -focus 'statesync.\(\*Host\)').
func BenchmarkHostVRTable(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	vcfg := scene.DefaultVRConfig()
	cfg := statesync.DefaultConfig()
	cfg.Ballistic = statesync.BallisticOf(vcfg.Physics)
	cfg.PacketBytes = statesync.BudgetFor(256, 60)
	host, err := statesync.NewHost(cfg, vrSeat(b, vcfg, 0))
	if err != nil {
		b.Fatal(err)
	}
	clock := &hostClock{Server: host}
	sim := netsim.Config{Seed: 1, Conditions: netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.01}}
	m, err := simmatch.New(simmatch.Config{Sim: sim, MaxSlots: statesync.MaxPlayers}, clock)
	if err != nil {
		b.Fatal(err)
	}
	for p := 1; p < statesync.MaxPlayers; p++ {
		gcfg := cfg
		gcfg.Player = statesync.Player(p)
		g, err := statesync.NewGuest(gcfg, vrSeat(b, vcfg, p), m.Now())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Join(g); err != nil {
			b.Fatal(err)
		}
	}
	frame := time.Second / 60
	if err := m.Run(3 * time.Second); err != nil {
		b.Fatal(err)
	}
	clock.cpu = 0
	b.ResetTimer()
	for range b.N {
		if err := m.Run(frame); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(clock.cpu)/float64(b.N), "host-cpu-ns/tick")
}
