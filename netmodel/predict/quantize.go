package predict

import (
	"errors"
	"fmt"

	"github.com/netphys/netphys/wire"
)

// ErrOutOfSpec reports a body the game left outside its Spec, which no
// Escaper put back: the model does not clamp it silently.
var ErrOutOfSpec = errors.New("predict: body outside the game's spec")

// settle quantizes every body of g in place and stores the quantized
// states in dst (len(dst) == g.Bodies()): the end of every tick, on the
// server and in a client's prediction alike (quantize on both sides). A
// body outside the spec is counted in *escaped and handed to the game's
// Escaper, if it has one, which must put it back; one still outside is
// ErrOutOfSpec.
func settle[I any](g Game[I], c *caps[I], spec wire.StateSpec, dst []wire.BodyState, escaped *uint64) error {
	for i := range dst {
		q, err := g.Body(i).Quantize(spec)
		if err != nil {
			*escaped++
			if c.escaper == nil {
				return fmt.Errorf("%w: body %d: %w", ErrOutOfSpec, i, err)
			}
			c.escaper.Escaped(i, err)
			if q, err = g.Body(i).Quantize(spec); err != nil {
				return fmt.Errorf("%w: body %d, still after Escaped: %w", ErrOutOfSpec, i, err)
			}
		}
		if err := g.SetBody(i, q); err != nil {
			return fmt.Errorf("predict: body %d: %w", i, err)
		}
		dst[i] = q
	}
	return nil
}

// posError returns the largest difference along one axis between two
// positions, in units of the spec's position resolution: more than 1 is
// a misprediction.
func posError(spec wire.StateSpec, a, b wire.BodyState) float64 {
	d := a.Position.Sub(b.Position).Abs()
	return max(d.X, d.Y, d.Z) / spec.Position.Res
}
