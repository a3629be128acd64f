package collide

import (
	"math"

	"github.com/netphys/netphys/vecmath"
)

// Volume returns the volume of the shape in m³; 0 for planes, which are
// unbounded and only suit static bodies.
func (s *Shape) Volume() float64 {
	switch s.Kind {
	case Sphere:
		r := s.radius()
		return float64(float64(4.0/3.0*math.Pi) * float64(float64(r*r)*r))
	case Box:
		h := s.halfExtents()
		return float64(8 * float64(float64(h.X*h.Y)*h.Z))
	case Capsule:
		r, hh := s.radius(), s.halfHeight()
		cylinder := float64(float64(math.Pi*float64(r*r)) * float64(2*hh))
		ball := float64(float64(4.0/3.0*math.Pi) * float64(float64(r*r)*r))
		return cylinder + ball
	}
	return 0
}

// MassProperties returns the mass (kg) of the shape filled with density
// kg/m³, and the diagonal of its inertia tensor about the body origin in
// body coordinates (kg m²). Planes return 0, 0: they are static only.
//
// The capsule combines a cylinder of length 2·HalfHeight with two
// hemispheres moved out to its ends by the parallel axis theorem: a
// hemisphere's centroid lies 3r/8 from its flat face.
func (s *Shape) MassProperties(density float64) (mass float64, inertia vecmath.Vec3) {
	switch s.Kind {
	case Sphere:
		r := s.radius()
		mass = float64(density * s.Volume())
		i := float64(0.4 * float64(mass*float64(r*r)))
		return mass, vecmath.Vec3{X: i, Y: i, Z: i}
	case Box:
		h := s.halfExtents()
		mass = float64(density * s.Volume())
		k := mass / 3
		xx, yy, zz := float64(h.X*h.X), float64(h.Y*h.Y), float64(h.Z*h.Z)
		return mass, vecmath.Vec3{X: float64(k * (yy + zz)), Y: float64(k * (xx + zz)), Z: float64(k * (xx + yy))}
	case Capsule:
		r, hh := s.radius(), s.halfHeight()
		rr, h := float64(r*r), 2*hh
		mc := float64(density * float64(float64(math.Pi*rr)*h))                  // cylinder
		ms := float64(density * float64(float64(4.0/3.0*math.Pi)*float64(rr*r))) // both caps
		axial := float64(0.5*float64(mc*rr)) + float64(0.4*float64(ms*rr))
		cyl := float64(mc * (float64(0.25*rr) + float64(float64(h*h)/12)))
		caps := float64(ms * (float64(0.4*rr) + float64(0.25*float64(h*h)) + float64(0.375*float64(h*r))))
		side := cyl + caps
		return mc + ms, vecmath.Vec3{X: side, Y: axial, Z: side}
	}
	return 0, vecmath.Vec3{}
}

// Bounds returns the world-space axis-aligned box that holds the shape
// placed at xf. ok is false for a Plane, which is unbounded.
func (s *Shape) Bounds(xf vecmath.Transform) (lo, hi vecmath.Vec3, ok bool) {
	var ext vecmath.Vec3
	switch s.Kind {
	case Sphere:
		r := s.radius()
		ext = vecmath.Vec3{X: r, Y: r, Z: r}
	case Box:
		m := vecmath.QuatToMat3(xf.Rot)
		h := s.halfExtents()
		ext = m.C0.Abs().Scale(h.X).Add(m.C1.Abs().Scale(h.Y)).Add(m.C2.Abs().Scale(h.Z))
	case Capsule:
		r := s.radius()
		axis := xf.Rot.Rotate(vecmath.Vec3{Y: s.halfHeight()}).Abs()
		ext = axis.Add(vecmath.Vec3{X: r, Y: r, Z: r})
	default:
		return vecmath.Vec3{}, vecmath.Vec3{}, false
	}
	return xf.Pos.Sub(ext), xf.Pos.Add(ext), true
}

// The accessors below read sizes as non-negative: a negative size is a
// caller's mistake that must not turn into inverted geometry or NaN.

func (s *Shape) radius() float64 { return nonNegative(s.Radius) }

func (s *Shape) halfHeight() float64 { return nonNegative(s.HalfHeight) }

func (s *Shape) halfExtents() vecmath.Vec3 {
	h := s.HalfExtents
	return vecmath.Vec3{X: nonNegative(h.X), Y: nonNegative(h.Y), Z: nonNegative(h.Z)}
}

func nonNegative(x float64) float64 {
	if x > 0 {
		return x
	}
	return 0
}
