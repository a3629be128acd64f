package collide

import (
	"math"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

func TestRayCastKnown(t *testing.T) {
	s2 := 1 / math.Sqrt2
	tilted := atRot(0, 0, 0, vecmath.V3(0, 0, 1), math.Pi/4)
	for _, c := range []struct {
		name     string
		s        *Shape
		xf       vecmath.Transform
		o, d     vecmath.Vec3
		hit      bool
		fraction float64
		normal   vecmath.Vec3
	}{
		{"sphere", ball(1), at(0, 0, 0), vecmath.V3(-5, 0, 0), vecmath.V3(10, 0, 0), true, 0.4, vecmath.V3(-1, 0, 0)},
		{"sphere offset", ball(1), at(2, 3, 4), vecmath.V3(2, 10, 4), vecmath.V3(0, -10, 0), true, 0.6, vecmath.V3(0, 1, 0)},
		{"sphere too short", ball(1), at(0, 0, 0), vecmath.V3(-5, 0, 0), vecmath.V3(3, 0, 0), false, 0, vecmath.Vec3{}},
		{"sphere from inside", ball(1), at(0, 0, 0), vecmath.V3(0.5, 0, 0), vecmath.V3(10, 0, 0), false, 0, vecmath.Vec3{}},
		{"sphere miss", ball(1), at(0, 0, 0), vecmath.V3(-5, 1.01, 0), vecmath.V3(10, 0, 0), false, 0, vecmath.Vec3{}},
		{"box", box(1, 2, 3), at(0, 0, 0), vecmath.V3(0, 0, 10), vecmath.V3(0, 0, -10), true, 0.7, vecmath.V3(0, 0, 1)},
		{"tilted box", box(0.5, 0.5, 0.5), tilted, vecmath.V3(-5, 0.2, 0), vecmath.V3(10, 0, 0), true, (5 - (0.5*math.Sqrt2 - 0.2)) / 10, vecmath.V3(-s2, s2, 0)},
		{"box from inside", box(1, 1, 1), at(0, 0, 0), vecmath.V3(0, 0, 0), vecmath.V3(5, 0, 0), false, 0, vecmath.Vec3{}},
		{"box parallel outside", box(1, 1, 1), at(0, 0, 0), vecmath.V3(-5, 1.5, 0), vecmath.V3(10, 0, 0), false, 0, vecmath.Vec3{}},
		{"capsule side", capsule(0.5, 1), at(0, 0, 0), vecmath.V3(-5, 0.7, 0), vecmath.V3(10, 0, 0), true, 0.45, vecmath.V3(-1, 0, 0)},
		{"capsule cap", capsule(0.5, 1), at(0, 0, 0), vecmath.V3(0, 5, 0), vecmath.V3(0, -10, 0), true, 0.35, vecmath.V3(0, 1, 0)},
		{"capsule cap slanted", capsule(0.5, 1), at(0, 0, 0), vecmath.V3(-5, 1.3, 0), vecmath.V3(10, 0, 0), true, (5 - 0.4) / 10, vecmath.V3(-0.8, 0.6, 0)},
		{"lying capsule", capsule(0.5, 1), atRot(0, 0, 0, vecmath.V3(0, 0, 1), math.Pi/2), vecmath.V3(0.9, 5, 0), vecmath.V3(0, -10, 0), true, 0.45, vecmath.V3(0, 1, 0)},
		{"plane", ground, at(0, 1, 0), vecmath.V3(3, 5, 3), vecmath.V3(0, -8, 0), true, 0.5, vecmath.V3(0, 1, 0)},
		{"plane from below", ground, at(0, 0, 0), vecmath.V3(3, -1, 3), vecmath.V3(0, 8, 0), false, 0, vecmath.Vec3{}},
		{"plane upwards", ground, at(0, 0, 0), vecmath.V3(3, 1, 3), vecmath.V3(0, 8, 0), false, 0, vecmath.Vec3{}},
	} {
		f, n, ok := RayCast(c.s, c.xf, c.o, c.d)
		if ok != c.hit || (ok && (!near(f, c.fraction, 1e-12) || !nearVec(n, c.normal, 1e-12))) {
			t.Errorf("%s: got %v %v %v, want %v %v %v", c.name, f, n, ok, c.fraction, c.normal, c.hit)
		}
	}
}

func TestShapeCastKnown(t *testing.T) {
	down := vecmath.V3(0, -10, 0)
	for _, c := range []struct {
		name          string
		moving        *Shape
		start         vecmath.Transform
		d             vecmath.Vec3
		target        *Shape
		xf            vecmath.Transform
		hit           bool
		fraction      float64
		point, normal vecmath.Vec3
	}{
		{"sphere on box face", ball(0.5), at(0.3, 5, 0.2), down, box(1, 1, 1), at(0, 0, 0), true, 0.35, vecmath.V3(0.3, 1, 0.2), vecmath.V3(0, 1, 0)},
		{"sphere on box edge", ball(0.5), at(1.3, 5, 0), down, box(1, 1, 1), at(0, 0, 0), true, (4 - 0.4) / 10, vecmath.V3(1, 1, 0), vecmath.V3(0.6, 0.8, 0)},
		{"sphere on box corner", ball(0.5), at(1.3, 5, 1.3), down, box(1, 1, 1), at(0, 0, 0), true, (4 - math.Sqrt(0.25-0.18)) / 10, vecmath.V3(1, 1, 1), vecmath.V3(0.3, math.Sqrt(0.25-0.18), 0.3).Scale(2)},
		{"sphere past box", ball(0.5), at(1.6, 5, 0), down, box(1, 1, 1), at(0, 0, 0), false, 0, vecmath.Vec3{}, vecmath.Vec3{}},
		{"sphere on sphere", ball(0.5), at(0, 5, 0), down, ball(1), at(0, 0, 0), true, 0.35, vecmath.V3(0, 1, 0), vecmath.V3(0, 1, 0)},
		{"sphere on capsule", ball(0.5), at(0, 0, 5), vecmath.V3(0, 0, -10), capsule(0.5, 1), at(0, 0, 0), true, 0.4, vecmath.V3(0, 0, 0.5), vecmath.V3(0, 0, 1)},
		{"sphere on plane", ball(0.5), at(0, 5, 0), down, ground, at(0, 1, 0), true, 0.35, vecmath.V3(0, 1, 0), vecmath.V3(0, 1, 0)},
		{"lying capsule on box", capsule(0.25, 1), atRot(0.5, 5, 0, vecmath.V3(0, 0, 1), math.Pi/2), down, box(1, 1, 1), at(0, 0, 0), true, 0.375, vecmath.Vec3{}, vecmath.V3(0, 1, 0)},
		{"capsule on plane", capsule(0.25, 1), at(0, 5, 0), down, ground, at(0, 0, 0), true, 0.375, vecmath.V3(0, 0, 0), vecmath.V3(0, 1, 0)},
		{"capsule on sphere", capsule(0.25, 1), at(0, 5, 0), down, ball(1), at(0, 0, 0), true, (5 - 2.25) / 10, vecmath.V3(0, 1, 0), vecmath.V3(0, 1, 0)},
		{"capsule across capsule", capsule(0.25, 1), atRot(0, 5, 0, vecmath.V3(0, 0, 1), math.Pi/2), down, capsule(0.5, 1), atRot(0, 0, 0, vecmath.V3(1, 0, 0), math.Pi/2), true, (5 - 0.75) / 10, vecmath.V3(0, 0.5, 0), vecmath.V3(0, 1, 0)},
		{"capsule misses", capsule(0.25, 1), at(3, 5, 0), down, ball(1), at(0, 0, 0), false, 0, vecmath.Vec3{}, vecmath.Vec3{}},
		{"overlapping", ball(0.5), at(0, 1.2, 0), down, box(1, 1, 1), at(0, 0, 0), true, 0, vecmath.V3(0, 0.85, 0), vecmath.V3(0, 1, 0)},
	} {
		f, p, n, ok := ShapeCast(c.moving, c.start, c.d, c.target, c.xf)
		tol := 1e-12
		if c.moving.Kind == Capsule {
			tol = 2e-7 // conservative advancement stops within 1e-6 m
		}
		if ok != c.hit {
			t.Errorf("%s: hit %v, want %v", c.name, ok, c.hit)
			continue
		}
		if !ok {
			continue
		}
		if !near(f, c.fraction, tol) || !nearVec(n, c.normal, 1e-9) {
			t.Errorf("%s: fraction %v normal %v, want %v %v", c.name, f, n, c.fraction, c.normal)
		}
		if c.name != "lying capsule on box" && !nearVec(p, c.point, 1e-5) {
			t.Errorf("%s: point %v, want %v", c.name, p, c.point)
		}
	}
	if _, _, _, ok := ShapeCast(box(1, 1, 1), at(0, 5, 0), down, ground, at(0, 0, 0)); ok {
		t.Error("a box is not a cast shape")
	}
}

func TestOverlapKnown(t *testing.T) {
	for _, c := range []struct {
		name   string
		a      *Shape
		xa     vecmath.Transform
		b      *Shape
		xb     vecmath.Transform
		expect bool
	}{
		{"spheres", ball(1), at(0, 0, 0), ball(1), at(1.99, 0, 0), true},
		{"spheres apart", ball(1), at(0, 0, 0), ball(1), at(2.01, 0, 0), false},
		{"sphere box corner", ball(0.2), at(0.6, 0.6, 0.6), box(0.5, 0.5, 0.5), at(0, 0, 0), true},
		{"sphere off box corner", ball(0.17), at(0.6, 0.6, 0.6), box(0.5, 0.5, 0.5), at(0, 0, 0), false},
		{"boxes", box(0.5, 0.5, 0.5), at(0, 0, 0), box(0.5, 0.5, 0.5), at(0.99, 0, 0), true},
		{"boxes apart", box(0.5, 0.5, 0.5), at(0, 0, 0), box(0.5, 0.5, 0.5), atRot(1.21, 0, 0, vecmath.V3(0, 0, 1), math.Pi/4), false},
		{"boxes edge apart", box(0.5, 0.5, 0.5), atRot(0, 0, 0, vecmath.V3(0, 0, 1), math.Pi/4), box(0.5, 0.5, 0.5), atRot(0, 1.42, 0, vecmath.V3(1, 0, 0), math.Pi/4), false},
		{"boxes edge", box(0.5, 0.5, 0.5), atRot(0, 0, 0, vecmath.V3(0, 0, 1), math.Pi/4), box(0.5, 0.5, 0.5), atRot(0, 1.41, 0, vecmath.V3(1, 0, 0), math.Pi/4), true},
		{"box plane", box(0.5, 0.5, 0.5), atRot(0, 0.7, 0, vecmath.V3(0, 0, 1), math.Pi/4), ground, at(0, 0, 0), true},
		{"box above plane", box(0.5, 0.5, 0.5), atRot(0, 0.71, 0, vecmath.V3(0, 0, 1), math.Pi/4), ground, at(0, 0, 0), false},
		{"capsule box", capsule(0.1, 1), atRot(0.55, 0.55, 0, vecmath.V3(1, 0, 0), math.Pi/2), box(0.5, 0.5, 0.5), at(0, 0, 0), true},
		{"capsule off box", capsule(0.1, 1), atRot(0.6, 0.6, 0, vecmath.V3(1, 0, 0), math.Pi/2), box(0.5, 0.5, 0.5), at(0, 0, 0), false},
		{"box capsule", box(0.5, 0.5, 0.5), at(0, 0, 0), capsule(0.1, 1), atRot(0.55, 0.55, 0, vecmath.V3(1, 0, 0), math.Pi/2), true},
		{"capsule plane", capsule(0.5, 1), at(0, 1.49, 0), ground, at(0, 0, 0), true},
		{"capsule above plane", capsule(0.5, 1), at(0, 1.51, 0), ground, at(0, 0, 0), false},
		{"capsules", capsule(0.5, 1), at(0, 0, 0), capsule(0.5, 1), atRot(0, 0, 0.99, vecmath.V3(0, 0, 1), math.Pi/2), true},
		{"planes", ground, at(0, 0, 0), ground, at(0, 1, 0), false},
	} {
		if got := Overlap(c.a, c.xa, c.b, c.xb); got != c.expect {
			t.Errorf("%s: %v, want %v", c.name, got, c.expect)
		}
	}
}
