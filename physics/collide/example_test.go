package collide_test

import (
	"fmt"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// A 1 m cube resting on the ground, 1 mm deep: four points, one per bottom
// corner, with the normal pointing from the cube (A) into the ground (B).
func ExampleCollide() {
	cube := &collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(0.5, 0.5, 0.5)}
	ground := &collide.Shape{Kind: collide.Plane}
	var m collide.Manifold
	collide.Collide(cube, vecmath.Transform{Pos: vecmath.V3(0, 0.499, 0), Rot: vecmath.QuatIdentity},
		ground, vecmath.TransformIdentity, 0.02, &m)
	fmt.Println("normal Y", m.Normal.Y)
	for _, p := range m.Points[:m.Count] {
		fmt.Printf("id %d at (%.1f, %.4f, %.1f) separation %.3f\n", p.ID, p.Point.X, p.Point.Y, p.Point.Z, p.Separation)
	}
	// Output:
	// normal Y -1
	// id 0 at (-0.5, -0.0005, -0.5) separation -0.001
	// id 1 at (0.5, -0.0005, -0.5) separation -0.001
	// id 4 at (-0.5, -0.0005, 0.5) separation -0.001
	// id 5 at (0.5, -0.0005, 0.5) separation -0.001
}

func ExampleShape_MassProperties() {
	cube := &collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(0.5, 0.5, 0.5)}
	mass, inertia := cube.MassProperties(1) // 1 kg/m³: a 1 m cube weighs 1 kg
	fmt.Printf("%.3f kg, %.4f kg m²\n", mass, inertia.X)
	// Output: 1.000 kg, 0.1667 kg m²
}

func ExampleRayCast() {
	cube := &collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(0.5, 0.5, 0.5)}
	at := vecmath.Transform{Pos: vecmath.V3(0, 0.5, 0), Rot: vecmath.QuatIdentity}
	// Straight down from 10 m, 20 m long.
	fraction, normal, ok := collide.RayCast(cube, at, vecmath.V3(0, 10, 0), vecmath.V3(0, -20, 0))
	fmt.Println(ok, fraction, normal)
	// Output: true 0.45 {0 1 0}
}

// A ball of 0.25 m swept sideways into a cube's edge region: the exact
// time of impact against the cube grown by the radius.
func ExampleShapeCast() {
	cube := &collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(0.5, 0.5, 0.5)}
	ball := &collide.Shape{Kind: collide.Sphere, Radius: 0.25}
	start := vecmath.Transform{Pos: vecmath.V3(-3, 0, 0), Rot: vecmath.QuatIdentity}
	fraction, point, normal, ok := collide.ShapeCast(ball, start, vecmath.V3(6, 0, 0), cube, vecmath.TransformIdentity)
	fmt.Printf("%v %.4f %v %v\n", ok, fraction, point, normal)
	// Output: true 0.3750 {-0.5 0 0} {-1 0 0}
}

func ExampleOverlap() {
	cube := &collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(0.5, 0.5, 0.5)}
	blast := &collide.Shape{Kind: collide.Sphere, Radius: 2}
	near := vecmath.Transform{Pos: vecmath.V3(2.4, 0, 0), Rot: vecmath.QuatIdentity}
	far := vecmath.Transform{Pos: vecmath.V3(2.6, 0, 0), Rot: vecmath.QuatIdentity}
	fmt.Println(collide.Overlap(blast, near, cube, vecmath.TransformIdentity),
		collide.Overlap(blast, far, cube, vecmath.TransformIdentity))
	// Output: true false
}
