package collide

import (
	"math"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

func TestSphereSphere(t *testing.T) {
	m := collide(ball(1), at(0, 0, 0), ball(0.5), at(1.4, 0, 0))
	checkManifold(t, &m, 0.02)
	if m.Count != 1 || !nearVec(m.Normal, vecmath.V3(1, 0, 0), 1e-12) || !near(m.Points[0].Separation, -0.1, 1e-12) {
		t.Fatalf("got %+v", m)
	}
	if !nearVec(m.Points[0].Point, vecmath.V3(0.95, 0, 0), 1e-12) {
		t.Errorf("point %v, want midway (0.95, 0, 0)", m.Points[0].Point)
	}
	if m := collide(ball(1), at(0, 0, 0), ball(0.5), at(1.53, 0, 0)); m.Count != 0 {
		t.Errorf("3 cm apart with a 2 cm margin: %+v", m)
	}
	if m := collide(ball(1), at(0, 0, 0), ball(0.5), at(1.51, 0, 0)); m.Count != 1 || !near(m.Points[0].Separation, 0.01, 1e-12) {
		t.Errorf("1 cm apart is speculative: %+v", m)
	}
	// Coincident centres still give a unit normal.
	m = collide(ball(1), at(0, 0, 0), ball(1), at(0, 0, 0))
	checkManifold(t, &m, 0.02)
	if m.Count != 1 || !near(m.Points[0].Separation, -2, 1e-12) {
		t.Errorf("coincident: %+v", m)
	}
}

func TestSpherePlane(t *testing.T) {
	m := collide(ball(0.5), at(1, 0.45, 2), ground, at(0, 0, 0))
	checkManifold(t, &m, 0.02)
	if m.Count != 1 || !nearVec(m.Normal, vecmath.V3(0, -1, 0), 1e-12) || !near(m.Points[0].Separation, -0.05, 1e-12) {
		t.Fatalf("got %+v", m)
	}
	if !nearVec(m.Points[0].Point, vecmath.V3(1, -0.025, 2), 1e-12) {
		t.Errorf("point %v", m.Points[0].Point)
	}
	// Swapped order flips the normal.
	m = collide(ground, at(0, 0, 0), ball(0.5), at(1, 0.45, 2))
	if m.Count != 1 || !nearVec(m.Normal, vecmath.V3(0, 1, 0), 1e-12) {
		t.Fatalf("swapped: %+v", m)
	}
	// A tilted plane: 45° about Z, ball above it along the plane normal.
	tilt := atRot(0, 0, 0, vecmath.V3(0, 0, 1), math.Pi/4)
	n := tilt.Rot.Rotate(vecmath.V3(0, 1, 0))
	m = collide(ball(1), vecmath.Transform{Pos: n.Scale(1.01), Rot: vecmath.QuatIdentity}, ground, tilt)
	if m.Count != 1 || !nearVec(m.Normal, n.Neg(), 1e-12) || !near(m.Points[0].Separation, 0.01, 1e-12) {
		t.Errorf("tilted: %+v", m)
	}
}

func TestBoxPlane(t *testing.T) {
	m := collide(box(0.5, 0.5, 0.5), at(3, 0.499, -1), ground, at(0, 0, 0))
	checkManifold(t, &m, 0.02)
	if m.Count != 4 || !nearVec(m.Normal, vecmath.V3(0, -1, 0), 1e-12) {
		t.Fatalf("resting box: %+v", m)
	}
	for _, p := range m.Points[:m.Count] {
		if !near(p.Separation, -0.001, 1e-12) || !near(p.Point.Y, -0.0005, 1e-12) ||
			!near(math.Abs(p.Point.X-3), 0.5, 1e-12) || !near(math.Abs(p.Point.Z+1), 0.5, 1e-12) {
			t.Errorf("point %+v", p)
		}
	}
	// Standing on an edge (45° about Z): the two bottom edge vertices.
	m = collide(box(0.5, 0.5, 0.5), atRot(0, math.Sqrt2/2, 0, vecmath.V3(0, 0, 1), math.Pi/4), ground, at(0, 0, 0))
	checkManifold(t, &m, 0.02)
	if m.Count != 2 || !near(m.Points[0].Separation, 0, 1e-12) || !near(m.Points[1].Separation, 0, 1e-12) {
		t.Errorf("edge: %+v", m)
	}
	// Sunk entirely: all eight vertices qualify, four are kept, the
	// deepest among them.
	m = collide(box(0.5, 0.5, 0.5), atRot(0, -2, 0, vecmath.V3(1, 1, 0), 0.3), ground, at(0, 0, 0))
	checkManifold(t, &m, 0.02)
	if m.Count != 4 {
		t.Fatalf("sunk: %+v", m)
	}
	deepest := math.Inf(1)
	for _, p := range m.Points[:m.Count] {
		deepest = math.Min(deepest, p.Separation)
	}
	if deepest > -2.5 {
		t.Errorf("sunk box lost its deepest vertex: %+v", m)
	}
}

func TestSphereBox(t *testing.T) {
	// A ball resting on top of a box: one point, normal from ball to box.
	m := collide(ball(0.25), at(0.2, 0.74, -0.1), box(0.5, 0.5, 0.5), at(0, 0, 0))
	checkManifold(t, &m, 0.02)
	if m.Count != 1 || !nearVec(m.Normal, vecmath.V3(0, -1, 0), 1e-12) || !near(m.Points[0].Separation, -0.01, 1e-12) {
		t.Fatalf("on top: %+v", m)
	}
	if !nearVec(m.Points[0].Point, vecmath.V3(0.2, 0.495, -0.1), 1e-12) {
		t.Errorf("point %v", m.Points[0].Point)
	}
	// Near a corner: the normal joins the corner and the centre.
	c := vecmath.V3(0.6, 0.6, 0.6)
	m = collide(ball(0.2), at(c.X, c.Y, c.Z), box(0.5, 0.5, 0.5), at(0, 0, 0))
	want := math.Sqrt(3*0.01) - 0.2
	if m.Count != 1 || !near(m.Points[0].Separation, want, 1e-12) || !nearVec(m.Normal, vecmath.V3(-1, -1, -1).Scale(1/math.Sqrt(3)), 1e-12) {
		t.Errorf("corner: %+v", m)
	}
	// Centre inside, nearest the +X face.
	m = collide(box(0.5, 0.5, 0.5), at(0, 0, 0), ball(0.1), at(0.4, 0.1, 0))
	if m.Count != 1 || !nearVec(m.Normal, vecmath.V3(1, 0, 0), 1e-12) || !near(m.Points[0].Separation, -0.2, 1e-12) {
		t.Errorf("inside: %+v", m)
	}
	// A rotated box.
	m = collide(ball(0.5), at(0, 1.2, 0), box(0.5, 0.5, 0.5), atRot(0, 0, 0, vecmath.V3(0, 0, 1), math.Pi/4))
	if m.Count != 1 || !near(m.Points[0].Separation, 1.2-math.Sqrt2/2-0.5, 1e-12) {
		t.Errorf("rotated: %+v", m)
	}
}

func TestBoxRestingOnBox(t *testing.T) {
	// A 1 m cube resting on a 2×1×2 slab, shifted so that the overlap is
	// the rectangle x in [0.2, 1], z in [-0.3, 0.7] at height 0.5.
	m := collide(box(1, 0.5, 1), at(0, 0, 0), box(0.5, 0.5, 0.5), at(0.7, 0.999, 0.2))
	checkManifold(t, &m, 0.02)
	if m.Count != 4 || !nearVec(m.Normal, vecmath.V3(0, 1, 0), 1e-12) {
		t.Fatalf("got %+v", m)
	}
	for _, c := range []vecmath.Vec3{{X: 0.2, Z: -0.3}, {X: 1, Z: -0.3}, {X: 1, Z: 0.7}, {X: 0.2, Z: 0.7}} {
		if !hasPoint(&m, vecmath.V3(c.X, 0.4995, c.Z), 1e-9) {
			t.Errorf("no point at overlap corner %v: %+v", c, m)
		}
	}
	for _, p := range m.Points[:m.Count] {
		if !near(p.Separation, -0.001, 1e-12) {
			t.Errorf("separation %v", p.Separation)
		}
	}
	// Two equal cubes stacked exactly: the four shared corners.
	m = collide(box(0.5, 0.5, 0.5), at(0, 0, 0), box(0.5, 0.5, 0.5), at(0, 1, 0))
	checkManifold(t, &m, 0.02)
	if m.Count != 4 {
		t.Fatalf("stack: %+v", m)
	}
	for _, c := range [][2]float64{{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}} {
		if !hasPoint(&m, vecmath.V3(c[0], 0.5, c[1]), 1e-12) {
			t.Errorf("no point at corner %v: %+v", c, m)
		}
	}
	// The lower box as B: same points, normal flipped.
	m2 := collide(box(0.5, 0.5, 0.5), at(0, 1, 0), box(0.5, 0.5, 0.5), at(0, 0, 0))
	if m2.Count != 4 || !nearVec(m2.Normal, vecmath.V3(0, -1, 0), 1e-12) {
		t.Errorf("swapped stack: %+v", m2)
	}
}

func TestBoxOnBoxRotated(t *testing.T) {
	// A small cube yawed 45° on a large slab: its four bottom corners.
	m := collide(box(2, 0.5, 2), at(0, 0, 0), box(0.5, 0.5, 0.5), atRot(0, 1, 0, vecmath.V3(0, 1, 0), math.Pi/4))
	checkManifold(t, &m, 0.02)
	if m.Count != 4 || !nearVec(m.Normal, vecmath.V3(0, 1, 0), 1e-12) {
		t.Fatalf("got %+v", m)
	}
	r := math.Sqrt2 / 2
	for _, c := range [][2]float64{{r, 0}, {-r, 0}, {0, r}, {0, -r}} {
		if !hasPoint(&m, vecmath.V3(c[0], 0.5, c[1]), 1e-12) {
			t.Errorf("no point at %v: %+v", c, m)
		}
	}
	// Tilted 30° about Z and lowered onto its bottom-left edge: two points
	// on that edge, which sinks 1 cm into the slab.
	angle := math.Pi / 6
	s, c := math.Sin(angle), math.Cos(angle)
	// Lowest edge of the rotated cube is at y = -(0.5c + 0.5s) from its centre.
	y := 0.5 + 0.5*c + 0.5*s - 0.01
	m = collide(box(2, 0.5, 2), at(0, 0, 0), box(0.5, 0.5, 0.5), atRot(0, y, 0, vecmath.V3(0, 0, 1), angle))
	checkManifold(t, &m, 0.02)
	if m.Count != 2 || !nearVec(m.Normal, vecmath.V3(0, 1, 0), 1e-12) {
		t.Fatalf("tilted: %+v", m)
	}
	for _, p := range m.Points[:m.Count] {
		if !near(p.Separation, -0.01, 1e-9) {
			t.Errorf("tilted separation %v", p.Separation)
		}
	}
}

func TestBoxEdgeEdge(t *testing.T) {
	// Two unit cubes each standing on an edge, crossed: A's top edge runs
	// along Z, B's bottom edge along X, and they overlap by 1 cm.
	r := math.Sqrt2 / 2
	xa := atRot(0, 0, 0, vecmath.V3(0, 0, 1), math.Pi/4)
	xb := atRot(0.1, 2*r-0.01, -0.05, vecmath.V3(1, 0, 0), math.Pi/4)
	m := collide(box(0.5, 0.5, 0.5), xa, box(0.5, 0.5, 0.5), xb)
	checkManifold(t, &m, 0.02)
	if m.Count != 1 || !nearVec(m.Normal, vecmath.V3(0, 1, 0), 1e-9) || !near(m.Points[0].Separation, -0.01, 1e-9) {
		t.Fatalf("got %+v", m)
	}
	if !nearVec(m.Points[0].Point, vecmath.V3(0, r-0.005, -0.05), 1e-9) {
		t.Errorf("point %v", m.Points[0].Point)
	}
	if m.Points[0].ID&edgeFlag == 0 {
		t.Errorf("id %#x is not an edge id", m.Points[0].ID)
	}
}

func TestCapsulePairs(t *testing.T) {
	// Capsule lying along X (rotated 90° about Z) on the ground: two points.
	lying := atRot(0, 0.299, 0, vecmath.V3(0, 0, 1), math.Pi/2)
	m := collide(capsule(0.3, 1), lying, ground, at(0, 0, 0))
	checkManifold(t, &m, 0.02)
	if m.Count != 2 || !nearVec(m.Normal, vecmath.V3(0, -1, 0), 1e-12) {
		t.Fatalf("capsule–plane: %+v", m)
	}
	for _, p := range m.Points[:2] {
		if !near(p.Separation, -0.001, 1e-12) || !near(math.Abs(p.Point.X), 1, 1e-12) {
			t.Errorf("capsule–plane point %+v", p)
		}
	}
	// Standing upright: one point under the lower cap.
	m = collide(capsule(0.3, 1), at(0, 1.3, 0), ground, at(0, 0, 0))
	if m.Count != 1 || !near(m.Points[0].Separation, 0, 1e-12) {
		t.Errorf("upright: %+v", m)
	}
	// Capsule lying on a box face: two points at the clipped ends.
	m = collide(box(0.5, 0.5, 0.5), at(0, 0, 0), capsule(0.2, 1), atRot(0.2, 0.69, 0, vecmath.V3(0, 0, 1), math.Pi/2))
	checkManifold(t, &m, 0.02)
	if m.Count != 2 || !nearVec(m.Normal, vecmath.V3(0, 1, 0), 1e-12) {
		t.Fatalf("box–capsule: %+v", m)
	}
	for _, p := range m.Points[:2] {
		if !near(p.Separation, -0.01, 1e-12) || !near(p.Point.Y, 0.495, 1e-12) {
			t.Errorf("box–capsule point %+v", p)
		}
	}
	if !hasPoint(&m, vecmath.V3(-0.5, 0.495, 0), 1e-3) || !hasPoint(&m, vecmath.V3(0.5, 0.495, 0), 1e-3) {
		t.Errorf("box–capsule points not at the face ends: %+v", m)
	}
	// Capsule across a box edge, separated: the exact distance.
	m = collide(capsule(0.1, 1), atRot(0.55, 0.55, 0, vecmath.V3(1, 0, 0), math.Pi/2), box(0.5, 0.5, 0.5), at(0, 0, 0))
	want := math.Sqrt(0.005) - 0.1
	if m.Count != 1 || !near(m.Points[0].Separation, want, 1e-12) || !nearVec(m.Normal, vecmath.V3(-1, -1, 0).Scale(1/math.Sqrt2), 1e-12) {
		t.Errorf("capsule–box edge: %+v", m)
	}
	// Parallel capsules side by side: two points.
	m = collide(capsule(0.5, 1), at(0, 0, 0), capsule(0.5, 1), at(0.99, 0.5, 0))
	checkManifold(t, &m, 0.02)
	if m.Count != 2 || !nearVec(m.Normal, vecmath.V3(1, 0, 0), 1e-12) {
		t.Fatalf("parallel capsules: %+v", m)
	}
	for _, p := range m.Points[:2] {
		if !near(p.Separation, -0.01, 1e-12) {
			t.Errorf("parallel capsules point %+v", p)
		}
	}
	// Crossed capsules: one point.
	m = collide(capsule(0.5, 1), at(0, 0, 0), capsule(0.5, 1), atRot(0, 0, 0.9, vecmath.V3(0, 0, 1), math.Pi/2))
	if m.Count != 1 || !nearVec(m.Normal, vecmath.V3(0, 0, 1), 1e-12) || !near(m.Points[0].Separation, -0.1, 1e-12) {
		t.Errorf("crossed capsules: %+v", m)
	}
	// Sphere against a capsule's side.
	m = collide(ball(0.5), at(0.7, 0.3, 0), capsule(0.25, 1), at(0, 0, 0))
	if m.Count != 1 || !nearVec(m.Normal, vecmath.V3(-1, 0, 0), 1e-12) || !near(m.Points[0].Separation, -0.05, 1e-12) {
		t.Errorf("sphere–capsule: %+v", m)
	}
}

func TestPlanePlaneHasNoContact(t *testing.T) {
	if m := collide(ground, at(0, 0, 0), ground, at(0, 1, 0)); m.Count != 0 {
		t.Errorf("planes collided: %+v", m)
	}
}
