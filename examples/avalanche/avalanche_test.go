package main

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTwentySecondsAt100msAnd5PercentLoss(t *testing.T) {
	rs, err := Run(context.Background(), Options{Boxes: 40, Clients: 2, Duration: 20 * time.Second, RTT: 100 * time.Millisecond, Loss: 0.05, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("%d results for 2 clients", len(rs))
	}
	for i, r := range rs {
		// Every frame draws once the first snapshot is in; at most 1 % of
		// them dry; a render delay of a few snapshot intervals; the boxes
		// drawn within a centimetre of the server's most of the time (the
		// codec quantizes positions to 1/512 m).
		if r.Frames < 19*60 || float64(r.Dry) > 0.01*float64(r.Frames) {
			t.Errorf("client %d: %d frames, %d dry", i, r.Frames, r.Dry)
		}
		if r.RenderDelay <= 0 || r.RenderDelay > 250*time.Millisecond {
			t.Errorf("client %d: render delay %v", i, r.RenderDelay)
		}
		if !(r.ErrorP95 > 0 && r.ErrorP95 < 0.01) {
			t.Errorf("client %d: error p95 %.4f m", i, r.ErrorP95)
		}
		// Every frame is measured, the drops included: the game reports
		// them (interp.Resetter) and the clients draw them as jumps
		// (without the reset bit a dropped box sweeps up through the
		// world, and the largest error is 18-20 m).
		if !(r.ErrorMax < 0.5) {
			t.Errorf("client %d: error max %.4f m", i, r.ErrorMax)
		}
		if !(r.DownKbps > 5 && r.DownKbps < 500) {
			t.Errorf("client %d: %.1f kbps down", i, r.DownKbps)
		}
	}
}

func TestTheSameSeedGivesTheSameFigures(t *testing.T) {
	opts := Options{Boxes: 10, Clients: 1, Duration: 5 * time.Second, RTT: 200 * time.Millisecond, Loss: 0.1, Seed: 2}
	a, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two runs of seed 2 differ:\n%+v\n%+v", a, b)
	}
}

func TestTwoSecondsOverUDP(t *testing.T) {
	rs, err := Run(context.Background(), Options{Boxes: 10, Clients: 1, Duration: 2 * time.Second, UDP: true})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Frames == 0 {
		t.Fatalf("the client drew nothing in 2 s over UDP: %+v", rs[0])
	}
}

func TestCommand(t *testing.T) {
	var out strings.Builder
	if err := command([]string{"-duration", "3s", "-boxes", "8", "-clients", "2"}, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.Count(s, "kbps down") != 2 || !strings.Contains(s, "client 1:") {
		t.Fatalf("output:\n%s", s)
	}
	for _, args := range [][]string{{"-boxes", "0"}, {"-duration", "-1s"}, {"-nosuchflag"}} {
		if err := command(args, &out); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
