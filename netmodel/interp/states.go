package interp

import (
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// StateGame is a game whose objects' state is a wire.BodyState quantized
// by its own wire.StateSpec, the form the state-sync and prediction
// models use, rather than a snapshot.Cube within the codec's default
// bounds: an arena with a floor below zero, a world larger than the cube
// world's 512 m, finer positions or coarser orientations.
type StateGame interface {
	// Objects, Step: as Game's.
	Objects() int
	Step() uint32
	// Spec is the quantization of every object's state, fixed for the
	// match.
	Spec() wire.StateSpec
	// CaptureStates writes every object's state into dst (Objects()
	// long).
	CaptureStates(dst []wire.BodyState)
}

// ForStates returns cfg with its codec quantizing positions and
// orientations as g's Spec does (bounds, resolution, bits per
// smallest-three component; with SentVelocity, linear velocities within
// the spec's bounds too), and g as a Game: each object goes out as a
// snapshot.Cube of its position, orientation and linear velocity,
// Interacting while it is not at rest. A StateGame that is a Resetter
// stays one. Both ends must use the returned Config; angular velocities
// are not sent (clients draw, they do not simulate).
func ForStates(cfg Config, g StateGame) (Config, Game) {
	spec := g.Spec()
	cfg.Codec.Config.Position = spec.Position
	cfg.Codec.Config.OrientationBits = spec.OrientationBits
	if cfg.SentVelocity {
		cfg.Codec.Config.Velocity = spec.LinearVelocity
	}
	sg := &stateGame{g: g, states: make([]wire.BodyState, g.Objects())}
	if r, ok := g.(Resetter); ok {
		return cfg, &resettingStateGame{sg, r}
	}
	return cfg, sg
}

type stateGame struct {
	g      StateGame
	states []wire.BodyState
}

func (s *stateGame) Objects() int { return s.g.Objects() }
func (s *stateGame) Step() uint32 { return s.g.Step() }

func (s *stateGame) Capture(dst []snapshot.Cube) {
	s.g.CaptureStates(s.states)
	for i := range dst {
		st := &s.states[i]
		dst[i] = snapshot.Cube{Position: st.Position, Rotation: st.Rotation, Interacting: !st.AtRest}
		if !st.AtRest {
			dst[i].LinearVelocity = st.LinearVelocity
		}
	}
}

type resettingStateGame struct {
	*stateGame
	r Resetter
}

func (s *resettingStateGame) Resets(dst []bool) { s.r.Resets(dst) }
