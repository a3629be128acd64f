// Package collide is the geometry of netphys physics: shapes (box, sphere,
// capsule, plane), their mass properties and bounds, the narrowphase that
// turns a pair of placed shapes into a contact manifold, and the per-shape
// queries (ray casts, shape casts, overlaps) that the world's queries run
// on every candidate body.
//
// Everything here is a pure function of its arguments: no state, no
// allocation, bit-identical results on every platform (../../DESIGN.md §2).
package collide
