package collide

import (
	"flag"
	"math"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// soak multiplies the iterations of the random property tests, for a
// longer search than the default fast run: go test -args -soak=50.
var soak = flag.Int("soak", 1, "multiply the random property tests' iterations")

func box(hx, hy, hz float64) *Shape {
	return &Shape{Kind: Box, HalfExtents: vecmath.V3(hx, hy, hz)}
}

func ball(r float64) *Shape { return &Shape{Kind: Sphere, Radius: r} }

func capsule(r, hh float64) *Shape { return &Shape{Kind: Capsule, Radius: r, HalfHeight: hh} }

var ground = &Shape{Kind: Plane}

func at(x, y, z float64) vecmath.Transform {
	return vecmath.Transform{Pos: vecmath.V3(x, y, z), Rot: vecmath.QuatIdentity}
}

func atRot(x, y, z float64, axis vecmath.Vec3, angle float64) vecmath.Transform {
	a, _ := axis.Normalize()
	return vecmath.Transform{Pos: vecmath.V3(x, y, z), Rot: vecmath.QuatAxisAngle(a, angle)}
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func nearVec(a, b vecmath.Vec3, tol float64) bool {
	return near(a.X, b.X, tol) && near(a.Y, b.Y, tol) && near(a.Z, b.Z, tol)
}

// collide runs Collide with a 2 cm margin.
func collide(a *Shape, xa vecmath.Transform, b *Shape, xb vecmath.Transform) Manifold {
	var m Manifold
	Collide(a, xa, b, xb, 0.02, &m)
	return m
}

// checkManifold asserts the invariants every manifold keeps.
func checkManifold(t *testing.T, m *Manifold, margin float64) {
	t.Helper()
	if m.Count < 0 || m.Count > MaxManifoldPoints {
		t.Fatalf("count %d", m.Count)
	}
	if m.Count == 0 {
		return
	}
	if !m.Normal.IsFinite() || !near(m.Normal.Length(), 1, 1e-9) {
		t.Fatalf("normal %v not unit", m.Normal)
	}
	seen := map[uint32]bool{}
	for _, p := range m.Points[:m.Count] {
		if !p.Point.IsFinite() || !finite(p.Separation) {
			t.Fatalf("non-finite point %+v", p)
		}
		if p.Separation >= margin {
			t.Fatalf("separation %v not below margin %v", p.Separation, margin)
		}
		if seen[p.ID] {
			t.Fatalf("duplicate id %#x in %+v", p.ID, m)
		}
		seen[p.ID] = true
	}
}

// hasPoint reports whether m holds a point near p.
func hasPoint(m *Manifold, p vecmath.Vec3, tol float64) bool {
	for _, c := range m.Points[:m.Count] {
		if nearVec(c.Point, p, tol) {
			return true
		}
	}
	return false
}
