package physics

import (
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// QueryFilter selects the bodies a query sees.
type QueryFilter struct {
	// Mask is the set of collision layers the query hits: a body is seen
	// when its Layers share a bit with Mask. The zero Mask means every
	// layer, so that QueryFilter{} sees everything.
	Mask uint32
	// Ignore lists bodies the query never hits (the shooter itself).
	Ignore []BodyID
	// TicksBehind > 0 runs the query against the poses the bodies had that
	// many ticks ago (lag compensation, seed 002). Beyond the recorded
	// window (Config.HistoryTicks, or fewer after NewWorld or Restore) the
	// query hits nothing: ray and sweep queries return false, overlaps
	// return no bodies. Bodies created since are absent; bodies destroyed
	// since are skipped.
	TicksBehind int
}

// RayHit is the first hit of a ray or sweep.
type RayHit struct {
	Body BodyID
	// Fraction of the translation travelled before the hit, in [0, 1].
	Fraction float64
	// Point is where the hit happened (world, m) and Normal the unit
	// surface normal of the body hit there, pointing back at the query.
	Point, Normal vecmath.Vec3
}

// The queries test every body that passes the filter: a bounds check, then
// the exact shape test of package collide. O(bodies) per query is cheap
// next to a step for the query counts of a game server (tens per tick),
// and it works the same on the pose history, which has no broadphase.
// Ties (equal fractions) go to the body in the lowest slot.

// queryView is the set of poses a query runs against.
type queryView struct {
	w     *World
	f     *QueryFilter
	frame *historyFrame // nil: the present
}

func (w *World) view(f *QueryFilter) (queryView, bool) {
	v := queryView{w: w, f: f}
	if f.TicksBehind > 0 {
		frame, ok := w.history.frame(w.tick, f.TicksBehind)
		if !ok {
			return v, false
		}
		v.frame = frame
	}
	return v, true
}

// body returns the pose of slot i if the query sees it.
func (v *queryView) body(i int) (vecmath.Transform, bool) {
	in := &v.w.info[i]
	if !in.live {
		return vecmath.Transform{}, false
	}
	if v.f.Mask != 0 && in.layers&v.f.Mask == 0 {
		return vecmath.Transform{}, false
	}
	for _, id := range v.f.Ignore {
		if int(id.index) == i && id.gen == in.gen {
			return vecmath.Transform{}, false
		}
	}
	if v.frame == nil {
		return vecmath.Transform{Pos: v.w.pos[i], Rot: v.w.rot[i]}, true
	}
	if i >= len(v.frame.gen) || v.frame.gen[i] != in.gen {
		return vecmath.Transform{}, false
	}
	return vecmath.Transform{Pos: v.frame.pos[i], Rot: v.frame.rot[i]}, true
}

// mayTouch reports whether the body's bounds meet the box lo..hi; planes
// always may.
func mayTouch(s *collide.Shape, xf vecmath.Transform, lo, hi vecmath.Vec3) bool {
	blo, bhi, ok := s.Bounds(xf)
	if !ok {
		return true
	}
	return blo.X <= hi.X && lo.X <= bhi.X && blo.Y <= hi.Y && lo.Y <= bhi.Y && blo.Z <= hi.Z && lo.Z <= bhi.Z
}

// sweepBounds returns the box swept by lo..hi moving along translation.
func sweepBounds(lo, hi, translation vecmath.Vec3) (vecmath.Vec3, vecmath.Vec3) {
	return lo.Min(lo.Add(translation)), hi.Max(hi.Add(translation))
}

// RayCast returns the first body hit by the segment origin..origin+translation.
// A ray starting inside a body does not hit that body.
func (w *World) RayCast(origin, translation vecmath.Vec3, f QueryFilter) (RayHit, bool) {
	v, ok := w.view(&f)
	if !ok || !origin.IsFinite() || !translation.IsFinite() {
		return RayHit{}, false
	}
	lo, hi := sweepBounds(origin, origin, translation)
	best, found := RayHit{Fraction: 2}, false
	for i := range w.info {
		xf, ok := v.body(i)
		s := &w.info[i].shape
		if !ok || !mayTouch(s, xf, lo, hi) {
			continue
		}
		frac, n, hit := collide.RayCast(s, xf, origin, translation)
		if hit && frac < best.Fraction {
			best = RayHit{Body: w.id(int32(i)), Fraction: frac, Point: origin.MulAdd(frac, translation), Normal: n}
			found = true
		}
	}
	return best, found
}

// SphereCast sweeps a sphere of radius r (m) from center along translation
// and returns the first body it hits. A sphere that already overlaps a
// body hits it at fraction 0.
func (w *World) SphereCast(center vecmath.Vec3, radius float64, translation vecmath.Vec3, f QueryFilter) (RayHit, bool) {
	s := collide.Shape{Kind: collide.Sphere, Radius: radius}
	return w.sweep(&s, vecmath.Transform{Pos: center, Rot: vecmath.QuatIdentity}, translation, f)
}

// CapsuleCast sweeps the capsule of radius r around the segment a..b along
// translation and returns the first body it hits.
func (w *World) CapsuleCast(a, b vecmath.Vec3, radius float64, translation vecmath.Vec3, f QueryFilter) (RayHit, bool) {
	s, xf := capsuleBetween(a, b, radius)
	return w.sweep(&s, xf, translation, f)
}

func (w *World) sweep(s *collide.Shape, start vecmath.Transform, translation vecmath.Vec3, f QueryFilter) (RayHit, bool) {
	v, ok := w.view(&f)
	if !ok || !(s.Radius > 0) || !start.Pos.IsFinite() || !start.Rot.IsFinite() || !translation.IsFinite() {
		return RayHit{}, false
	}
	qlo, qhi, _ := s.Bounds(start)
	lo, hi := sweepBounds(qlo, qhi, translation)
	best, found := RayHit{Fraction: 2}, false
	for i := range w.info {
		xf, ok := v.body(i)
		t := &w.info[i].shape
		if !ok || !mayTouch(t, xf, lo, hi) {
			continue
		}
		frac, p, n, hit := collide.ShapeCast(s, start, translation, t, xf)
		if hit && frac < best.Fraction {
			best = RayHit{Body: w.id(int32(i)), Fraction: frac, Point: p, Normal: n}
			found = true
		}
	}
	return best, found
}

// OverlapSphere appends to dst[:0] the bodies that a sphere of radius r
// around c touches, in slot order.
func (w *World) OverlapSphere(c vecmath.Vec3, r float64, f QueryFilter, dst []BodyID) []BodyID {
	s := collide.Shape{Kind: collide.Sphere, Radius: r}
	return w.overlap(&s, vecmath.Transform{Pos: c, Rot: vecmath.QuatIdentity}, f, dst)
}

// OverlapBox appends to dst[:0] the bodies that the box of half extents
// half (m) centred at c and rotated by rot touches, in slot order.
func (w *World) OverlapBox(c vecmath.Vec3, rot vecmath.Quat, half vecmath.Vec3, f QueryFilter, dst []BodyID) []BodyID {
	s := collide.Shape{Kind: collide.Box, HalfExtents: half}
	return w.overlap(&s, vecmath.Transform{Pos: c, Rot: rot.Normalize()}, f, dst)
}

// OverlapCapsule appends to dst[:0] the bodies that the capsule of radius
// r around the segment a..b touches, in slot order.
func (w *World) OverlapCapsule(a, b vecmath.Vec3, r float64, f QueryFilter, dst []BodyID) []BodyID {
	s, xf := capsuleBetween(a, b, r)
	return w.overlap(&s, xf, f, dst)
}

func (w *World) overlap(s *collide.Shape, xq vecmath.Transform, f QueryFilter, dst []BodyID) []BodyID {
	dst = dst[:0]
	v, ok := w.view(&f)
	if !ok || validShape(*s) != nil || !xq.Pos.IsFinite() || !xq.Rot.IsFinite() {
		return dst
	}
	lo, hi, _ := s.Bounds(xq)
	for i := range w.info {
		xf, ok := v.body(i)
		t := &w.info[i].shape
		if ok && mayTouch(t, xf, lo, hi) && collide.Overlap(s, xq, t, xf) {
			dst = append(dst, w.id(int32(i)))
		}
	}
	return dst
}

// capsuleBetween returns the capsule of radius r around the segment a..b
// as a shape and its placement: centred between the ends, its +Y axis
// along b-a.
func capsuleBetween(a, b vecmath.Vec3, r float64) (collide.Shape, vecmath.Transform) {
	d, l := b.Sub(a).Normalize()
	xf := vecmath.Transform{Pos: a.Lerp(b, 0.5), Rot: vecmath.QuatIdentity}
	switch {
	case l == 0:
	case d.Y < -0.999999:
		xf.Rot = vecmath.Quat{X: 1} // half a turn about X maps +Y to -Y
	default:
		// The shortest arc from +Y to d: (Y×d, 1 + Y·d), normalized.
		xf.Rot = vecmath.Quat{X: d.Z, Z: -d.X, W: 1 + d.Y}.Normalize()
	}
	return collide.Shape{Kind: collide.Capsule, Radius: r, HalfHeight: l / 2}, xf
}
