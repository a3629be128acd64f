package replay_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/interp/replay"
)

// FuzzRead: no input makes Read or a playback of what it read panic or
// exceed its limits; what reads either plays or fails with ErrFormat or
// ErrChecksum.
func FuzzRead(f *testing.F) {
	small, _ := record(f, 3, 2*time.Second)
	f.Add(small)
	f.Add([]byte("NPSR\x01"))
	lim := replay.Limits{MaxSnapshots: 500, MaxBytes: 1 << 20, MaxObjects: 64}
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := replay.ReadLimits(bytes.NewReader(b), lim)
		if rep == nil {
			if err == nil {
				t.Fatal("no replay and no error")
			}
			return
		}
		if len(rep.Snapshots) > lim.MaxSnapshots || rep.Size > int64(len(b)) {
			t.Fatalf("%d snapshots, %d bytes of %d", len(rep.Snapshots), rep.Size, len(b))
		}
		if len(rep.Snapshots) == 0 {
			return
		}
		if _, err := replay.Verify(rep); err != nil && !errors.Is(err, replay.ErrFormat) && !errors.Is(err, replay.ErrChecksum) {
			t.Fatalf("verify: %v", err)
		}
		p, err := replay.NewPlayback(rep)
		if err != nil {
			return
		}
		for _, tick := range []int64{p.Ticks(), p.Start(), (p.Start() + p.Ticks()) / 2} {
			if p.SeekTick(tick) == nil {
				p.View()
			}
		}
	})
}
