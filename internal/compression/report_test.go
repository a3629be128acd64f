package compression

import (
	"strings"
	"testing"

	"github.com/netphys/netphys/wire/snapshot"
)

// TestShortRunOrdersStages runs ten seconds of the script through every
// stage and checks the table's shape: every stage decodes snapshots, the
// delta stages are far smaller than the uncompressed one, and errors stay
// within the quantization.
func TestShortRunOrdersStages(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Ticks = 600
	rows, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(snapshot.Stages) {
		t.Fatalf("%d rows, want %d", len(rows), len(snapshot.Stages))
	}
	byStage := map[snapshot.Stage]Row{}
	for _, r := range rows {
		byStage[r.Stage] = r
		// The early stages send tens of fragments per snapshot and 5 %
		// loss takes most of them; the delta stages fit one datagram.
		if want := cfg.Ticks / 2; r.Stage >= snapshot.ChangedBits && r.Decoded < want || r.Decoded == 0 {
			t.Errorf("%v decoded %d of %d snapshots", r.Stage, r.Decoded, cfg.Ticks)
		}
		if r.MaxPositionError > 0.002 {
			t.Errorf("%v: position error %.4f m beyond the 1/512 m quantization", r.Stage, r.MaxPositionError)
		}
	}
	first, last := byStage[snapshot.Uncompressed], byStage[snapshot.RangeCoded]
	if first.MeanKbps < 10000 || last.MeanKbps*20 > first.MeanKbps {
		t.Errorf("uncompressed %.0f kbps, range coded %.0f kbps: want > 10 Mbps and a 20× reduction", first.MeanKbps, last.MeanKbps)
	}
	if byStage[snapshot.ChangedBits].MeanKbps >= byStage[snapshot.NoVelocity].MeanKbps {
		t.Error("delta coding against acked baselines saves nothing")
	}
	// The bar for stage 9, simulation included: half of stage 8.
	if r8, r9 := byStage[snapshot.SeparateChanges], byStage[snapshot.RangeCoded]; 2*r9.MeanKbps > r8.MeanKbps || 2*r9.MeanBytes > r8.MeanBytes {
		t.Errorf("range coded %.1f kbps / %.1f bytes, separate changes %.1f kbps / %.1f bytes: want at most half",
			r9.MeanKbps, r9.MeanBytes, r8.MeanKbps, r8.MeanBytes)
	}
}

func TestPrintTable(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Ticks = 120
	rows, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	Print(&b, cfg, rows)
	t.Log("\n" + b.String())
	if got := strings.Count(b.String(), "\n"); got != len(rows)+3 {
		t.Fatalf("table has %d lines, want %d", got, len(rows)+3)
	}
}
