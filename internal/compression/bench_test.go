package compression

import (
	"testing"

	"github.com/netphys/netphys/wire/snapshot"
)

// BenchmarkReport runs the first 20 s of the scripted minute (the busiest
// part) through rows 8 and 9 and reports each row's figures as metrics:
//
//	go test -run '^$' -bench Report ./internal/compression/
func BenchmarkReport(b *testing.B) {
	for _, st := range []snapshot.Stage{snapshot.SeparateChanges, snapshot.RangeCoded} {
		b.Run(st.String(), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Ticks = 20 * tickRate
			cfg.Stages = []snapshot.Stage{st}
			var row Row
			for b.Loop() {
				rows, err := Run(cfg, nil)
				if err != nil {
					b.Fatal(err)
				}
				row = rows[0]
			}
			b.ReportMetric(row.MeanKbps, "kbps")
			b.ReportMetric(row.MeanBytes, "bytes/snap")
		})
	}
}
