package snapshot

import (
	"fmt"

	"github.com/netphys/netphys/wire"
)

// A Simulator predicts a snapshot by running the simulation the snapshots
// come from, from Base forward BaseAge ticks with the inputs of those
// ticks. Stage 9 given one (Codec.Simulator) codes each cube against the
// simulated one instead of a straight line from Prev through Base, and
// sends the inputs (Snapshot.Inputs) so that the receiver can run the same
// simulation: it then pays only for where the cubes went differently from
// the simulation started from quantized states.
//
// Both ends must hold equivalent simulators and Predict must be a pure
// function of its arguments, bit-identical on every platform: a prediction
// that differs by one bit between the ends decodes to a wrong snapshot.
// scene.Predictor is the cube world's.
type Simulator interface {
	// InputBits is the width of one tick's input, 1 to 32.
	InputBits() int
	// Predict writes into dst (one cube per cube of ref.Base) the position
	// and orientation of every cube ref.BaseAge ticks after ref.Base,
	// applying inputs[k] on the k-th tick after it. ref.Prev, ref.PrevAge
	// ticks before ref.Base, gives the velocities. Every field of ref is
	// set; positions may leave the codec's bounds (they are clamped).
	Predict(dst []Cube, ref Reference, inputs []uint32) error
}

// maxInputTicks is the hard bound on Config.MaxSimulatedTicks: the inputs
// a packet carries stay few.
const maxInputTicks = 64

// simulates reports whether the codec runs its simulator against ref:
// never for a Base more than Config.MaxSimulatedTicks old, so that a
// packet can make its receiver simulate at most that many ticks.
func (c Codec) simulates(ref Reference) bool {
	return c.Simulator != nil && ref.Base != nil && ref.Prev != nil &&
		ref.BaseAge > 0 && ref.BaseAge <= min(c.Config.MaxSimulatedTicks, maxInputTicks) && ref.PrevAge > 0
}

// serializeInputs codes snap.Inputs, the inputs of the ref.BaseAge ticks
// after Base: the first in full, each later one as "same as the tick
// before" under a model, or in full.
func (c Codec) serializeInputs(s wire.Stream, snap *Snapshot, baseAge int) error {
	bits := c.Simulator.InputBits()
	if bits < 1 || bits > 32 {
		return fmt.Errorf("snapshot: simulator input of %d bits: %w", bits, wire.ErrConfig)
	}
	if s.Mode() == wire.Reading {
		snap.Inputs = append(snap.Inputs[:0], make([]uint32, baseAge)...)
	} else if len(snap.Inputs) != baseAge {
		return fmt.Errorf("snapshot: %d inputs for a baseline %d ticks old: %w", len(snap.Inputs), baseAge, ErrCount)
	}
	var same bitModel
	for k := range snap.Inputs {
		in := &snap.Inputs[k]
		if k > 0 {
			repeat := *in == snap.Inputs[k-1]
			if err := same.code(s, &repeat); err != nil {
				return err
			}
			if repeat {
				*in = snap.Inputs[k-1]
				continue
			}
		}
		if err := wire.SerializeBits(s, in, bits); err != nil {
			return fmt.Errorf("snapshot: input %d: %w", k, err)
		}
		if k > 0 && *in == snap.Inputs[k-1] {
			return fmt.Errorf("snapshot: repeated input sent in full: %w", wire.ErrInvalid)
		}
	}
	return nil
}

// simulate runs the simulator and returns its prediction in integer form:
// positions clamped into the bounds; a cube whose simulated state is not
// finite or not a rotation keeps its Base state.
func (c Codec) simulate(inputs []uint32, ref Reference, base []quantizedCube) ([]quantizedCube, error) {
	cfg := c.stageConfig()
	out := make([]Cube, len(ref.Base.Cubes))
	if err := c.Simulator.Predict(out, ref, inputs); err != nil {
		return nil, fmt.Errorf("snapshot: simulator: %w", err)
	}
	q := make([]quantizedCube, len(out))
	for i, cube := range out {
		q[i] = base[i]
		if !cube.Position.IsFinite() {
			continue
		}
		idx, err := cfg.Position.Index(cfg.Position.Clamp(cube.Position))
		if err != nil {
			continue
		}
		q[i].pos = [3]int64{int64(idx[0]), int64(idx[1]), int64(idx[2])}
		if rot, err := wire.QuantizeQuat(cube.Rotation, cfg.OrientationBits); err == nil {
			q[i].rot = rot
		}
	}
	return q, nil
}
