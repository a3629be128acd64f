package demo

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/scene"
)

// lengths formats lengths in m in one unit, chosen by the largest (µm,
// mm, cm or m), with the decimals that show the largest to three
// significant digits and the smallest nonzero one to two (at most four
// decimals): a mean and a worst error then read side by side, such as
// "0.10 mm" and "4.30 mm", or "0.010 cm" and "20.000 cm".
func lengths(ls ...float64) []string {
	largest, smallest := 0.0, math.Inf(1)
	for _, l := range ls {
		largest = max(largest, l)
		if l > 0 {
			smallest = min(smallest, l)
		}
	}
	var scale float64
	var unit string
	switch {
	case largest < 1e-3:
		scale, unit = 1e6, "µm"
	case largest < 1e-2:
		scale, unit = 1e3, "mm"
	case largest < 1:
		scale, unit = 1e2, "cm"
	default:
		scale, unit = 1, "m"
	}
	decimals := 0
	if largest > 0 {
		decimals = max(sigDecimals(largest*scale, 3), sigDecimals(smallest*scale, 2))
	}
	decimals = min(decimals, 4)
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = fmt.Sprintf("%.*f %s", decimals, l*scale, unit)
	}
	return out
}

// sigDecimals returns the decimals that show v > 0 to digits significant digits.
func sigDecimals(v float64, digits int) int {
	return max(0, digits-1-int(math.Floor(math.Log10(v))))
}

// autoPlay hands the player to a script while nobody plays: after a number
// of ticks without a key held, the script runs from its start (again from
// its start when it ends), until a key is pressed. It gives the viewer's
// first sight motion instead of a still world.
type autoPlay struct {
	script scene.Script
	after  int // ticks without a key before the script takes over; 0: never
	idle   int // ticks since a key was last held
	start  int // tick the script started at; -1 while the keys have the player
}

func newAutoPlay(script scene.Script, afterTicks int) autoPlay {
	return autoPlay{script: script, after: afterTicks, start: -1}
}

// input returns the player's input at tick given the keys held, and
// whether the script chose it.
func (a *autoPlay) input(tick int, keys scene.Input) (scene.Input, bool) {
	if keys != (scene.Input{}) {
		a.idle, a.start = 0, -1
		return keys, false
	}
	a.idle++
	if a.after <= 0 || a.idle < a.after || a.script.Len() == 0 {
		return keys, false
	}
	if a.start < 0 {
		a.start = tick
	}
	return a.script.At((tick - a.start) % a.script.Len()), true
}
