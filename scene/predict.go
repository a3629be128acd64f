package scene

import (
	"fmt"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire/snapshot"
)

// Predictor is the cube world's snapshot.Simulator: it runs a private copy
// of the scene from a snapshot codec's reference, so that stage 9 of the
// snapshot table codes only where the real scene went differently. The
// snapshot's cube 0 is the player and cube i+1 is Cubes[i]; an input is
// Input.Bits.
//
// Every prediction starts from the same saved scene (the layout as built)
// with every body's pose set from Base: a cube that did not move from Prev
// to Base rests, the others move with the velocities that carry them from
// Prev to Base. Nothing of an earlier prediction survives into the next,
// so the sender, which predicts for every packet, and the receiver, which
// predicts only for those it gets, agree bit for bit.
type Predictor struct {
	scene  *Scene
	start  Snapshot
	bodies []physics.BodyID // in snapshot order
	dt     float64
}

// NewPredictor builds a predictor for scenes of the given layout and
// configuration. A Predictor is not safe for concurrent use: each end of a
// connection needs its own.
func NewPredictor(layout Layout, cfg Config) (*Predictor, error) {
	s, err := New(layout, cfg)
	if err != nil {
		return nil, err
	}
	p := &Predictor{scene: s, bodies: append([]physics.BodyID{s.Player}, s.Cubes...), dt: cfg.Physics.TimeStep}
	s.Save(&p.start)
	return p, nil
}

// InputBits implements snapshot.Simulator.
func (p *Predictor) InputBits() int { return InputBits }

// Predict implements snapshot.Simulator.
func (p *Predictor) Predict(dst []snapshot.Cube, ref snapshot.Reference, inputs []uint32) error {
	n := len(p.bodies)
	if len(dst) != n || len(ref.Base.Cubes) != n || len(ref.Prev.Cubes) != n {
		return fmt.Errorf("scene: predicting %d cubes of a scene of %d: %w", len(ref.Base.Cubes), n, snapshot.ErrCount)
	}
	s := p.scene
	if err := s.Load(&p.start); err != nil {
		return err
	}
	span := float64(ref.PrevAge) * p.dt
	for i, id := range p.bodies {
		st := restingOrMoving(ref.Base.Cubes[i], ref.Prev.Cubes[i], span)
		if err := s.World.SetState(id, st); err != nil {
			return fmt.Errorf("scene: cube %d: %w", i, err)
		}
	}
	for _, in := range inputs {
		s.Step(InputFromBits(uint8(in)))
	}
	for i, id := range p.bodies {
		st := s.State(id)
		dst[i] = snapshot.Cube{Position: st.Position, Rotation: st.Rotation}
	}
	return nil
}

// restingOrMoving returns the state of a body at base that was at prev
// span seconds earlier: at rest if it did not move, else moving at the
// mean linear and angular velocity from prev to base.
func restingOrMoving(base, prev snapshot.Cube, span float64) physics.BodyState {
	st := physics.BodyState{Position: base.Position, Rotation: base.Rotation}
	if base.Position == prev.Position && base.Rotation == prev.Rotation {
		st.AtRest = true
		return st
	}
	st.LinearVelocity = base.Position.Sub(prev.Position).Scale(1 / span)
	d := base.Rotation.Mul(prev.Rotation.Conj())
	if d.W < 0 {
		d = d.Neg() // the short way round
	}
	axis := vecmath.V3(d.X, d.Y, d.Z)
	if sin := axis.Length(); sin > 1e-12 {
		angle := 2 * vecmath.Atan2(sin, d.W)
		st.AngularVelocity = axis.Scale(angle / sin / span)
	}
	return st
}
