package physics_test

import (
	"fmt"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// A cube dropped on the ground comes to rest, and a ray cast down finds it.
func Example() {
	w, err := physics.NewWorld(physics.DefaultConfig())
	if err != nil {
		panic(err)
	}
	ground := physics.DefaultBodyDef()
	ground.Type = physics.Static
	ground.Shape = collide.Shape{Kind: collide.Plane}
	if _, err := w.CreateBody(ground); err != nil {
		panic(err)
	}
	def := physics.DefaultBodyDef()
	def.Position = vecmath.V3(0, 3, 0)
	cube, err := w.CreateBody(def)
	if err != nil {
		panic(err)
	}
	for range 120 {
		w.Step()
	}
	s, err := w.State(cube)
	if err != nil {
		panic(err)
	}
	fmt.Printf("height %.2f m, at rest %v\n", s.Position.Y, s.AtRest)
	hit, ok := w.RayCast(vecmath.V3(0, 10, 0), vecmath.V3(0, -10, 0), physics.QueryFilter{})
	fmt.Printf("ray hit cube %v at %.2f m\n", ok && hit.Body == cube, hit.Point.Y)
	// Output:
	// height 0.50 m, at rest true
	// ray hit cube true at 1.00 m
}

// Snapshot and Restore rewind a world; stepping again reproduces the run.
func ExampleWorld_Snapshot() {
	w, _ := physics.NewWorld(physics.DefaultConfig())
	cube := physics.DefaultBodyDef()
	cube.Position = vecmath.V3(0, 3, 0)
	cube.AngularVelocity = vecmath.V3(1, 2, 0)
	if _, err := w.CreateBody(cube); err != nil {
		panic(err)
	}
	var snap physics.Snapshot
	w.Snapshot(&snap)
	for range 30 {
		w.Step()
	}
	first := w.Checksum()
	if err := w.Restore(&snap); err != nil {
		panic(err)
	}
	for range 30 {
		w.Step()
	}
	fmt.Println(w.Checksum() == first)
	// Output: true
}
