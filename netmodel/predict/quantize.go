package predict

import (
	"fmt"

	"github.com/netphys/netphys/wire"
)

// settle quantizes every body of g in place and stores the quantized
// states in dst (len(dst) == g.Bodies()): the end of every tick, on the
// server and in a client's prediction alike (quantize on both sides).
// A value beyond the spec's bounds is clamped first: a body flung out of
// the arena stops at its edge instead of breaking the encoding.
func settle(g Game, spec wire.StateSpec, dst []wire.CubeState) error {
	for i := range dst {
		q, err := quantize(spec, g.Body(i))
		if err != nil {
			return fmt.Errorf("predict: body %d: %w", i, err)
		}
		if err := g.SetBody(i, q); err != nil {
			return fmt.Errorf("predict: body %d: %w", i, err)
		}
		dst[i] = q
	}
	return nil
}

func quantize(spec wire.StateSpec, s wire.CubeState) (wire.CubeState, error) {
	s.Position = spec.Position.Clamp(s.Position)
	s.LinearVelocity = spec.LinearVelocity.Clamp(s.LinearVelocity)
	s.AngularVelocity = spec.AngularVelocity.Clamp(s.AngularVelocity)
	return s.Quantize(spec)
}

// posError returns the largest difference along one axis between two
// positions, in units of the spec's position resolution: more than 1 is
// a misprediction.
func posError(spec wire.StateSpec, a, b wire.CubeState) float64 {
	d := a.Position.Sub(b.Position).Abs()
	return max(d.X, d.Y, d.Z) / spec.Position.Res
}
