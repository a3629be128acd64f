package collide

import (
	"math"

	"github.com/netphys/netphys/vecmath"
)

// candidate is a contact point before reduction.
type candidate struct {
	p   vecmath.Vec3 // world point, midway between the surfaces
	sep float64      // separation along the manifold normal, m
	id  uint32       // feature id
}

// maxCandidates bounds the points a clipped face or a box's vertices can
// produce: a convex quad clipped by four planes has at most 8 vertices, a
// box has 8.
const maxCandidates = 8

// reduceTolerance (m) is the difference under which two candidates count
// as equally good, or two points as one, during reduction.
const reduceTolerance = clipSlop

// reduce writes at most MaxManifoldPoints of the candidates into m, keeping
// the manifold that supports the body best (Gregorius, "Robust Contact
// Creation for Physics Simulations", GDC 2015): the deepest point, the
// point farthest from it, the point that makes the largest triangle with
// those two, and the point that adds the most area outside that triangle.
// Four or fewer distinct candidates are kept as they are. Otherwise a
// point that adds no distance or area beyond the tolerance is dropped, so
// that coincident or collinear candidates (a degenerate face, a sliver of
// overlap) do not make redundant points. n is the unit manifold normal;
// areas are measured in the plane orthogonal to it.
//
// Each choice takes the first candidate within the tolerance of the best,
// so that rounding noise between equivalent points (the corners of a
// regular octagon) cannot change the choice from step to step; the
// candidate order comes from the clipping topology, which is stable.
func reduce(c []candidate, n vecmath.Vec3, m *Manifold) {
	if len(c) == 0 {
		return
	}
	if len(c) <= MaxManifoldPoints && distinct(c) {
		for i := range c {
			m.addPoint(c[i].p, c[i].sep, c[i].id)
		}
		return
	}
	var score [maxCandidates]float64
	sc := score[:len(c)]
	keep := [MaxManifoldPoints]int{-1, -1, -1, -1}
	for k := range c {
		sc[k] = -c[k].sep
	}
	i0, _ := firstWithin(sc, reduceTolerance)
	keep[0] = i0
	for k := range c {
		sc[k] = c[k].p.Sub(c[i0].p).LengthSq()
	}
	_, dd := firstWithin(sc, 0)
	d := math.Sqrt(dd)
	if d > reduceTolerance {
		// Recompute the farthest with the tolerance in metres.
		for k := range c {
			sc[k] = math.Sqrt(sc[k])
		}
		i1, _ := firstWithin(sc, reduceTolerance)
		keep[1] = i1
		e01 := c[i1].p.Sub(c[i0].p)
		areaTolerance := float64(reduceTolerance * e01.Length())
		for k := range c {
			sc[k] = math.Abs(e01.Cross(c[k].p.Sub(c[i0].p)).Dot(n))
		}
		i2, area := firstWithin(sc, areaTolerance)
		if area > areaTolerance {
			keep[2] = i2
			// Orient the triangle counter-clockwise about n, then take the
			// point that adds the most area outside one of its edges.
			tri := [3]int{i0, i1, i2}
			if e01.Cross(c[i2].p.Sub(c[i0].p)).Dot(n) < 0 {
				tri[1], tri[2] = i2, i1
			}
			for k := range c {
				out := 0.0
				for e := range 3 {
					pa, pb := c[tri[e]].p, c[tri[(e+1)%3]].p
					if o := -pb.Sub(pa).Cross(c[k].p.Sub(pa)).Dot(n); o > out {
						out = o
					}
				}
				sc[k] = out
			}
			if i3, added := firstWithin(sc, areaTolerance); added > areaTolerance {
				keep[3] = i3
			}
		}
	}
	// Emit in candidate order so that the output order does not depend on
	// which rule picked a point.
	for i := range c {
		if i == keep[0] || i == keep[1] || i == keep[2] || i == keep[3] {
			m.addPoint(c[i].p, c[i].sep, c[i].id)
		}
	}
}

// firstWithin returns the first index whose score is within tol of the
// best score, and the best score; 0 and -Inf if every score is NaN.
func firstWithin(score []float64, tol float64) (int, float64) {
	best := math.Inf(-1)
	for _, s := range score {
		if s > best {
			best = s
		}
	}
	for k, s := range score {
		if s >= best-tol {
			return k, best
		}
	}
	return 0, best
}

// distinct reports whether no two candidates are within reduceTolerance.
func distinct(c []candidate) bool {
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if !(c[i].p.Sub(c[j].p).LengthSq() > float64(reduceTolerance*reduceTolerance)) {
				return false
			}
		}
	}
	return true
}
