package collide

import "github.com/netphys/netphys/vecmath"

// Kind names the geometry of a Shape: Sphere, Box, Capsule or Plane (a
// static ground half-space), the constants below.
type Kind uint8

const (
	// Sphere is a ball of Radius around the body origin.
	Sphere Kind = iota
	// Box is a cuboid of HalfExtents around the body origin, along the
	// body's axes.
	Box
	// Capsule is the set of points within Radius of the segment from
	// (0, -HalfHeight, 0) to (0, +HalfHeight, 0) in body coordinates.
	Capsule
	// Plane is the half-space below the plane through the body origin
	// whose normal is the body's +Y axis. It only suits static bodies.
	Plane
)

// Shape is the collision geometry of one body, in body coordinates. Only
// the fields of its Kind are read.
type Shape struct {
	Kind        Kind
	HalfExtents vecmath.Vec3 // Box: half sizes along the body axes, m
	Radius      float64      // Sphere and Capsule, m
	HalfHeight  float64      // Capsule: half length of the core segment, m
}

// ContactPoint is one point of a contact manifold.
type ContactPoint struct {
	// Point is in world coordinates, midway between the two surfaces.
	Point vecmath.Vec3
	// Separation is the signed distance between the surfaces along the
	// manifold normal, m: negative when they overlap.
	Separation float64
	// ID names the pair of features (faces, edges, vertices) that made the
	// point. It is stable while the same features touch, so the solver can
	// match points across steps and warm start them.
	ID uint32
}

// MaxManifoldPoints is the most points a manifold holds: four suffice for
// a box resting on a face, and keep the solver cheap.
const MaxManifoldPoints = 4

// Manifold is the contact between two shapes A and B.
type Manifold struct {
	// Normal is the world-space unit normal pointing from A towards B.
	Normal vecmath.Vec3
	Points [MaxManifoldPoints]ContactPoint
	Count  int // points in use, 0 when the shapes are apart
}
