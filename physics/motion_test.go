package physics

import (
	"math"
	"testing"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// TestFreeFallExact checks the integrator against its closed form. With a
// step of 1/64 s, 4 substeps and g = 8 m/s² every quantity is a dyadic
// rational, so the closed form holds bit for bit: after M substeps of
// h = 1/256 s, v = -g·h·M and y = y0 - g·h²·M(M+1)/2 (semi-implicit
// Euler: velocity first, then position).
func TestFreeFallExact(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TimeStep = 1.0 / 64
	cfg.Substeps = 4
	cfg.Gravity = vecmath.V3(0, -8, 0)
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultBodyDef()
	d.Position = vecmath.V3(1, 100, -2)
	id, err := w.CreateBody(d)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 200; n++ {
		w.Step()
		m := float64(4 * n)
		h := 1.0 / 256
		wantV := -8 * h * m
		wantY := 100 - 8*h*h*m*(m+1)/2
		s := mustState(w, id)
		if s.LinearVelocity != vecmath.V3(0, wantV, 0) || s.Position != vecmath.V3(1, wantY, -2) {
			t.Fatalf("step %d: p %v v %v, want y %v v %v", n, s.Position, s.LinearVelocity, wantY, wantV)
		}
		if s.Rotation != vecmath.QuatIdentity || s.AtRest {
			t.Fatalf("step %d: rotation %v at rest %v", n, s.Rotation, s.AtRest)
		}
	}
}

// TestFreeFallDefault checks the default configuration against the same
// closed form to rounding error.
func TestFreeFallDefault(t *testing.T) {
	cfg := DefaultConfig()
	w, _ := NewWorld(cfg)
	d := DefaultBodyDef()
	d.Position = vecmath.V3(0, 50, 0)
	d.LinearVelocity = vecmath.V3(2, 3, 0)
	id, _ := w.CreateBody(d)
	stepN(w, 120)
	m := float64(120 * cfg.Substeps)
	h := cfg.TimeStep / float64(cfg.Substeps)
	g := -cfg.Gravity.Y
	wantY := 50 + 3*h*m - g*h*h*m*(m+1)/2
	s := mustState(w, id)
	if math.Abs(s.Position.Y-wantY) > 1e-9 || math.Abs(s.Position.X-2*h*m) > 1e-9 {
		t.Errorf("position %v, want x %v y %v", s.Position, 2*h*m, wantY)
	}
}

// TestSlidingBoxStopsAtCoulombDistance launches a box along the ground
// and compares where it stops with v²/(2μg).
func TestSlidingBoxStopsAtCoulombDistance(t *testing.T) {
	for _, c := range []struct{ v0, mu float64 }{{5, 0.5}, {3, 0.3}, {8, 0.8}} {
		w := newTestWorld(t, nil, c.mu)
		d := DefaultBodyDef()
		d.Friction = c.mu
		d.Position = vecmath.V3(0, 0.5, 0)
		d.LinearVelocity = vecmath.V3(c.v0*0.8, 0, c.v0*0.6) // not along a tangent axis
		id, _ := w.CreateBody(d)
		stepN(w, 600)
		s := mustState(w, id)
		want := c.v0 * c.v0 / (2 * c.mu * 9.81)
		got := vecmath.V3(s.Position.X, 0, s.Position.Z).Length()
		if math.Abs(got-want) > 0.03*want {
			t.Errorf("v0 %v μ %v: stopped after %.4f m, want %.4f ± 3%%", c.v0, c.mu, got, want)
		}
		if !s.AtRest {
			t.Errorf("v0 %v μ %v: box still moving: %+v", c.v0, c.mu, s)
		}
	}
}

// TestSlope puts a box on planes tilted above and below its friction
// angle atan(μ) = 26.6° for μ = 0.5.
func TestSlope(t *testing.T) {
	for _, c := range []struct {
		deg    float64
		slides bool
	}{{35, true}, {30, true}, {20, false}, {10, false}} {
		cfg := DefaultConfig()
		w, _ := NewWorld(cfg)
		tilt := vecmath.QuatAxisAngle(vecmath.V3(0, 0, 1), c.deg*math.Pi/180)
		g := DefaultBodyDef()
		g.Type = Static
		g.Shape = collide.Shape{Kind: collide.Plane}
		g.Rotation = tilt
		g.Friction = 0.5
		w.CreateBody(g)
		d := DefaultBodyDef()
		d.Friction = 0.5
		d.Rotation = tilt
		d.Position = tilt.Rotate(vecmath.V3(0, 0.5, 0))
		id, _ := w.CreateBody(d)
		start := mustState(w, id).Position
		stepN(w, 120)
		moved := mustState(w, id).Position.Sub(start).Length()
		if c.slides && moved < 0.5 {
			t.Errorf("%v°: moved %.4f m in 2 s, want it to slide", c.deg, moved)
		}
		if !c.slides && moved > 0.01 {
			t.Errorf("%v°: moved %.4f m in 2 s, want it to stay", c.deg, moved)
		}
	}
}

// TestDampingSlowsDown checks the implicit damping law v/(1+h·c) per
// substep on a body in zero gravity.
func TestDampingSlowsDown(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Gravity = vecmath.Vec3{}
	w, _ := NewWorld(cfg)
	d := DefaultBodyDef()
	d.LinearVelocity = vecmath.V3(10, 0, 0)
	d.AngularVelocity = vecmath.V3(0, 4, 0)
	d.LinearDamping, d.AngularDamping = 0.5, 2
	id, _ := w.CreateBody(d)
	stepN(w, 60)
	h := cfg.TimeStep / float64(cfg.Substeps)
	n := float64(60 * cfg.Substeps)
	s := mustState(w, id)
	if want := 10 * math.Pow(1/(1+h*0.5), n); math.Abs(s.LinearVelocity.X-want) > 1e-9 {
		t.Errorf("linear %v, want %v", s.LinearVelocity.X, want)
	}
	if want := 4 * math.Pow(1/(1+h*2), n); math.Abs(s.AngularVelocity.Y-want) > 1e-9 {
		t.Errorf("angular %v, want %v", s.AngularVelocity.Y, want)
	}
}
