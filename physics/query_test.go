package physics

import (
	"math"
	"slices"
	"testing"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// queryScene is a hand-built scene with known answers: a ground plane in
// layer 1, a static box at x = 5 (layer 2), a sphere at x = 10 (layer 4)
// and a capsule standing at x = 15 (layer 1). Gravity is off so nothing
// moves unless a test moves it.
func queryScene(t *testing.T) (w *World, ground, box, ball, capsule BodyID) {
	cfg := DefaultConfig()
	cfg.Gravity = vecmath.Vec3{}
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := DefaultBodyDef()
	g.Type = Static
	g.Shape = collide.Shape{Kind: collide.Plane}
	ground = mustCreate(t, w, g)
	b := DefaultBodyDef()
	b.Type = Static
	b.Position = vecmath.V3(5, 1, 0)
	b.Layers = 2
	box = mustCreate(t, w, b)
	s := DefaultBodyDef()
	s.Shape = collide.Shape{Kind: collide.Sphere, Radius: 1}
	s.Position = vecmath.V3(10, 1, 0)
	s.Layers = 4
	ball = mustCreate(t, w, s)
	c := DefaultBodyDef()
	c.Type = Kinematic
	c.Shape = collide.Shape{Kind: collide.Capsule, Radius: 0.5, HalfHeight: 1}
	c.Position = vecmath.V3(15, 1.5, 0)
	capsule = mustCreate(t, w, c)
	return w, ground, box, ball, capsule
}

func near(a, b vecmath.Vec3) bool { return a.Sub(b).Length() < 1e-6 }

func TestRayCast(t *testing.T) {
	w, ground, box, ball, capsule := queryScene(t)
	along := vecmath.V3(20, 0, 0)
	origin := vecmath.V3(0, 1, 0)
	hit, ok := w.RayCast(origin, along, QueryFilter{})
	if !ok || hit.Body != box || math.Abs(hit.Fraction-4.5/20) > 1e-9 || !near(hit.Point, vecmath.V3(4.5, 1, 0)) || !near(hit.Normal, vecmath.V3(-1, 0, 0)) {
		t.Errorf("ray along x: %+v %v, want the box at x = 4.5", hit, ok)
	}
	// Layer mask 4 sees only the ball; ignoring the box finds the ball too.
	for _, f := range []QueryFilter{{Mask: 4}, {Ignore: []BodyID{box}}} {
		hit, ok = w.RayCast(origin, along, f)
		if !ok || hit.Body != ball || !near(hit.Point, vecmath.V3(9, 1, 0)) {
			t.Errorf("filter %+v: %+v %v, want the ball at x = 9", f, hit, ok)
		}
	}
	hit, ok = w.RayCast(origin, along, QueryFilter{Ignore: []BodyID{box, ball}})
	if !ok || hit.Body != capsule || !near(hit.Point, vecmath.V3(14.5, 1, 0)) {
		t.Errorf("ignoring box and ball: %+v %v, want the capsule at x = 14.5", hit, ok)
	}
	hit, ok = w.RayCast(vecmath.V3(2, 3, 0), vecmath.V3(0, -10, 0), QueryFilter{})
	if !ok || hit.Body != ground || !near(hit.Point, vecmath.V3(2, 0, 0)) || !near(hit.Normal, vecmath.V3(0, 1, 0)) {
		t.Errorf("ray down: %+v %v, want the ground at y = 0", hit, ok)
	}
	if hit, ok := w.RayCast(vecmath.V3(0, 5, 0), vecmath.V3(20, 0, 0), QueryFilter{}); ok {
		t.Errorf("ray above everything hit %+v", hit)
	}
	if _, ok := w.RayCast(origin, along, QueryFilter{Mask: 8}); ok {
		t.Error("ray with an empty layer hit something")
	}
}

func TestSphereAndCapsuleCast(t *testing.T) {
	w, _, box, ball, capsule := queryScene(t)
	hit, ok := w.SphereCast(vecmath.V3(0, 1, 0), 0.5, vecmath.V3(20, 0, 0), QueryFilter{})
	if !ok || hit.Body != box || math.Abs(hit.Fraction-4/20.0) > 1e-6 || !near(hit.Normal, vecmath.V3(-1, 0, 0)) {
		t.Errorf("sphere cast: %+v %v, want the box at fraction 0.2", hit, ok)
	}
	hit, ok = w.SphereCast(vecmath.V3(0, 1, 0), 0.5, vecmath.V3(20, 0, 0), QueryFilter{Ignore: []BodyID{box}})
	if !ok || hit.Body != ball || math.Abs(hit.Fraction-8.5/20) > 1e-6 {
		t.Errorf("sphere cast past the box: %+v %v, want the ball at fraction %v", hit, ok, 8.5/20)
	}
	// A horizontal capsule along z swept along x hits the capsule body.
	hit, ok = w.CapsuleCast(vecmath.V3(12, 2, -1), vecmath.V3(12, 2, 1), 0.25, vecmath.V3(5, 0, 0), QueryFilter{})
	if !ok || hit.Body != capsule || math.Abs(hit.Fraction-2.25/5) > 1e-5 {
		t.Errorf("capsule cast: %+v %v, want the capsule at fraction %v", hit, ok, 2.25/5)
	}
	if hit, ok := w.SphereCast(vecmath.V3(0, 4, 0), 0.5, vecmath.V3(20, 0, 0), QueryFilter{}); ok {
		t.Errorf("high sphere cast hit %+v", hit)
	}
}

func TestOverlaps(t *testing.T) {
	w, ground, box, ball, capsule := queryScene(t)
	got := w.OverlapSphere(vecmath.V3(7.5, 1, 0), 2.05, QueryFilter{}, nil)
	if want := []BodyID{ground, box, ball}; !slices.Equal(got, want) {
		t.Errorf("sphere overlap: %v, want %v", got, want)
	}
	got = w.OverlapSphere(vecmath.V3(7.5, 1, 0), 2.05, QueryFilter{Mask: 2 | 4}, got)
	if want := []BodyID{box, ball}; !slices.Equal(got, want) {
		t.Errorf("masked sphere overlap: %v, want %v", got, want)
	}
	got = w.OverlapBox(vecmath.V3(12.5, 1.5, 0), vecmath.QuatIdentity, vecmath.V3(2.1, 0.4, 0.4), QueryFilter{}, got)
	if want := []BodyID{ball, capsule}; !slices.Equal(got, want) {
		t.Errorf("box overlap: %v, want %v", got, want)
	}
	got = w.OverlapCapsule(vecmath.V3(4, 4.4, 0), vecmath.V3(16, 4.4, 0), 3, QueryFilter{Ignore: []BodyID{ground}}, got)
	if want := []BodyID{box, ball, capsule}; !slices.Equal(got, want) {
		t.Errorf("capsule overlap: %v, want %v", got, want)
	}
	if got = w.OverlapCapsule(vecmath.V3(4, 4.4, 0), vecmath.V3(16, 4.4, 0), 1, QueryFilter{Ignore: []BodyID{ground}}, got); len(got) != 0 {
		t.Errorf("thin capsule overlap: %v, want none", got)
	}
}

// TestHistoryQueries moves a kinematic box and checks that queries with
// TicksBehind see it where it was.
func TestHistoryQueries(t *testing.T) {
	cfg := DefaultConfig()
	cfg.HistoryTicks = 10
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultBodyDef()
	d.Type = Kinematic
	d.LinearVelocity = vecmath.V3(6, 0, 0) // 0.1 m per tick
	mover := mustCreate(t, w, d)
	stepN(w, 20)
	// Now at x = 2.0; n ticks ago at 2.0 - 0.1 n.
	for _, n := range []int{0, 1, 5, 10} {
		x := 2 - 0.1*float64(n)
		f := QueryFilter{TicksBehind: n}
		hit, ok := w.RayCast(vecmath.V3(-5, 0, 0), vecmath.V3(10, 0, 0), f)
		if !ok || hit.Body != mover || math.Abs(hit.Point.X-(x-0.5)) > 1e-9 {
			t.Errorf("%d ticks behind: ray %+v %v, want the box face at x = %v", n, hit, ok, x-0.5)
		}
		got := w.OverlapSphere(vecmath.V3(x, 0, 0), 0.1, f, nil)
		if len(got) != 1 || got[0] != mover {
			t.Errorf("%d ticks behind: overlap at the old centre %v, want the box", n, got)
		}
		if n == 10 {
			if got := w.OverlapSphere(vecmath.V3(2, 0, 0), 0.1, f, nil); len(got) != 0 {
				t.Errorf("%d ticks behind: overlap at the current centre found %v", n, got)
			}
		}
	}
	// Beyond the window, and before a Restore, the past is unknown: no hits.
	if _, ok := w.RayCast(vecmath.V3(-5, 0, 0), vecmath.V3(10, 0, 0), QueryFilter{TicksBehind: 11}); ok {
		t.Error("query beyond the history window hit")
	}
	var snap Snapshot
	w.Snapshot(&snap)
	if err := w.Restore(&snap); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.RayCast(vecmath.V3(-5, 0, 0), vecmath.V3(10, 0, 0), QueryFilter{TicksBehind: 1}); ok {
		t.Error("history query into the time before a Restore hit")
	}
	w.Step()
	if hit, ok := w.RayCast(vecmath.V3(-5, 0, 0), vecmath.V3(10, 0, 0), QueryFilter{TicksBehind: 1}); !ok || math.Abs(hit.Point.X-1.5) > 1e-9 {
		t.Errorf("history query of the restored tick: %+v %v, want the face at x = 1.5", hit, ok)
	}
	// A body destroyed since is not seen in the past either.
	if err := w.DestroyBody(mover); err != nil {
		t.Fatal(err)
	}
	if got := w.OverlapSphere(vecmath.V3(2, 0, 0), 1, QueryFilter{TicksBehind: 1}, nil); len(got) != 0 {
		t.Errorf("destroyed body seen in the past: %v", got)
	}
}

// TestCapsuleBetween checks that the capsule placed between two points has
// its core segment exactly there, for any direction including straight
// down and a point.
func TestCapsuleBetween(t *testing.T) {
	for _, c := range [][2]vecmath.Vec3{
		{vecmath.V3(0, 0, 0), vecmath.V3(0, 2, 0)},
		{vecmath.V3(1, 5, 1), vecmath.V3(1, 1, 1)},
		{vecmath.V3(-1, 2, 3), vecmath.V3(4, -2, 0.5)},
		{vecmath.V3(0, 0, -3), vecmath.V3(0, 0, 3)},
		{vecmath.V3(2, 2, 2), vecmath.V3(2, 2, 2)},
	} {
		s, xf := capsuleBetween(c[0], c[1], 0.5)
		top := xf.Apply(vecmath.V3(0, s.HalfHeight, 0))
		bottom := xf.Apply(vecmath.V3(0, -s.HalfHeight, 0))
		if !near(top, c[1]) || !near(bottom, c[0]) {
			t.Errorf("%v..%v: capsule core %v..%v", c[0], c[1], bottom, top)
		}
	}
}
