package statesync

import (
	"testing"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
)

func TestAccumulatorOrdersAndResets(t *testing.T) {
	a := newAccumulator(4)
	factors := []float64{1, 1e6, -1, 2}
	for range 3 {
		a.accumulate(func(i int) float64 { return factors[i] })
	}
	got := a.candidates()
	if len(got) != 3 || got[0] != 1 || got[1] != 3 || got[2] != 0 {
		t.Fatalf("order %v, want [1 3 0]: the held object 2 is never a candidate", got)
	}
	a.sent(1)
	a.accumulate(func(i int) float64 { return factors[i] })
	if got := a.candidates(); got[0] != 1 || a.acc[1] != 1e6 || a.acc[3] != 8 || a.acc[2] != -1 {
		t.Fatalf("after sending 1: %v %v", got, a.acc)
	}
}

func TestJitterBufferPlaysBackDelayedAndInterpolates(t *testing.T) {
	var j jitterBuffer
	at := func(x float64) Avatar {
		var a Avatar
		a.Parts[0].Pose = vecmath.Transform{Pos: vecmath.V3(x, 0, 0), Rot: vecmath.QuatIdentity}
		a.Parts[1].Pose, a.Parts[2].Pose = a.Parts[0].Pose, a.Parts[0].Pose
		return a
	}
	// Samples every other step: playback six steps behind interpolates
	// the steps in between.
	for k := 0; k <= 20; k += 2 {
		j.push(float64(k), at(float64(k)))
	}
	a, ok := j.next(6)
	if !ok || a.Parts[0].Pose.Pos.X != 14 {
		t.Fatalf("first playback at %v, want 20-6", a.Parts[0].Pose.Pos.X)
	}
	j.push(22, at(22)) // the target moves on by 2: playback catches up
	if a, _ = j.next(6); a.Parts[0].Pose.Pos.X != 16 {
		t.Fatalf("caught up to %v, want 22-6", a.Parts[0].Pose.Pos.X)
	}
	if a, _ = j.next(6); a.Parts[0].Pose.Pos.X != 17 {
		t.Fatalf("interpolated at %v, want 17 between the samples of 16 and 18", a.Parts[0].Pose.Pos.X)
	}
	// A burst of loss: nothing for 20 steps, then samples again. Playback
	// holds at the newest sample, then catches up without jumping.
	for range 20 {
		a, _ = j.next(6)
	}
	if a.Parts[0].Pose.Pos.X != 22 {
		t.Fatalf("held at %v, want the newest 22", a.Parts[0].Pose.Pos.X)
	}
	for k := 40; k <= 60; k += 2 {
		j.push(float64(k), at(float64(k)))
	}
	prev := a.Parts[0].Pose.Pos.X
	for range 30 {
		a, _ = j.next(6)
		if d := a.Parts[0].Pose.Pos.X - prev; d < 0 || d > 2 {
			t.Fatalf("playback stepped by %v", d)
		}
		prev = a.Parts[0].Pose.Pos.X
	}
	if prev < 54 || prev > 60 {
		t.Fatalf("caught up to %v, want at least 60-6 and never past the newest", prev)
	}
}

func TestSmoothingConvergesToTheSimulation(t *testing.T) {
	cfg := DefaultConfig()
	s := newSmoother(&cfg, 1)
	before := physics.BodyState{Position: vecmath.V3(0, 1, 0), Rotation: vecmath.QuatIdentity}
	after := physics.BodyState{Position: vecmath.V3(0.5, 1, 0), Rotation: vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), 0.4)}
	if !s.correct(0, before, after) {
		t.Fatal("a 50 cm correction is a pop")
	}
	sim := vecmath.Transform{Pos: after.Position, Rot: after.Rotation}
	r := s.render(0, sim)
	if r.Pos.Sub(before.Position).Length() > 1e-12 || r.Rot.Angle(before.Rotation) > 1e-9 {
		t.Fatalf("the first frame after the correction moved: %v", r)
	}
	last := r.Pos.Sub(sim.Pos).Length()
	for k := range 300 {
		s.step()
		e := s.render(0, sim).Pos.Sub(sim.Pos).Length()
		if e > last || (k == 60 && e > 0.02) {
			t.Fatalf("step %d: error %v after %v", k, e, last)
		}
		last = e
	}
	if r := s.render(0, sim); r.Pos != sim.Pos || r.Rot != sim.Rot.Mul(vecmath.QuatIdentity).Normalize() {
		t.Fatalf("after five seconds the render is at %v, the simulation at %v", r, sim)
	}
}
