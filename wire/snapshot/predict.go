package snapshot

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// Stage 9 goes past the article in three ways.
//
//  1. Prediction. Both sides hold two acknowledged snapshots, Prev and
//     Base. A cube that moved between them is predicted to keep moving.
//     Position: pred = base + (base - prev)·BaseAge/PrevAge in integer
//     quantization steps, rounded to nearest; a cube whose height changed
//     is assumed in flight and predicted to fall by the gravity term a
//     straight line misses (the VR article's ballistic prediction, without
//     sending velocities). Orientation: the rotation from Prev to Base,
//     Δ = base·prev⁻¹, is continued, Δ^(BaseAge/PrevAge)·base, and the
//     result quantized to smallest three; a cube spinning steadily is then
//     predicted even as its largest component changes. Only residuals are
//     sent. Both sides compute the same predictions: integer arithmetic,
//     and float arithmetic that is bit-identical everywhere (vecmath).
//  2. Range coding. Every bit goes through the adaptive binary range
//     coder, so the "not changed" flags of 900 resting cubes cost a byte
//     or two, not 900 bits, and residuals are coded in an adaptive
//     Exp-Golomb code (wire.SignedModel) that learns their distribution
//     within the packet.
//  3. Contexts. Each flag and residual has its own models, selected by
//     what both sides know: whether the cube moved from Prev to Base, is
//     interacting in Base, whether the previous cube changed (cubes move
//     in groups), how far the cube is predicted to move (residuals grow
//     with it) and, for the height, whether it is in flight.
//
// Per cube, all under models:
//
//	changed [position changed | orientation changed |
//	         3 × position residual |
//	         same largest as predicted (3 × rotation residual | largest, 3 × 9 bits) |
//	         interacting]
//
// Measured on the synthetic script of the tests: predicting the rotation
// as a quaternion rather than extrapolating the smallest-three components
// made stage 9 23 % smaller (900 cubes); 1/16 model adaptation rather than
// 1/32 another 3 % (300 cubes: 336 → 326 bytes per snapshot, against 721
// for stage 8). Tried and dropped: contexts from the previous axis's
// residual (no gain), mixing a fast and a slow probability estimate
// (worse than the fast one alone), separate models per smallest-three
// component (worse: more models learn from fewer bits each).
//
// Prediction needs Prev to be a few ticks older than Base: extrapolating
// six ticks ahead from snapshots one tick apart multiplies quantization
// noise by about seven (on the script: 364 bytes instead of 326).

// models are the adaptive models of one stage-9 snapshot. Both sides start
// from fresh models for every snapshot, so a packet never depends on an
// earlier one having arrived.
type models struct {
	changed     [8]wire.Prob // [moving][base interacting][previous cube changed]
	posChanged  [2]wire.Prob // [moving]
	rotChanged  [2]wire.Prob
	interacting [4]wire.Prob // [moving][base interacting]
	sameLargest [2]wire.Prob
	largest     [4]wire.Prob                 // 2-bit tree
	pos         [buckets][3]wire.SignedModel // [motion bucket][axis class]
	rot         [buckets]wire.SignedModel
}

// Axis classes of the position residual models: x and z behave alike;
// y behaves differently for a cube on the ground and one in flight.
const (
	axisHorizontal = iota
	axisGroundY
	axisFlightY
)

// probMostlyUnchanged starts the "changed" models at P(unchanged) = 0.95:
// most cubes of a scene rest most of the time, and a resting scene then
// costs a byte or two instead of the bytes the models spend learning it.
const probMostlyUnchanged wire.Prob = 3891

func newModels() *models {
	m := &models{}
	for _, p := range [][]wire.Prob{m.posChanged[:], m.rotChanged[:], m.interacting[:],
		m.sameLargest[:], m.largest[:]} {
		wire.ResetProbs(p)
	}
	for i := range m.changed {
		m.changed[i] = probMostlyUnchanged
	}
	for i := range m.pos {
		for j := range m.pos[i] {
			m.pos[i][j].Reset()
		}
		m.rot[i].Reset()
	}
	return m
}

// extrapolate returns b + (b - p)·num/den rounded to nearest (ties up).
func extrapolate(b, p int64, num, den int64) int64 {
	d := 2*(b-p)*num + den
	q := d / (2 * den)
	if d%(2*den) < 0 {
		q-- // floor division
	}
	return b + q
}

// predictor holds what both sides derive from the reference.
type predictor struct {
	base, prev []qcube
	num, den   int64 // BaseAge, PrevAge; den == 0: no prediction
	bits       int   // smallest-three bits per component
	drop       int64 // ballistic correction of a cube in flight, in steps
}

func (p *predictor) moving(i int) bool {
	return p.den > 0 && p.prev[i] != p.base[i]
}

// inFlight reports whether cube i is taken to be in flight: its height
// changed from Prev to Base.
func (p *predictor) inFlight(i int) bool {
	return p.den > 0 && p.base[i].pos[1] != p.prev[i].pos[1]
}

func (p *predictor) position(i int, top [3]int64) [3]int64 {
	b := p.base[i].pos
	if !p.moving(i) {
		return b
	}
	var out [3]int64
	for a := range out {
		out[a] = extrapolate(b[a], p.prev[i].pos[a], p.num, p.den)
	}
	// A cube in flight falls by the gravity drop that a straight line
	// through two points of its parabola misses.
	if p.inFlight(i) {
		out[1] -= p.drop
	}
	for a := range out {
		out[a] = min(max(out[a], 0), top[a])
	}
	return out
}

// ballisticDrop returns, in position steps, how far below the straight
// extrapolation from Prev through Base a body in free fall lands after
// BaseAge ticks: g/2 · B·(B+P) · dt². The float arithmetic is done once,
// identically on both sides, and rounded to an integer.
func (cfg Config) ballisticDrop(baseAge, prevAge int64) int64 {
	if !(cfg.Gravity > 0) || cfg.TickRate <= 0 {
		return 0
	}
	ticks2 := float64(baseAge * (baseAge + prevAge))
	rate2 := float64(cfg.TickRate * cfg.TickRate)
	d := float64(float64(cfg.Gravity/2)*ticks2) / rate2 / cfg.Position.Res
	if !(d < 1<<40) {
		return 0 // absurd gravity: float-to-int conversion would differ by platform
	}
	return int64(math.Floor(d + 0.5))
}

// maxExtrapolation bounds BaseAge/PrevAge: extrapolating further than
// that is noise, and the bound keeps the integer arithmetic far from
// overflow.
const maxExtrapolation = 64

// maxAge bounds BaseAge (ticks; 4.8 hours at 60 Hz) for the same reason.
const maxAge = 1 << 20

// buckets is the number of motion classes that select residual models: a
// cube's residual grows with how far it is predicted to move.
const buckets = 4

// bucket classifies a predicted displacement of d quantization steps;
// bucket 0 is "not predicted to move". small sets the scale.
func bucket(d, small int64) int {
	switch {
	case d == 0:
		return 0
	case d < small:
		return 1
	case d < 8*small:
		return 2
	}
	return 3
}

// displacement returns the largest per-axis distance from a to b.
func displacement[T int32 | int64](a, b [3]T) int64 {
	var d int64
	for i := range a {
		d = max(d, int64(a[i]-b[i]), int64(b[i]-a[i]))
	}
	return d
}

// rotation predicts the smallest three of cube i: the rotation from Prev
// to Base, Δ = base·prev⁻¹, continued for BaseAge/PrevAge more times its
// duration, q = Δ^(B/P)·base. A cube spinning at a constant rate is
// predicted exactly (up to quantization), including when its largest
// component changes, which extrapolating the components cannot do.
func (p *predictor) rotation(i int) wire.SmallestThree {
	b := p.base[i].rot
	if !p.moving(i) || p.prev[i].rot == b {
		return b
	}
	qb, qp := b.Quat(p.bits), p.prev[i].rot.Quat(p.bits)
	d := qb.Mul(qp.Conj())
	if d.W < 0 {
		d = d.Neg() // the short way round
	}
	// Atan2 keeps small angles accurate where Acos(w) would not.
	vlen := vecmath.V3(d.X, d.Y, d.Z).Length()
	if vlen < 1e-12 {
		return b
	}
	half := vecmath.Atan2(vlen, d.W)
	sk, ck := vecmath.SinCos(float64(half*float64(p.num)) / float64(p.den))
	f := sk / vlen
	dk := vecmath.Quat{X: float64(d.X * f), Y: float64(d.Y * f), Z: float64(d.Z * f), W: ck}
	pred, err := wire.QuantizeQuat(dk.Mul(qb).Normalize(), p.bits)
	if err != nil {
		return b // unreachable for unit inputs; the baseline is a valid guess
	}
	return pred
}

func (c Codec) serializePredicted(s wire.Stream, snap *Snapshot, ref Reference) error {
	cfg := c.Config
	if ref.Base == nil {
		// No baseline: stage 4's full cubes.
		return c.serializeDelta(s, snap, ref)
	}
	n := len(snap.Cubes)
	cur := make([]qcube, n)
	if s.Mode() != wire.Reading {
		var err error
		if cur, err = cfg.quantizeAll(snap); err != nil {
			return err
		}
	}
	pr := predictor{bits: cfg.OrientationBits}
	var err error
	if pr.base, err = cfg.referenceInts(ref.Base); err != nil {
		return fmt.Errorf("snapshot: baseline: %w", err)
	}
	if ref.Prev != nil && ref.BaseAge > 0 && ref.PrevAge > 0 && ref.BaseAge <= maxExtrapolation*ref.PrevAge && ref.BaseAge <= maxAge {
		if pr.prev, err = cfg.referenceInts(ref.Prev); err != nil {
			return fmt.Errorf("snapshot: previous baseline: %w", err)
		}
		pr.num, pr.den = int64(ref.BaseAge), int64(ref.PrevAge)
		pr.drop = cfg.ballisticDrop(pr.num, pr.den)
	}
	m := newModels()
	prevChanged := false
	for i := range cur {
		if err := c.serializePredictedCube(s, m, &pr, i, &cur[i], prevChanged); err != nil {
			return fmt.Errorf("snapshot: cube %d: %w", i, err)
		}
		prevChanged = cur[i] != pr.base[i]
	}
	if s.Mode() == wire.Reading {
		for i := range cur {
			snap.Cubes[i] = cfg.cube(cur[i])
		}
		snap.remember(cfg, cur)
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (c Codec) serializePredictedCube(s wire.Stream, m *models, pr *predictor, i int, q *qcube, prevChanged bool) error {
	base := pr.base[i]
	mv := b2i(pr.moving(i))
	bi := b2i(base.interacting)
	changed := *q != base
	if err := wire.SerializeModelBit(s, &m.changed[mv<<2|bi<<1|b2i(prevChanged)], &changed); err != nil {
		return err
	}
	if !changed {
		*q = base
		return nil
	}
	posChanged, rotChanged := q.pos != base.pos, q.rot != base.rot
	if err := wire.SerializeModelBit(s, &m.posChanged[mv], &posChanged); err != nil {
		return err
	}
	if err := wire.SerializeModelBit(s, &m.rotChanged[mv], &rotChanged); err != nil {
		return err
	}
	if !posChanged {
		q.pos = base.pos
	} else if err := c.serializePositionResidual(s, m, pr, i, &q.pos); err != nil {
		return err
	}
	if !rotChanged {
		q.rot = base.rot
	} else if err := c.serializeRotationResidual(s, m, pr, i, &q.rot); err != nil {
		return err
	}
	if err := wire.SerializeModelBit(s, &m.interacting[mv<<1|bi], &q.interacting); err != nil {
		return err
	}
	// Canonical form: what the flags say changed must have changed.
	if (posChanged && q.pos == base.pos) || (rotChanged && q.rot == base.rot) || *q == base {
		return fmt.Errorf("snapshot: cube sent unchanged: %w", wire.ErrInvalid)
	}
	return nil
}

func (c Codec) serializePositionResidual(s wire.Stream, m *models, pr *predictor, i int, pos *[3]int64) error {
	top := c.Config.maxIndex()
	pred := pr.position(i, top)
	mv := bucket(displacement(pred, pr.base[i].pos), 8)
	for a := range pos {
		r := pos[a] - pred[a]
		ctx := axisHorizontal // x and z share their models
		if a == 1 {
			ctx = axisGroundY
			if pr.inFlight(i) {
				ctx = axisFlightY
			}
		}
		if err := m.pos[mv][ctx].Serialize(s, &r); err != nil {
			return err
		}
		pos[a] = pred[a] + r
		if pos[a] < 0 || pos[a] > top[a] {
			return fmt.Errorf("snapshot: position index %d outside [0, %d]: %w", pos[a], top[a], wire.ErrInvalid)
		}
	}
	return nil
}

func (c Codec) serializeRotationResidual(s wire.Stream, m *models, pr *predictor, i int, rot *wire.SmallestThree) error {
	bits := c.Config.OrientationBits
	base := pr.base[i].rot
	pred := pr.rotation(i)
	mv := b2i(pr.moving(i))
	same := rot.Largest == pred.Largest
	if err := wire.SerializeModelBit(s, &m.sameLargest[mv], &same); err != nil {
		return err
	}
	k := int64(1)<<(bits-1) - 1
	if same {
		rot.Largest = pred.Largest
		mb := 3
		if pred.Largest == base.Largest {
			mb = bucket(displacement(pred.C, base.C), 2)
		}
		for a := range rot.C {
			r := int64(rot.C[a]) - int64(pred.C[a])
			if err := m.rot[mb].Serialize(s, &r); err != nil {
				return err
			}
			v := int64(pred.C[a]) + r
			if v < -k || v > k {
				return fmt.Errorf("snapshot: rotation component %d outside ±%d: %w", v, k, wire.ErrInvalid)
			}
			rot.C[a] = int32(v)
		}
	} else {
		l := uint32(rot.Largest)
		if err := wire.SerializeTree(s, m.largest[:], &l, 2); err != nil {
			return err
		}
		rot.Largest = uint8(l)
		if rot.Largest == pred.Largest {
			return fmt.Errorf("snapshot: full orientation with the predicted largest component: %w", wire.ErrInvalid)
		}
		for a := range rot.C {
			if err := wire.SerializeInt(s, &rot.C[a], int32(-k), int32(k)); err != nil {
				return err
			}
		}
	}
	if !rot.Valid(bits) {
		return fmt.Errorf("snapshot: orientation %+v: %w", *rot, wire.ErrInvalid)
	}
	return nil
}
