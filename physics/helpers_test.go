package physics

import (
	"testing"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// newTestWorld returns a world with cfg (DefaultConfig if nil) and a ground
// plane through the origin with the given friction.
func newTestWorld(t testing.TB, cfg *Config, friction float64) *World {
	t.Helper()
	c := DefaultConfig()
	if cfg != nil {
		c = *cfg
	}
	w, err := NewWorld(c)
	if err != nil {
		t.Fatal(err)
	}
	g := DefaultBodyDef()
	g.Type = Static
	g.Shape = collide.Shape{Kind: collide.Plane}
	g.Friction = friction
	if _, err := w.CreateBody(g); err != nil {
		t.Fatal(err)
	}
	return w
}

// addCube adds a dynamic 1 m cube of 1 kg at p.
func addCube(t testing.TB, w *World, p vecmath.Vec3) BodyID {
	t.Helper()
	d := DefaultBodyDef()
	d.Mass = 1
	d.Position = p
	id, err := w.CreateBody(d)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func stepN(w *World, n int) {
	for range n {
		w.Step()
	}
}

// dynamicBodies returns the live dynamic bodies.
func dynamicBodies(w *World) []BodyID {
	var out []BodyID
	for _, id := range w.Bodies(nil) {
		if w.Type(id) == Dynamic {
			out = append(out, id)
		}
	}
	return out
}

// checkFinite fails if any body state holds NaN or Inf.
func checkFinite(t testing.TB, w *World) {
	t.Helper()
	for _, id := range w.Bodies(nil) {
		s := mustState(w, id)
		if !s.Position.IsFinite() || !s.Rotation.IsFinite() || !s.LinearVelocity.IsFinite() || !s.AngularVelocity.IsFinite() {
			t.Fatalf("tick %d: %v has a non-finite state %+v", w.Tick(), id, s)
		}
	}
}

// mustState returns the state of a body the test knows to be live.
func mustState(w *World, id BodyID) BodyState {
	s, err := w.State(id)
	if err != nil {
		panic(err)
	}
	return s
}
