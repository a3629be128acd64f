package demo

import (
	"slices"
	"testing"

	"github.com/netphys/netphys/scene"
)

func TestLengthsShareAUnit(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want []string
	}{
		{[]float64{0.0001, 0.0004}, []string{"100 µm", "400 µm"}},
		{[]float64{0.0001, 0.0043}, []string{"0.10 mm", "4.30 mm"}},
		{[]float64{0.0001, 0.2}, []string{"0.010 cm", "20.000 cm"}},
		{[]float64{0.02, 3.5}, []string{"0.020 m", "3.500 m"}},
		{[]float64{0.000001, 0.5}, []string{"0.0001 cm", "50.0000 cm"}},
		{[]float64{0, 0}, []string{"0 µm", "0 µm"}},
	} {
		if got := lengths(tt.in...); !slices.Equal(got, tt.want) {
			t.Errorf("lengths(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestAutoPlay: the script takes the player after the idle ticks, from its
// start, and gives it back at the first key.
func TestAutoPlay(t *testing.T) {
	right := scene.Input{Right: true}
	script := scene.Script{{Ticks: 2, Input: scene.Input{Up: true}}, {Ticks: 1, Input: scene.Input{Left: true}}}
	a := newAutoPlay(script, 3)
	var got []scene.Input
	var scripted []bool
	for tick, keys := range []scene.Input{{}, {}, {}, {}, {}, {}, right, {}, {}} {
		in, s := a.input(tick, keys)
		got, scripted = append(got, in), append(scripted, s)
	}
	up, left := scene.Input{Up: true}, scene.Input{Left: true}
	want := []scene.Input{{}, {}, up, up, left, up, right, {}, {}}
	if !slices.Equal(got, want) || !slices.Equal(scripted, []bool{false, false, true, true, true, true, false, false, false}) {
		t.Fatalf("inputs %v (scripted %v), want %v", got, scripted, want)
	}
	never := newAutoPlay(script, 0)
	for tick := range 100 {
		if in, s := never.input(tick, scene.Input{}); s || in != (scene.Input{}) {
			t.Fatalf("tick %d: autoplay 0 played %v", tick, in)
		}
	}
}
