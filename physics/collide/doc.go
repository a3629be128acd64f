// Package collide is the geometry of netphys physics: shapes (box, sphere,
// capsule, plane), their mass properties and bounds, the narrowphase that
// turns a pair of placed shapes into a contact manifold, and the per-shape
// queries (ray casts, shape casts, overlaps) that the world's queries run
// on every candidate body.
//
// Everything here is a pure function of its arguments: no state, no
// allocation, bit-identical results on every platform (docs/design.md §2).
// Transforms must hold unit quaternions; sizes below zero read as zero.
//
// # Contacts
//
// Collide(a, xa, b, xb, margin, &m) writes at most MaxManifoldPoints points:
//
//   - m.Normal is a unit vector from a to b, the same for every point.
//   - A point's Separation is the signed gap between the surfaces along the
//     normal (m), negative when they overlap; points are kept while it is
//     below margin, so that a resting contact persists and the solver can
//     treat a small gap speculatively. Point lies midway between the two
//     surfaces: the surface points are Point ∓ Separation/2 · Normal.
//   - A point's ID names the features that made it (box faces, clipped
//     edges, capsule ends; layouts in boxbox.go, plane.go, boxcapsule.go).
//     It is unique within a manifold and stays the same while the same
//     features touch, including under rounding-sized jitter of a resting
//     body, so the solver can match points across steps and warm start.
//     The manifold itself is rebuilt from the poses every step: there is
//     no contact state to snapshot for rollback.
//   - Swapping a and b flips the normal and keeps the points, except that
//     two boxes whose best face axes tie within 0.5 mm prefer a's face.
//
// Methods by pair: spheres and capsules reduce to closest points between
// their core points and segments; capsules lying along a capsule or a box
// face get two points. Box–plane keeps the (up to four) deepest vertices
// below the margin; box–box is a 15-axis separating axis test
// with face clipping or an edge–edge point (design notes in boxbox.go).
//
// # Queries
//
//   - RayCast returns the first entry of a ray into a shape; a ray that
//     starts inside does not hit (Box2D's rule).
//   - ShapeCast sweeps a sphere (exact, a ray against the grown target) or
//     a capsule (conservative advancement to 1e-6 m) and reports the time
//     of impact, the point on the target and the normal towards the moving
//     shape; shapes overlapping at the start hit at fraction 0.
//   - Overlap is an exact boolean test; touching counts.
package collide
