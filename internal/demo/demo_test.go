package demo

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
)

// TestDemoHeadless runs the demo for real — UDP sockets on 127.0.0.1, the
// netcode handshake, the proxy at 50 ms and 5 % loss — for three seconds of
// the tower scene, and checks that state flows and the remote copy matches.
func TestDemoHeadless(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Layout = scene.Tower20
	cfg.Conditions = netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.05}
	cfg.Duration = 3 * time.Second
	cfg.Script = scene.Script{{Ticks: 60, Input: scene.Input{Right: true}}}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	var status strings.Builder
	cfg.Status = &status
	s, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The ack window has not filled in 3 s at 10 packets per second: the
	// live line says so rather than showing 0 % loss.
	first, _, _ := strings.Cut(status.String(), "\n")
	if !strings.Contains(first, "loss no estimate yet") || !strings.Contains(first, "(worst ") {
		t.Errorf("first status line %q, want no loss estimate yet", first)
	}
	if s.Ticks < 60 {
		t.Fatalf("only %d ticks in %v", s.Ticks, s.Duration)
	}
	if s.StateMessagesSent < 10 || s.PacketsDown < 10 || s.PacketsUp < 30 {
		t.Fatalf("too little traffic: %+v", s)
	}
	if s.BadMessages != 0 {
		t.Fatalf("%d state messages did not decode", s.BadMessages)
	}
	if s.RTT < 90*time.Millisecond || s.RTT > 2*time.Second {
		t.Fatalf("RTT %v, want about 100 ms (2 × 50 ms)", s.RTT)
	}
	// The tower stands still on both sides; only the player moves, and
	// the remote copy trails it by the latency.
	if s.MeanError > 0.05 {
		t.Fatalf("mean position error %.3f m over all bodies, want under 5 cm", s.MeanError)
	}
	if s.DownKbps <= 0 || s.UpKbps <= 0 {
		t.Fatalf("no bandwidth measured: %+v", s)
	}
}

func TestSendScheduleKeepsTheRate(t *testing.T) {
	for _, rate := range []int{1, 7, 10, 13, 30, 60} {
		r := &run{cfg: Config{SendRate: rate}}
		sends := 0
		for r.tick = 0; r.tick < 10*tickRate; r.tick++ {
			if r.sendDue() {
				sends++
			}
		}
		if sends != 10*rate {
			t.Errorf("rate %d: %d sends in 10 s, want %d", rate, sends, 10*rate)
		}
	}
}
