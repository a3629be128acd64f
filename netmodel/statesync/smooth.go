package statesync

import (
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
)

// smoother hides corrections: when the network moves an object, the
// rendered pose keeps the old one as an error that decays by a factor
// each step (0.95 for small errors, 0.85 for large ones, as in the VR
// sample), so the eye sees a quick glide instead of a jump. Only what is
// drawn is smoothed: the simulation always runs from the corrected state.
type smoother struct {
	small, large, largeSq float64
	pos                   []vecmath.Vec3
	rot                   []vecmath.Quat
}

// PopDistance is the correction, in metres, counted as a pop.
const PopDistance = 0.05

func newSmoother(cfg *Config, objects int) smoother {
	s := smoother{
		small: cfg.SmoothSmall, large: cfg.SmoothLarge,
		largeSq: float64(cfg.SmoothLargeError * cfg.SmoothLargeError),
		pos:     make([]vecmath.Vec3, objects), rot: make([]vecmath.Quat, objects),
	}
	for i := range s.rot {
		s.rot[i] = vecmath.QuatIdentity
	}
	return s
}

// correct records that object i jumped from before to after, and reports
// whether the jump was a pop.
func (s *smoother) correct(i int, before, after physics.BodyState) bool {
	d := before.Position.Sub(after.Position)
	s.pos[i] = s.pos[i].Add(d)
	s.rot[i] = s.rot[i].Mul(before.Rotation).Mul(after.Rotation.Conj()).Normalize()
	return d.LengthSq() > PopDistance*PopDistance
}

// step decays every error by one step's factor.
func (s *smoother) step() {
	for i := range s.pos {
		e := s.pos[i]
		if (e == vecmath.Vec3{}) && s.rot[i] == vecmath.QuatIdentity {
			continue
		}
		f := s.small
		if e.LengthSq() > s.largeSq {
			f = s.large
		}
		e = e.Scale(f)
		r := vecmath.QuatIdentity.Nlerp(s.rot[i], f)
		if e.LengthSq() < 1e-10 && vecmath.QuatIdentity.Dot(r) > 1-1e-12 {
			e, r = vecmath.Vec3{}, vecmath.QuatIdentity
		}
		s.pos[i], s.rot[i] = e, r
	}
}

// render returns where to draw object i whose simulated pose is sim.
func (s *smoother) render(i int, sim vecmath.Transform) vecmath.Transform {
	return vecmath.Transform{Pos: sim.Pos.Add(s.pos[i]), Rot: s.rot[i].Mul(sim.Rot).Normalize()}
}
