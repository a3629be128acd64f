package interpreport

import (
	"strings"
	"testing"
)

// TestShortRun runs a few seconds of one rate and condition with every
// part of the table and checks its shape: every client drew, the figures
// are in range, and the sections print.
func TestShortRun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seconds, cfg.Warmup = 4, 2
	cfg.Rates = []int{30}
	cfg.Conditions = cfg.Conditions[1:2]
	cfg.VelocityRates, cfg.VelocityCondition = []int{30}, 0
	cfg.CostClients, cfg.CostFrom, cfg.CostSeconds = 4, 1, 1
	cfg.Profiles = []Profile{Spiky(), Drifting("clock +10%", 0.10)}
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != len(cfg.Modes) || len(res.Anchors) != len(cfg.Anchors) || len(res.Velocity) != 1 ||
		len(res.Profiles) != len(cfg.Profiles)*len(cfg.ProfileModes) {
		t.Fatalf("%d rows, %d anchors, %d velocity rows, %d profile rows", len(res.Rows), len(res.Anchors), len(res.Velocity), len(res.Profiles))
	}
	for _, r := range append(append(append(res.Rows, res.Anchors...), res.Velocity...), res.Profiles...) {
		if r.DelayMean <= 0 || r.DownKbps <= 0 || r.UpKbps <= 0 || r.ErrMean <= 0 || r.ErrP95 < r.ErrMean || r.ErrMax < r.ErrP95-errBin {
			t.Errorf("row %+v", r)
		}
	}
	var b strings.Builder
	Print(&b, res)
	t.Log("\n" + b.String())
	for _, want := range []string{"hermite+extrap", "article's fixed delay", "sent velocity", "bodies coded per packet", "server cost", "spiky", "clock +10%"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q", want)
		}
	}
}
