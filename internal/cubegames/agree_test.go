package cubegames

import (
	"strings"
	"testing"

	"github.com/netphys/netphys/match"
)

// TestAgreementNamesTheModelsOwnFlags: what server and players of a model
// must share of its own flags is in the description they compare; what a
// player chooses alone (how interp draws) is not.
func TestAgreementNamesTheModelsOwnFlags(t *testing.T) {
	describe := func(d match.Defaults, args ...string) string {
		m, sides, setup := modelSides(t, d, append([]string{"--layout", "tower20"}, args...)...)
		return match.Agreement(m, sides, setup)
	}
	predictDefaults := match.Defaults{Model: "predict", Players: 4}
	if a, b := describe(predictDefaults, "--predict-rate", "60"), describe(predictDefaults, "--predict-rate", "30"); a == b || !strings.Contains(b, "30 Hz") {
		t.Errorf("predict at 60 and 30 Hz agree: %q, %q", a, b)
	}
	interpDefaults := match.Defaults{Model: "interp", Players: 2}
	if a, b := describe(interpDefaults, "--pps", "30"), describe(interpDefaults, "--pps", "20"); a == b || !strings.Contains(b, "20 snapshots per second") {
		t.Errorf("interp at 30 and 20 pps agree: %q, %q", a, b)
	}
	if a, b := describe(interpDefaults), describe(interpDefaults, "--hermite", "--buffering", "fixed"); a != b {
		t.Errorf("a player's own way of drawing is in the agreement: %q, %q", a, b)
	}
	// The cube world's --layout is the game's setting, not the runtime's:
	// its models put it in the agreement, as the world.
	lockstepDefaults := match.Defaults{Model: "lockstep", Players: 4}
	if a, b := describe(lockstepDefaults), describe(lockstepDefaults, "--layout", "pyramid10"); a != "lockstep (pure lockstep, datagrams) on tower20 for 4 players" || b != "lockstep (pure lockstep, datagrams) on pyramid10 for 4 players" {
		t.Errorf("lockstep on two layouts: %q, %q", a, b)
	}
}
