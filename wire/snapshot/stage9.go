package snapshot

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/wire"
)

// models are the adaptive models of one stage-9 snapshot. Both sides start
// from fresh models for every snapshot, so a packet never depends on an
// earlier one having arrived.
type models struct {
	changed     [8]bitModel // [moving][base interacting][previous cube changed]
	posChanged  [2]bitModel // [moving]
	rotChanged  [4]bitModel // [spinning][position changed]
	interacting [4]bitModel // [moving][base interacting]
	sameLargest [2]bitModel
	largest     tree2
	ballistic   bitModel
	pos         [buckets][3]signedModel  // [motion bucket][axis class]
	rot         [buckets + 1]signedModel // [motion bucket or rotSwitched]
	vel         [2]signedModel           // [vertical axis]
}

// rotSwitched selects the rotation residual model of a cube whose largest
// component is not the predicted one.
const rotSwitched = buckets

// Axis classes of the position residual models: x and z behave alike;
// y behaves differently for a cube on the ground and one in flight.
const (
	axisHorizontal = iota
	axisGroundY
	axisFlightY
)

// mostlyUnchanged starts the "changed" models at P(unchanged) = 0.95,
// as sure as 8 bits seen: most cubes of a scene rest most of the time,
// and a resting scene then costs a byte or two instead of the bytes the
// models spend learning it.
var mostlyUnchanged = newBitModel(62259, 8)

func newModels() *models {
	m := &models{}
	for i := range m.changed {
		m.changed[i] = mostlyUnchanged
	}
	return m
}

func (c Codec) serializePredicted(s wire.Stream, snap *Snapshot, ref Reference) error {
	cfg := c.stageConfig()
	n := len(snap.Cubes)
	target, err := cfg.codingTarget(s, snap)
	if err != nil {
		return err
	}
	defer releaseTarget(s, target)
	cur := *target
	predictions := predictor{bits: cfg.OrientationBits}
	keyframe := ref.Base == nil
	if keyframe {
		// No baseline: each cube is predicted from the two cubes before
		// it, as if they were its Base and Prev one tick apart. The
		// scene's cubes are laid out in order, so a resting grid costs a
		// few bits per cube rather than stage 4's 80.
		predictions.base, predictions.prev = make([]quantizedCube, n), make([]quantizedCube, n)
		predictions.num, predictions.den = 1, 1
	} else if predictions.base, err = cfg.referenceInts(ref.Base); err != nil {
		return fmt.Errorf("snapshot: baseline: %w", err)
	} else if ref.BaseAge > 0 && ref.BaseAge <= maxAge {
		predictions.age = int64(ref.BaseAge)
	}
	if !keyframe && ref.Prev != nil && ref.BaseAge > 0 && ref.PrevAge > 0 && ref.BaseAge <= maxExtrapolation*ref.PrevAge && ref.BaseAge <= maxAge {
		if predictions.prev, err = cfg.referenceInts(ref.Prev); err != nil {
			return fmt.Errorf("snapshot: previous baseline: %w", err)
		}
		predictions.num, predictions.den = int64(ref.BaseAge), int64(ref.PrevAge)
		predictions.drop = cfg.ballisticDrop(predictions.num, predictions.den)
		if c.simulates(ref) {
			if err := c.serializeInputs(s, snap, ref.BaseAge); err != nil {
				return err
			}
			if predictions.sim, err = c.simulate(snap.Inputs, ref, predictions.base); err != nil {
				return err
			}
		}
	}
	m := newModels()
	prevChanged := false
	for i := range cur {
		if keyframe && i > 0 {
			predictions.base[i], predictions.prev[i] = cur[i-1], predictions.base[i-1]
		}
		if err := c.serializePredictedCube(s, m, &predictions, i, &cur[i], prevChanged); err != nil {
			return fmt.Errorf("snapshot: cube %d: %w", i, err)
		}
		prevChanged = cur[i] != predictions.base[i]
	}
	if s.Mode() == wire.Reading {
		for i := range cur {
			snap.Cubes[i] = cfg.cube(cur[i])
		}
		snap.remember(cfg, cur)
	}
	return nil
}

// boolIndex is 1 for true and 0 for false: a bool as a model index.
func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (c Codec) serializePredictedCube(s wire.Stream, m *models, predictions *predictor, i int, q *quantizedCube, prevChanged bool) error {
	base := predictions.base[i]
	moving := boolIndex(predictions.moving(i))
	baseInteracting := boolIndex(base.interacting)
	changed := *q != base
	if err := m.changed[moving<<2|baseInteracting<<1|boolIndex(prevChanged)].code(s, &changed); err != nil {
		return err
	}
	if !changed {
		*q = base
		return nil
	}
	posChanged, rotChanged := q.pos != base.pos, q.rot != base.rot
	if err := m.posChanged[moving].code(s, &posChanged); err != nil {
		return err
	}
	if err := m.rotChanged[boolIndex(predictions.spinning(i))<<1|boolIndex(posChanged)].code(s, &rotChanged); err != nil {
		return err
	}
	if !posChanged {
		q.pos = base.pos
	} else if err := c.serializePositionResidual(s, m, predictions, i, &q.pos); err != nil {
		return err
	}
	if !rotChanged {
		q.rot = base.rot
	} else if err := c.serializeRotationResidual(s, m, predictions, i, &q.rot); err != nil {
		return err
	}
	if c.stageConfig().sendsVelocity() {
		if err := c.serializeVelocityResidual(s, m, predictions, i, q); err != nil {
			return err
		}
	}
	if err := m.interacting[moving<<1|baseInteracting].code(s, &q.interacting); err != nil {
		return err
	}
	// Canonical form: what the flags say changed must have changed.
	if (posChanged && q.pos == base.pos) || (rotChanged && q.rot == base.rot) || *q == base {
		return fmt.Errorf("snapshot: cube sent unchanged: %w", wire.ErrInvalid)
	}
	return nil
}

func (c Codec) serializePositionResidual(s wire.Stream, m *models, predictions *predictor, i int, pos *[3]int64) error {
	top := c.Config.maxIndex()
	pred := predictions.position(i, top)
	motion := bucket(displacement(pred, predictions.base[i].pos), 8)
	trend := [3]int64{pred[0] - predictions.base[i].pos[0], pred[1] - predictions.base[i].pos[1], pred[2] - predictions.base[i].pos[2]}
	// Falling by the gravity drop that a straight line through two points
	// of a parabola misses is right for a cube in free flight and wrong
	// for one riding a pile or the katamari ball, which the height change
	// alone cannot tell apart: the encoder says which guess is nearer.
	flight := predictions.sim == nil && predictions.inFlight(i) && predictions.drop > 0
	straight, fall := pred[1], max(pred[1]-predictions.drop, 0)
	nearer := func(y int64) bool { return max(y-fall, fall-y) < max(y-straight, straight-y) }
	ballistic := flight && nearer(pos[1])
	if flight {
		if err := m.ballistic.code(s, &ballistic); err != nil {
			return err
		}
		if ballistic {
			pred[1] = fall
		}
	}
	for a := range pos {
		r := pos[a] - pred[a]
		ctx := axisHorizontal // x and z share their models
		if a == 1 {
			ctx = axisGroundY
			if predictions.inFlight(i) {
				ctx = axisFlightY
			}
		}
		if err := m.pos[motion][ctx].code(s, &r, trend[a]); err != nil {
			return err
		}
		pos[a] = pred[a] + r
		if pos[a] < 0 || pos[a] > top[a] {
			return fmt.Errorf("snapshot: position index %d outside [0, %d]: %w", pos[a], top[a], wire.ErrInvalid)
		}
	}
	// Canonical form: the flag must be the encoder's choice.
	if flight && ballistic != nearer(pos[1]) {
		return fmt.Errorf("snapshot: ballistic flag is not the nearer guess: %w", wire.ErrInvalid)
	}
	return nil
}

func (c Codec) serializeRotationResidual(s wire.Stream, m *models, predictions *predictor, i int, rot *wire.SmallestThree) error {
	bits := c.Config.OrientationBits
	base := predictions.base[i].rot
	pred := predictions.rotation(i)
	moving := boolIndex(predictions.moving(i))
	same := rot.Largest == pred.Largest
	if err := m.sameLargest[moving].code(s, &same); err != nil {
		return err
	}
	rotModel := rotSwitched
	var trend [3]int64 // predicted turn per component, where comparable
	if same {
		rot.Largest = pred.Largest
		rotModel = 3
		if pred.Largest == base.Largest {
			rotModel = bucket(displacement(pred.C, base.C), 2)
			for a := range trend {
				trend[a] = int64(pred.C[a]) - int64(base.C[a])
			}
		}
	} else {
		l := uint32(rot.Largest)
		if err := m.largest.code(s, &l); err != nil {
			return err
		}
		rot.Largest = uint8(l)
		if rot.Largest == pred.Largest {
			return fmt.Errorf("snapshot: full orientation with the predicted largest component: %w", wire.ErrInvalid)
		}
		pred.C = reexpress(pred, bits, rot.Largest)
	}
	k := int64(1)<<(bits-1) - 1
	for a := range rot.C {
		r := int64(rot.C[a]) - int64(pred.C[a])
		if err := m.rot[rotModel].code(s, &r, trend[a]); err != nil {
			return err
		}
		v := int64(pred.C[a]) + r
		if v < -k || v > k {
			return fmt.Errorf("snapshot: rotation component %d outside ±%d: %w", v, k, wire.ErrInvalid)
		}
		rot.C[a] = int32(v)
	}
	if !rot.Valid(bits) {
		return fmt.Errorf("snapshot: orientation %+v: %w", *rot, wire.ErrInvalid)
	}
	return nil
}

// serializeVelocityResidual codes the velocity of a changed cube (when the
// configuration sends velocities) as a residual from a prediction both
// sides can make once the position is decoded: the mean velocity since
// Base for a cube that moved, Base's velocity otherwise.
func (c Codec) serializeVelocityResidual(s wire.Stream, m *models, predictions *predictor, i int, q *quantizedCube) error {
	cfg := c.stageConfig()
	base := &predictions.base[i]
	pred := base.vel
	if predictions.age > 0 && cfg.TickRate > 0 && q.pos != base.pos {
		for a := range pred {
			moved := float64(float64(q.pos[a]-base.pos[a]) * cfg.Position.Res)
			mps := float64(moved*float64(cfg.TickRate)) / float64(predictions.age)
			steps := float64(mps-cfg.Velocity.Min.Comp(a)) / cfg.Velocity.Res
			top := float64(cfg.Velocity.Axis(a).Steps())
			pred[a] = int64(math.Floor(max(0, min(top, steps)) + 0.5))
		}
	}
	for a := range q.vel {
		r := q.vel[a] - pred[a]
		if err := m.vel[boolIndex(a == 1)].code(s, &r, 0); err != nil {
			return err
		}
		q.vel[a] = pred[a] + r
		if top := int64(cfg.Velocity.Axis(a).Steps()); q.vel[a] < 0 || q.vel[a] > top {
			return fmt.Errorf("snapshot: velocity index %d outside [0, %d]: %w", q.vel[a], top, wire.ErrInvalid)
		}
	}
	return nil
}
