package physics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// energy returns the kinetic plus potential energy of the dynamic bodies,
// J, with potential measured along -gravity.
func energy(w *World) float64 {
	e := 0.0
	g := w.cfg.Gravity
	for i := range w.info {
		in := &w.info[i]
		if !in.live || in.typ != Dynamic {
			continue
		}
		m := 1 / in.invMass
		local := w.rot[i].InvRotate(w.angVel[i])
		rot := local.X*local.X/in.invI.X + local.Y*local.Y/in.invI.Y + local.Z*local.Z/in.invI.Z
		e += 0.5*m*w.linVel[i].LengthSq() + 0.5*rot - m*g.Dot(w.pos[i])
	}
	return e
}

// checkManifolds fails on any contact whose cached normal is not a unit
// vector or whose anchors are not finite.
func checkManifolds(t *testing.T, w *World) {
	t.Helper()
	w.eachContact(func(c *contact) {
		a, b := pairSlots(c.key)
		if math.Abs(c.normal.vec().Length()-1) > 1e-6 {
			t.Fatalf("tick %d: pair %d-%d normal %v is not unit", w.Tick(), a, b, c.normal)
		}
		for p := range int(c.count) {
			if !c.anchorA[p].vec().IsFinite() || !c.anchorB[p].vec().IsFinite() {
				t.Fatalf("tick %d: pair %d-%d point %d anchors %v %v", w.Tick(), a, b, p, c.anchorA[p], c.anchorB[p])
			}
		}
	})
}

// TestRandomStacks drops stacks of random boxes: states stay finite,
// normals unit, and once the stack rests its energy never grows.
func TestRandomStacks(t *testing.T) {
	for seed := range uint64(24) {
		rng := rand.New(rand.NewPCG(seed, 7))
		w := newTestWorld(t, nil, 0.3+rng.Float64()*0.6)
		y := 0.0
		total := 0.0
		for range 2 + rng.IntN(5) {
			h := vecmath.V3(0.3+rng.Float64()*0.5, 0.2+rng.Float64()*0.4, 0.3+rng.Float64()*0.5)
			d := DefaultBodyDef()
			d.Shape = collide.Shape{Kind: collide.Box, HalfExtents: h}
			d.Density = 200 + rng.Float64()*800
			d.Friction = 0.3 + rng.Float64()*0.6
			off := 0.15 * min(h.X, h.Z)
			d.Position = vecmath.V3((rng.Float64()*2-1)*off, y+h.Y+rng.Float64()*0.05, (rng.Float64()*2-1)*off)
			d.Rotation = vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), rng.Float64()*0.3)
			y = d.Position.Y + h.Y
			id := mustCreate(t, w, d)
			total += w.Mass(id)
		}
		for range 120 {
			w.Step()
			checkFinite(t, w)
			checkManifolds(t, w)
		}
		e0 := energy(w)
		tol := total * 9.81 * 0.001 // lifting everything by 1 mm
		for range 240 {
			w.Step()
			checkFinite(t, w)
			checkManifolds(t, w)
			if e := energy(w); e > e0+tol {
				t.Fatalf("seed %d tick %d: energy %.6f J grew above %.6f J", seed, w.Tick(), e, e0)
			}
		}
	}
}

// TestRandomBoxPairs throws boxes, spheres and capsules at each other from
// random poses, overlapping or not: nothing ever becomes NaN or Inf.
func TestRandomBoxPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w := newTestWorld(t, nil, 0.5)
	shapes := []collide.Shape{
		{Kind: collide.Box, HalfExtents: vecmath.V3(0.5, 0.2, 0.7)},
		{Kind: collide.Sphere, Radius: 0.4},
		{Kind: collide.Capsule, Radius: 0.3, HalfHeight: 0.5},
	}
	for i := range 60 {
		d := DefaultBodyDef()
		d.Shape = shapes[i%3]
		d.Position = vecmath.V3(rng.Float64()*4-2, 0.5+rng.Float64()*3, rng.Float64()*4-2)
		axis, _ := vecmath.V3(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5).Normalize()
		d.Rotation = vecmath.QuatAxisAngle(axis, rng.Float64()*6)
		d.LinearVelocity = vecmath.V3(rng.Float64()*10-5, rng.Float64()*10-5, rng.Float64()*10-5)
		d.AngularVelocity = vecmath.V3(rng.Float64()*10-5, rng.Float64()*10-5, rng.Float64()*10-5)
		mustCreate(t, w, d)
	}
	for range 300 {
		w.Step()
		checkFinite(t, w)
		checkManifolds(t, w)
	}
}

// quantize snaps every body state to a coarse grid before each step, as
// the network layer does on both sides: 1/1024 m, 1/4096 per quaternion
// component, 1/256 m/s and rad/s; resting bodies stay at rest.
func quantize(w *World) {
	q := func(x, s float64) float64 { return math.Round(x*s) / s }
	qv := func(v vecmath.Vec3, s float64) vecmath.Vec3 { return vecmath.V3(q(v.X, s), q(v.Y, s), q(v.Z, s)) }
	for _, id := range w.Bodies(nil) {
		if w.Type(id) != Dynamic {
			continue
		}
		s := mustState(w, id)
		s.Position = qv(s.Position, 1024)
		s.Rotation = vecmath.Quat{X: q(s.Rotation.X, 4096), Y: q(s.Rotation.Y, 4096), Z: q(s.Rotation.Z, 4096), W: q(s.Rotation.W, 4096)}
		s.LinearVelocity = qv(s.LinearVelocity, 256)
		s.AngularVelocity = qv(s.AngularVelocity, 256)
		if err := w.SetState(id, s); err != nil {
			panic(err)
		}
	}
}

// TestQuantizedEveryStep snaps states every step through SetPreStep: the
// tower still stands (TestQuantizedGrid900 checks the 900 cubes of scene A).
func TestQuantizedEveryStep(t *testing.T) {
	w := newTestWorld(t, nil, 0.6)
	for i := range 20 {
		addCube(t, w, vecmath.V3(0, 0.5+float64(i), 0))
	}
	w.SetPreStep(quantize)
	checkStandsStill(t, w, 240)
}

// TestNoAllocationInSteadyState steps an active scene after warm-up and
// requires zero allocations per step.
func TestNoAllocationInSteadyState(t *testing.T) {
	w := newScriptedWorld(t)
	stepN(w, 60)
	if n := testing.AllocsPerRun(100, w.Step); n != 0 {
		t.Errorf("%v allocations per step, want 0", n)
	}
	var snap Snapshot
	w.Snapshot(&snap)
	if n := testing.AllocsPerRun(20, func() { w.Snapshot(&snap); _ = w.Restore(&snap); w.Step() }); n != 0 {
		t.Errorf("%v allocations per snapshot+restore+step, want 0", n)
	}
}

// TestDepenetrationIsCapped creates cubes overlapping by half their size:
// they separate, but never faster than MaxDepenetrationVelocity (plus the
// speed gravity adds while they do).
func TestDepenetrationIsCapped(t *testing.T) {
	w := newTestWorld(t, nil, 0.6)
	a := addCube(t, w, vecmath.V3(0, 0.5, 0))
	b := addCube(t, w, vecmath.V3(0.5, 0.5, 0))
	c := addCube(t, w, vecmath.V3(0.25, 1.2, 0))
	limit := w.Config().MaxDepenetrationVelocity + 0.2
	for range 240 {
		w.Step()
		for _, id := range []BodyID{a, b, c} {
			if v := mustState(w, id).LinearVelocity.Length(); v > limit {
				t.Fatalf("tick %d: %v separates at %.3f m/s, above %.3f", w.Tick(), id, v, limit)
			}
		}
	}
	if d := mustState(w, b).Position.Sub(mustState(w, a).Position).Length(); d < 0.99 {
		t.Errorf("cubes still overlap: centres %.3f m apart", d)
	}
}
