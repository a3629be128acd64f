package physics

import (
	"errors"
	"math"
	"testing"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

func TestNewWorldRejectsBadConfig(t *testing.T) {
	for name, edit := range map[string]func(*Config){
		"zero step":      func(c *Config) { c.TimeStep = 0 },
		"NaN gravity":    func(c *Config) { c.Gravity.Y = math.NaN() },
		"no substeps":    func(c *Config) { c.Substeps = 0 },
		"short ring":     func(c *Config) { c.SleepFrames = 1 },
		"negative hist":  func(c *Config) { c.HistoryTicks = -1 },
		"inf push":       func(c *Config) { c.MaxDepenetrationVelocity = math.Inf(1) },
		"zero cell":      func(c *Config) { c.CellSize = 0 },
		"negative slack": func(c *Config) { c.ContactMargin = -1 },
	} {
		cfg := DefaultConfig()
		edit(&cfg)
		if _, err := NewWorld(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err %v, want ErrConfig", name, err)
		}
	}
}

func TestCreateBodyRejectsBadDefs(t *testing.T) {
	w := newTestWorld(t, nil, 0.6)
	for name, c := range map[string]struct {
		edit func(*BodyDef)
		err  error
	}{
		"NaN position":    {func(d *BodyDef) { d.Position.X = math.NaN() }, ErrNotFinite},
		"inf velocity":    {func(d *BodyDef) { d.LinearVelocity.Z = math.Inf(-1) }, ErrNotFinite},
		"zero rotation":   {func(d *BodyDef) { d.Rotation = vecmath.Quat{} }, ErrBodyDef},
		"flat box":        {func(d *BodyDef) { d.Shape.HalfExtents.Y = 0 }, ErrBodyDef},
		"NaN radius":      {func(d *BodyDef) { d.Shape = collide.Shape{Kind: collide.Sphere, Radius: math.NaN()} }, ErrBodyDef},
		"dynamic plane":   {func(d *BodyDef) { d.Shape = collide.Shape{Kind: collide.Plane} }, ErrBodyDef},
		"negative mass":   {func(d *BodyDef) { d.Mass = -1 }, ErrBodyDef},
		"no density":      {func(d *BodyDef) { d.Density = 0 }, ErrBodyDef},
		"bouncy":          {func(d *BodyDef) { d.Restitution = 1.5 }, ErrBodyDef},
		"moving static":   {func(d *BodyDef) { d.Type = Static; d.LinearVelocity.X = 1 }, ErrBodyDef},
		"unknown type":    {func(d *BodyDef) { d.Type = 7 }, ErrBodyDef},
		"unknown shape":   {func(d *BodyDef) { d.Shape.Kind = 9 }, ErrBodyDef},
		"negative radius": {func(d *BodyDef) { d.Shape = collide.Shape{Kind: collide.Capsule, Radius: -1} }, ErrBodyDef},
	} {
		d := DefaultBodyDef()
		c.edit(&d)
		if _, err := w.CreateBody(d); !errors.Is(err, c.err) {
			t.Errorf("%s: err %v, want %v", name, err, c.err)
		}
	}
	if n := len(w.Bodies(nil)); n != 1 {
		t.Errorf("%d bodies after only failed creates, want the ground alone", n)
	}
}

func TestBodyHandlesAndSlots(t *testing.T) {
	w := newTestWorld(t, nil, 0.6)
	d := DefaultBodyDef()
	d.UserData = 42
	d.Mass = 3
	a := mustCreate(t, w, d)
	if w.UserData(a) != 42 || w.Type(a) != Dynamic || math.Abs(w.Mass(a)-3) > 1e-12 || w.Shape(a) != d.Shape {
		t.Errorf("getters: %v %v %v %v", w.UserData(a), w.Type(a), w.Mass(a), w.Shape(a))
	}
	if err := w.DestroyBody(a); err != nil {
		t.Fatal(err)
	}
	if err := w.DestroyBody(a); !errors.Is(err, ErrInvalidBody) {
		t.Errorf("second destroy: %v, want ErrInvalidBody", err)
	}
	b := mustCreate(t, w, d)
	if b.Index() != a.Index() || b == a || w.Valid(a) || !w.Valid(b) {
		t.Errorf("slot reuse: a %v b %v valid %v %v", a, b, w.Valid(a), w.Valid(b))
	}
	if err := w.SetState(a, BodyState{Rotation: vecmath.QuatIdentity}); !errors.Is(err, ErrInvalidBody) {
		t.Errorf("SetState on a stale handle: %v", err)
	}
	if _, err := w.State(a); !errors.Is(err, ErrInvalidBody) || !(BodyID{}).IsZero() {
		t.Errorf("State on a stale handle: %v, want ErrInvalidBody", err)
	}
	one := vecmath.V3(1, 0, 0)
	for name, err := range map[string]error{
		"force":       w.ApplyForce(a, one),
		"force@point": w.ApplyForceAtPoint(a, one, one),
		"impulse":     w.ApplyImpulse(a, one),
		"torque":      w.ApplyTorque(a, one),
		"zero handle": w.ApplyForce(BodyID{}, one),
	} {
		if !errors.Is(err, ErrInvalidBody) {
			t.Errorf("%s on a stale handle: %v, want ErrInvalidBody", name, err)
		}
	}
	if err := w.ApplyImpulse(b, vecmath.V3(math.Inf(1), 0, 0)); !errors.Is(err, ErrNotFinite) {
		t.Errorf("infinite impulse: %v, want ErrNotFinite", err)
	}
	if err := w.SetState(b, BodyState{Position: vecmath.V3(math.NaN(), 0, 0), Rotation: vecmath.QuatIdentity}); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN state: %v, want ErrNotFinite", err)
	}
}

// TestSleepAndWake checks the rest rules: a cube comes to rest, a force,
// an impulse, a torque, a moving SetState and a touching body wake it, and
// a resting SetState does not.
func TestSleepAndWake(t *testing.T) {
	w := newTestWorld(t, nil, 0.6)
	cube := addCube(t, w, vecmath.V3(0, 0.5, 0))
	settle := func() {
		t.Helper()
		stepN(w, 40)
		if !mustState(w, cube).AtRest {
			t.Fatalf("cube not at rest: %+v", mustState(w, cube))
		}
	}
	settle()
	wakers := map[string]func() error{
		"force":       func() error { return w.ApplyForce(cube, vecmath.V3(1, 0, 0)) },
		"force@point": func() error { return w.ApplyForceAtPoint(cube, vecmath.V3(1, 0, 0), vecmath.V3(0, 1, 0)) },
		"impulse":     func() error { return w.ApplyImpulse(cube, vecmath.V3(0.1, 0, 0)) },
		"torque":      func() error { return w.ApplyTorque(cube, vecmath.V3(0, 1, 0)) },
		"moving state": func() error {
			s := mustState(w, cube)
			s.LinearVelocity, s.AtRest = vecmath.V3(0, 0.1, 0), false
			return w.SetState(cube, s)
		},
	}
	for _, name := range []string{"force", "force@point", "impulse", "torque", "moving state"} {
		if err := wakers[name](); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if mustState(w, cube).AtRest {
			t.Errorf("%s did not wake the cube", name)
		}
		settle()
	}
	if err := w.ApplyForce(cube, vecmath.Vec3{}); err != nil {
		t.Fatal(err)
	}
	if !mustState(w, cube).AtRest {
		t.Error("a zero force woke the cube")
	}
	// A resting state moves the body without waking it.
	s := mustState(w, cube)
	s.Position.X += 0.001
	if err := w.SetState(cube, s); err != nil {
		t.Fatal(err)
	}
	w.Step()
	if got := mustState(w, cube); !got.AtRest || got.Position != s.Position {
		t.Errorf("resting SetState woke or moved the cube: %+v", got)
	}
	// A cube dropped on it wakes it.
	other := addCube(t, w, vecmath.V3(0.001, 2, 0))
	woke := false
	for range 30 {
		w.Step()
		woke = woke || !mustState(w, cube).AtRest
	}
	if !woke {
		t.Error("a falling cube did not wake the one it landed on")
	}
	stepN(w, 60)
	if !mustState(w, cube).AtRest || !mustState(w, other).AtRest {
		t.Error("the pair did not come to rest again")
	}
}

// TestIslandWakesAsOne pushes the top cube of a resting tower: every cube
// of the tower wakes with it.
func TestIslandWakesAsOne(t *testing.T) {
	w := newTestWorld(t, nil, 0.6)
	var ids []BodyID
	for i := range 6 {
		ids = append(ids, addCube(t, w, vecmath.V3(0, 0.5+float64(i), 0)))
	}
	stepN(w, 90)
	for _, id := range ids {
		if !mustState(w, id).AtRest {
			t.Fatalf("%v not at rest", id)
		}
	}
	w.ApplyImpulse(ids[5], vecmath.V3(0.01, 0, 0))
	for _, id := range ids {
		if mustState(w, id).AtRest {
			t.Errorf("%v still at rest after its island was pushed", id)
		}
	}
	stepN(w, 90)
	for _, id := range ids {
		if !mustState(w, id).AtRest {
			t.Errorf("%v did not rest again", id)
		}
	}
	// Destroying the bottom cube wakes the rest, which fall.
	if err := w.DestroyBody(ids[0]); err != nil {
		t.Fatal(err)
	}
	stepN(w, 90)
	if y := mustState(w, ids[1]).Position.Y; math.Abs(y-0.5) > 0.02 {
		t.Errorf("second cube at %.3f m after the bottom one vanished, want 0.5", y)
	}
}

func TestTouchingAndKinematicPush(t *testing.T) {
	w := newTestWorld(t, nil, 0.6)
	cube := addCube(t, w, vecmath.V3(0, 0.5, 0))
	k := DefaultBodyDef()
	k.Type = Kinematic
	k.Position = vecmath.V3(-3, 0.5, 0)
	k.LinearVelocity = vecmath.V3(2, 0, 0)
	pusher := mustCreate(t, w, k)
	stepN(w, 90)
	if x := mustState(w, cube).Position.X; x < 0.5 {
		t.Errorf("kinematic body did not push the cube: x = %.3f", x)
	}
	if p := mustState(w, pusher).Position.X; math.Abs(p) > 1e-9 {
		t.Errorf("kinematic body at %v, want 0 (it moves at its velocity)", p)
	}
	pairs := 0
	w.Touching(func(a, b BodyID) {
		if (a == cube || b == cube) && (a == pusher || b == pusher) {
			pairs++
		}
	})
	if pairs != 1 {
		t.Errorf("cube and pusher reported touching %d times, want 1", pairs)
	}
}
