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

// BenchmarkSceneCFirstStep times the first step of a fresh scene C, awake:
// the slowest step of the awake benchmark, since none of the 9,450
// candidate pairs has a pose cache yet and every one runs the full box
// test.
func BenchmarkSceneCFirstStep(b *testing.B) {
	cfg := physics.DefaultConfig()
	cfg.SleepFrames = 0
	for b.Loop() {
		b.StopTimer()
		w := newScene(b, benchscene.Stack, cfg)
		b.StartTimer()
		w.Step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/step")
}

// BenchmarkSnapshot and BenchmarkRestore time one Snapshot and one Restore
// of each scene's world after five seconds of stepping awake (scene C:
// 9,450 candidate pairs, 5,400 contacts and 4,050 apart pairs), once the
// snapshot's buffers have grown.
func BenchmarkSnapshot(b *testing.B) {
	eachSteppedScene(b, func(b *testing.B, w *physics.World, snap *physics.Snapshot) {
		for b.Loop() {
			w.Snapshot(snap)
		}
	})
}

func BenchmarkRestore(b *testing.B) {
	eachSteppedScene(b, func(b *testing.B, w *physics.World, snap *physics.Snapshot) {
		for b.Loop() {
			if err := w.Restore(snap); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func eachSteppedScene(b *testing.B, run func(b *testing.B, w *physics.World, snap *physics.Snapshot)) {
	for _, s := range []struct {
		name  string
		scene benchscene.Scene
	}{{"A", benchscene.Grid}, {"B", benchscene.Carpet}, {"C", benchscene.Stack}} {
		b.Run(s.name, func(b *testing.B) {
			cfg := physics.DefaultConfig()
			cfg.SleepFrames = 0
			w := newScene(b, s.scene, cfg)
			for range 300 {
				w.Step()
			}
			var snap physics.Snapshot
			w.Snapshot(&snap)
			b.ReportAllocs()
			run(b, w, &snap)
		})
	}
}
