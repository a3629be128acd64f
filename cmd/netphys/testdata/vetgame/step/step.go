// Package step is an outside game's simulation step, with one mistake of
// each kind netphys vet looks for.
package step

import (
	"math"
	"time"
)

// World is the game's state.
type World struct {
	Pos, Vel map[int]float64
	Angle    float64
	Started  time.Time
}

// Step advances the world by dt seconds.
func (w *World) Step(dt float64) {
	for id, v := range w.Vel {
		w.Pos[id] = v*dt + w.Pos[id]
	}
	w.Angle = math.Sin(w.Angle)
	if w.Started.IsZero() {
		w.Started = time.Now()
	}
}
