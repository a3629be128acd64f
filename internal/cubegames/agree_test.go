package cubegames

import (
	"strings"
	"testing"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/scene"
)

// TestAgreementNamesTheModelsOwnFlags: what server and players of a model
// must share of its own flags is in the description they compare; what a
// player chooses alone (how interp draws) is not.
func TestAgreementNamesTheModelsOwnFlags(t *testing.T) {
	describe := func(d match.Defaults, args ...string) string {
		m, sides, setup := modelSides(t, d, args...)
		return match.Agreement(m, sides, setup)
	}
	predictDefaults := match.Defaults{Model: "predict", Players: 4, Layout: scene.Tower20, ModelLayout: scene.Tower20}
	if a, b := describe(predictDefaults, "--predict-rate", "60"), describe(predictDefaults, "--predict-rate", "30"); a == b || !strings.Contains(b, "30 Hz") {
		t.Errorf("predict at 60 and 30 Hz agree: %q, %q", a, b)
	}
	interpDefaults := match.Defaults{Model: "interp", Players: 2, Layout: scene.Tower20, ModelLayout: scene.Tower20}
	if a, b := describe(interpDefaults, "--pps", "30"), describe(interpDefaults, "--pps", "20"); a == b || !strings.Contains(b, "20 snapshots per second") {
		t.Errorf("interp at 30 and 20 pps agree: %q, %q", a, b)
	}
	if a, b := describe(interpDefaults), describe(interpDefaults, "--hermite", "--buffering", "fixed"); a != b {
		t.Errorf("a player's own way of drawing is in the agreement: %q, %q", a, b)
	}
}
