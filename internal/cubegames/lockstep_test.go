package cubegames

import (
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/transport/netsim"
)

// lockstepSides parses args as the commands do, for the lockstep model.
func lockstepSides(t *testing.T, args ...string) (*match.Model, match.Sides, match.Setup) {
	t.Helper()
	return modelSides(t, match.Defaults{Model: "lockstep", Players: 4}, append([]string{"--layout", "tower20"}, args...)...)
}

// TestLockstepDemoHeadless is `netphys demo --model lockstep --headless`
// in a test: the relay and four players over real UDP through the proxy at
// 20 ms and 5 % loss each way, each player a bot in its own world; the
// checksums the players exchange agree, and so do the ones the demo
// compares across the four worlds.
func TestLockstepDemoHeadless(t *testing.T) {
	for name, mode := range map[string][]string{"pure": nil, "rollback": {"--rollback"}} {
		t.Run(name, func(t *testing.T) {
			// Two demos at once: each mostly waits for its frames.
			t.Parallel()
			lockstepDemo(t, mode)
		})
	}
}

// lockstepDemo runs the demo headless for 2 s with the lockstep flags
// mode and checks its summary.
func lockstepDemo(t *testing.T, mode []string) {
	m, sides, setup := lockstepSides(t, mode...)
	out := headlessDemo(t, match.DemoConfig{
		Model: m, Sides: sides, Setup: setup, Seed: 1,
		Conditions: netsim.Conditions{Latency: 20 * time.Millisecond, Loss: 0.05},
		Duration:   2 * time.Second,
	}, "player 4 (bot)", "ticks verified equal", "across players", "all equal")
	if strings.Contains(out, " 0 ticks compared") || strings.Contains(out, "desync") {
		t.Errorf("%v: no checksum compared, or a desync", mode)
	}
}

// TestLockstepTCPFlag: --tcp is DefaultStreamConfig, whose timeout lets
// TCP's retransmission stalls run their course, with or without rollback.
func TestLockstepTCPFlag(t *testing.T) {
	stream := lockstep.DefaultStreamConfig()
	for _, rollback := range []bool{false, true} {
		cfg := lockstepConfig(rollback, true)
		if cfg.Transport != lockstep.Stream || cfg.Timeout != stream.Timeout || cfg.Buffer != stream.Buffer {
			t.Errorf("rollback %v: transport %v, timeout %v, buffer %d; want %v, %v, %d",
				rollback, cfg.Transport, cfg.Timeout, cfg.Buffer, stream.Transport, stream.Timeout, stream.Buffer)
		}
		if want := lockstep.DefaultRollbackConfig().Rollback; rollback && cfg.Rollback != want {
			t.Errorf("--rollback --tcp: rollback %d, want %d", cfg.Rollback, want)
		}
	}
	if cfg := lockstepConfig(false, false); cfg.Transport != lockstep.Datagrams {
		t.Errorf("no --tcp: transport %v", cfg.Transport)
	}
}
