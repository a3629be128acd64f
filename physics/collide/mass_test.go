package collide

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

func TestMassProperties(t *testing.T) {
	// A 1 m cube of density 1000: 1000 kg, I = m(1²+1²)/12 on every axis.
	m, i := box(0.5, 0.5, 0.5).MassProperties(1000)
	if !near(m, 1000, 1e-9) || !nearVec(i, vecmath.V3(1000.0/6, 1000.0/6, 1000.0/6), 1e-9) {
		t.Errorf("cube: %v %v", m, i)
	}
	// A 2×4×6 box: I_x = m(4²+6²)/12.
	m, i = box(1, 2, 3).MassProperties(2)
	if !near(m, 96, 1e-9) || !nearVec(i, vecmath.V3(96*52/12.0, 96*40/12.0, 96*20/12.0), 1e-9) {
		t.Errorf("box: %v %v", m, i)
	}
	m, i = ball(2).MassProperties(3)
	wantM := 3 * 4.0 / 3 * math.Pi * 8
	if !near(m, wantM, 1e-9) || !near(i.X, 0.4*wantM*4, 1e-9) || i.X != i.Y || i.Y != i.Z {
		t.Errorf("sphere: %v %v", m, i)
	}
	if m, i := ground.MassProperties(1000); m != 0 || i != (vecmath.Vec3{}) || ground.Volume() != 0 {
		t.Errorf("plane: %v %v", m, i)
	}
	// A capsule with no core is a sphere.
	m, i = capsule(0.7, 0).MassProperties(5)
	ms, is := ball(0.7).MassProperties(5)
	if !near(m, ms, 1e-12) || !nearVec(i, is, 1e-12) {
		t.Errorf("short capsule %v %v, sphere %v %v", m, i, ms, is)
	}
}

// TestCapsuleInertiaBySampling checks the capsule's closed form against a
// Monte Carlo integral over its bounding box.
func TestCapsuleInertiaBySampling(t *testing.T) {
	c := capsule(0.4, 0.6)
	m, inertia := c.MassProperties(1)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 400000
	lo := vecmath.V3(-0.4, -1, -0.4)
	size := vecmath.V3(0.8, 2, 0.8)
	vol := size.X * size.Y * size.Z
	var sm float64
	var si vecmath.Vec3
	for range n {
		p := lo.Add(vecmath.V3(rng.Float64(), rng.Float64(), rng.Float64()).Mul(size))
		q := closestOnSegment(p, vecmath.V3(0, -0.6, 0), vecmath.V3(0, 0.6, 0))
		if p.Sub(q).Length() > 0.4 {
			continue
		}
		sm++
		si = si.Add(vecmath.V3(p.Y*p.Y+p.Z*p.Z, p.X*p.X+p.Z*p.Z, p.X*p.X+p.Y*p.Y))
	}
	mcMass := sm / n * vol
	mcI := si.Scale(vol / n)
	if !near(mcMass, m, 0.01*m) || !nearVec(mcI, inertia, 0.01*inertia.X) {
		t.Errorf("closed form %v %v, sampled %v %v", m, inertia, mcMass, mcI)
	}
	if !near(c.Volume(), m, 1e-12) {
		t.Errorf("volume %v, mass at density 1 %v", c.Volume(), m)
	}
}

func TestBounds(t *testing.T) {
	xf := atRot(1, 2, 3, vecmath.V3(0, 0, 1), math.Pi/4)
	lo, hi, ok := box(0.5, 0.5, 0.5).Bounds(xf)
	r := math.Sqrt2 / 2
	if !ok || !nearVec(lo, vecmath.V3(1-r, 2-r, 2.5), 1e-12) || !nearVec(hi, vecmath.V3(1+r, 2+r, 3.5), 1e-12) {
		t.Errorf("box: %v %v", lo, hi)
	}
	lo, hi, ok = capsule(0.5, 1).Bounds(xf)
	if !ok || !nearVec(lo, vecmath.V3(1-r-0.5, 2-r-0.5, 2.5), 1e-12) || !nearVec(hi, vecmath.V3(1+r+0.5, 2+r+0.5, 3.5), 1e-12) {
		t.Errorf("capsule: %v %v", lo, hi)
	}
	lo, hi, ok = ball(2).Bounds(xf)
	if !ok || lo != vecmath.V3(-1, 0, 1) || hi != vecmath.V3(3, 4, 5) {
		t.Errorf("sphere: %v %v", lo, hi)
	}
	if _, _, ok := ground.Bounds(xf); ok {
		t.Error("plane has bounds")
	}
}
