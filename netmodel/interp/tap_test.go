package interp_test

import (
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// TestTapShowsTheHostsWorld: a host stepping its own world at its own
// pace (one tick per frame, three at once now and then) feeds a tap; two
// spectators on a perfect link decode every snapshot the tap took, and
// snapshot n is the host's world at tick 2n whenever the host landed on
// it. A tick going back is refused.
func TestTapShowsTheHostsWorld(t *testing.T) {
	const objects = 5
	start := time.Unix(1000, 0)
	tap, err := interp.NewTap(interp.DefaultConfig(), wire.DefaultStateSpec(), objects, start, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := tap.Config()
	var spectators []*interp.Client
	for slot := range 2 {
		c, err := interp.NewClient(cfg, objects, start)
		if err != nil {
			t.Fatal(err)
		}
		spectators = append(spectators, c)
		if err := tap.Join(slot); err != nil {
			t.Fatal(err)
		}
	}
	truth := make([]snapshot.Cube, objects)
	var hostTick int64
	capture := func(dst []wire.BodyState) {
		orbitState(objects, float64(hostTick), truth)
		for i, c := range truth {
			dst[i] = wire.BodyState{Position: c.Position, Rotation: c.Rotation, AtRest: !c.Interacting}
		}
	}
	landed := map[interp.Number]bool{}
	for frame := range 600 {
		hostTick++
		if frame%50 == 49 {
			hostTick += 2 // catching up
		}
		if hostTick%2 == 0 {
			landed[interp.Number(hostTick/2)] = true
		}
		now := start.Add(time.Duration(hostTick) * cfg.TickInterval)
		var out [][2]any
		if err := tap.Update(hostTick, capture, func(slot int, d []byte) { out = append(out, [2]any{slot, append([]byte(nil), d...)}) }); err != nil {
			t.Fatal(err)
		}
		for _, o := range out {
			if err := spectators[o[0].(int)].Receive(now, o[1].([]byte)); err != nil {
				t.Fatal(err)
			}
		}
		for slot, c := range spectators {
			if err := c.Update(now, func(d []byte) {
				if err := tap.Receive(slot, d); err != nil {
					t.Fatal(err)
				}
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := tap.Server().Tick(); got != hostTick {
		t.Fatalf("tap at tick %d, host %d", got, hostTick)
	}
	checked := 0
	for n := interp.Number(hostTick/2 - interp.Ring + 1); n <= interp.Number(hostTick/2); n++ {
		sent := tap.Server().Sent(n)
		for _, c := range spectators {
			if got := c.Decoded(n); sent == nil || got == nil || got.Cubes[3] != sent.Cubes[3] {
				t.Fatalf("snapshot %d: spectator decoded %v, tap sent %v", n, got, sent)
			}
		}
		if !landed[n] {
			continue
		}
		orbitState(objects, float64(2*n), truth)
		if d := sent.Cubes[3].Position.Sub(truth[3].Position).Length(); d > 1e-3 {
			t.Fatalf("snapshot %d is %v m from the host's tick %d", n, d, 2*n)
		}
		checked++
	}
	if checked < interp.Ring*3/4 {
		t.Fatalf("%d snapshots checked against the host's world", checked)
	}
	if err := tap.Update(hostTick-1, capture, func(int, []byte) {}); !errors.Is(err, interp.ErrConfig) {
		t.Fatalf("a tick back: %v", err)
	}
}
