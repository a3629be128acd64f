package physics

import "testing"

// benchScene steps a fresh copy of the scene for 600 steps (10 s at 60 Hz)
// per iteration and reports the mean ms/step; ns/op covers the 600 steps.
func benchScene(b *testing.B, s BenchScene) {
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		w, err := NewBenchWorld(s, DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for range 600 {
			w.Step()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N)/600, "ms/step")
}

func BenchmarkSceneA(b *testing.B) { benchScene(b, BenchGrid) }
func BenchmarkSceneB(b *testing.B) { benchScene(b, BenchCarpet) }
func BenchmarkSceneC(b *testing.B) { benchScene(b, BenchStack) }
