package physics_test

import (
	"testing"

	"github.com/netphys/netphys/internal/benchscene"
	"github.com/netphys/netphys/physics"
)

// benchScene steps a fresh copy of the scene for 600 steps (10 s at 60 Hz)
// per iteration and reports the mean ms/step; ns/op covers the 600 steps.
// The Awake variants run with sleeping off (SleepFrames 0): the cost of
// every step of a rollback or a prediction.
func benchScene(b *testing.B, s benchscene.Scene, sleep bool) {
	cfg := physics.DefaultConfig()
	if !sleep {
		cfg.SleepFrames = 0
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		w := newScene(b, s, cfg)
		b.StartTimer()
		for range 600 {
			w.Step()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/600, "ms/step")
}

func BenchmarkSceneA(b *testing.B)      { benchScene(b, benchscene.Grid, true) }
func BenchmarkSceneB(b *testing.B)      { benchScene(b, benchscene.Carpet, true) }
func BenchmarkSceneC(b *testing.B)      { benchScene(b, benchscene.Stack, true) }
func BenchmarkSceneAAwake(b *testing.B) { benchScene(b, benchscene.Grid, false) }
func BenchmarkSceneBAwake(b *testing.B) { benchScene(b, benchscene.Carpet, false) }
func BenchmarkSceneCAwake(b *testing.B) { benchScene(b, benchscene.Stack, false) }

// BenchmarkSnapshot and BenchmarkRestore time one Snapshot and one Restore
// of scene C's world after a second of stepping (9,450 contacts).
func BenchmarkSnapshot(b *testing.B) {
	w := steppedStack(b)
	var snap physics.Snapshot
	w.Snapshot(&snap)
	b.ReportAllocs()
	for b.Loop() {
		w.Snapshot(&snap)
	}
}

func BenchmarkRestore(b *testing.B) {
	w := steppedStack(b)
	var snap physics.Snapshot
	w.Snapshot(&snap)
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Restore(&snap); err != nil {
			b.Fatal(err)
		}
	}
}

func steppedStack(b *testing.B) *physics.World {
	cfg := physics.DefaultConfig()
	cfg.SleepFrames = 0
	w := newScene(b, benchscene.Stack, cfg)
	for range 60 {
		w.Step()
	}
	return w
}
