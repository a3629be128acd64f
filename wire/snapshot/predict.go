package snapshot

import (
	"math"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// Stage 9 goes past the article in four ways, and a fifth when the codec
// has a Simulator (simulate.go): the prediction is then the simulation
// itself, run from Base with the velocities from Prev to Base and the
// player's inputs, which the packet carries. Straight lines miss what
// makes the residuals of a busy scene: friction, landings, collisions,
// the katamari pull. On the real report the simulation (Prev one tick
// behind Base, the freshest velocities; the ballistic flag dropped, since
// the simulation falls by itself; the "changed" flag's motion context
// set also when the simulation moves the cube) takes stage 9 from 113.9
// to 77.2 bytes per snapshot, 70.7 to 53.1 kbps. The straight-line
// predictor below remains for codecs without a Simulator and for
// references a simulation cannot use.
//
//  1. Prediction. Both sides hold two acknowledged snapshots, Prev and
//     Base. A cube that moved between them is predicted to keep moving.
//     Position: pred = base + (base - prev)·BaseAge/PrevAge in integer
//     quantization steps, rounded to nearest; a cube whose height changed
//     may be in flight, and a flag says whether it also falls by the
//     gravity term a straight line misses (the VR article's ballistic
//     prediction, without sending velocities). Orientation: the rotation
//     from Prev to Base, Δ = base·prev⁻¹, is continued,
//     Δ^(BaseAge/PrevAge)·base, and the result quantized to smallest
//     three; a cube spinning steadily is then predicted even as its
//     largest component changes, and when the largest component is not
//     the predicted one the prediction is rewritten around the actual one
//     (reexpress), so the residuals stay small. Only residuals are sent.
//     Both sides compute the same predictions: integer arithmetic, and
//     float arithmetic that is bit-identical everywhere (vecmath).
//  2. Keyframes. Without a baseline each cube is predicted from the two
//     cubes before it in the snapshot, with the same machinery: a scene
//     laid out in order (a grid of cubes at rest) costs a few bits per
//     cube instead of stage 4's 80.
//  3. Range coding. Every bit goes through the adaptive binary range
//     coder, so the "not changed" flags of 900 resting cubes cost a byte
//     or two, not 900 bits, and residuals are coded in an adaptive
//     Exp-Golomb code (signedModel) that learns their distribution within
//     the packet, its models counting their first bits (bitModel).
//  4. Contexts. Each flag and residual has its own models, selected by
//     what both sides know: whether the cube moved (and turned) from Prev
//     to Base, is interacting in Base, whether the previous cube changed
//     (cubes move in groups), how far the cube is predicted to move
//     (residuals grow with it), whether its position changed (for the
//     orientation flag) and, for the height, whether it is in flight.
//
// Per cube, all under models:
//
//	changed [position changed | orientation changed |
//	         [ballistic] 3 × position residual |
//	         same largest as predicted [largest] 3 × rotation residual |
//	         interacting]
//
// Measured on the real report (netphys bench compression: the scene's
// scripted minute, 100 ms RTT, 5 % loss), in bytes per snapshot packet
// including its header (3 bytes, 2 from the 2-byte-header line on), each
// step on top of the previous one:
//
//	as found (6-byte header, Prev ≥ BaseAge behind Base)   174.0
//	bitModel instead of wire.Prob (counting start)          169.7
//	no unconditional ballistic drop (it hurt: 1 %)           168.8
//	Prev 3 ticks behind Base instead of ≥ BaseAge           165.8
//	no models for mantissa bits below the top one           164.4
//	receive before send in the report (BaseAge 7 → 6)       152.7
//	3-byte header                                           149.6
//	ballistic drop as a flag                                149.6
//	orientation flag context: turned, position changed      149.2
//	reexpress on a largest-component switch                 148.4
//	keyframes predicted cube from cube (9013 → 637 bytes)   121.7
//	bitModel never handing wire the "fresh" Prob 0; rate 1/16 120.9
//	sign of a residual under the trend on its axis          119.6
//	zero flag and exponent under "trend ≠ 0"                117.4
//	2-byte header: the tick rides on the packet sequence    116.4
//	Prev the best of 1, 2, 3, 4, 6 ticks behind Base (Size) 114.5
//	top mantissa bit under a model starting at P(0) = 0.6   113.9
//
// Tried on the real scene and dropped: adding the residual of the nearest
// cube already coded (worse at every distance), or the mean residual of
// the cubes coded so far, or a pull towards the player learnt within the
// packet (no gain: the residuals of the katamari ball are collisions,
// not shared motion); quadratic prediction from a third snapshot (no
// gain); damping the extrapolation (7/8 of it: 4 % worse); a rigid
// rolling-ball model around the player (far worse); contexts from the
// magnitude of the cube's earlier residuals, for its later axes and for
// its orientation (no gain); finer motion buckets (worse); a context for
// cubes near a moving cube on the "changed" flag (0.2 %). Models kept
// across the whole minute (ideal priors) would code the residuals no
// better than the per-packet ones do: what is left is the entropy of
// the residuals under linear prediction. Later, also dropped: adding the
// player's own residual (cube 0, coded first) to the cubes within 2, 4 or
// 6 m of it, at weight 1/2 or 1 (no gain, up to 0.3 % worse); an
// extrapolation gain of 1/2, 3/4, 1 or 5/4 chosen per packet by the
// encoder with a 2-bit flag (no gain); coding the changed cubes in a
// serpentine raster of their baseline positions, 0.25, 1 or 4 m cells,
// so that neighbours come one after the other (0 to 0.5 % worse); Prev
// candidates 9 ticks behind Base and "no Prev" on top of those kept
// (0.2 %, not worth the extra encodings); a per-cube flag, under a model
// per motion bucket, choosing on x and z between the straight line and
// half of it (0.9 % worse) or no extrapolation (0.6 % worse); the top
// mantissa bit's prior at P(0) = 0.63 instead of 0.6 (the same).
//
// On the synthetic script of the tests, predicting the rotation as a
// quaternion rather than extrapolating the smallest-three components made
// stage 9 23 % smaller. Prediction needs Prev not too close to Base:
// extrapolating six ticks ahead from snapshots one tick apart multiplies
// quantization noise by about seven; on the real scene two ticks apart is
// best (internal/compression).

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
	base, prev []quantizedCube
	num, den   int64           // BaseAge, PrevAge; den == 0: no prediction
	bits       int             // smallest-three bits per component
	drop       int64           // ballistic correction of a cube in flight, in steps (≥ 0)
	sim        []quantizedCube // the Simulator's prediction; nil: straight lines
	age        int64           // ticks from Base to the coded snapshot; 0: keyframe
}

// moving reports whether cube i moved or turned from Prev to Base, or is
// simulated to move.
func (p *predictor) moving(i int) bool {
	if p.sim != nil && p.sim[i].pos != p.base[i].pos {
		return true
	}
	return p.den > 0 && p.prev[i] != p.base[i]
}

// inFlight reports whether cube i is taken to be in flight: its height
// changed from Prev to Base.
func (p *predictor) inFlight(i int) bool {
	return p.den > 0 && p.base[i].pos[1] != p.prev[i].pos[1]
}

// position predicts the position of cube i in a straight line from Prev
// through Base. Whether a cube in flight also falls by the ballistic drop
// is the encoder's choice, sent as a flag (serializePositionResidual).
func (p *predictor) position(i int, top [3]int64) [3]int64 {
	if p.sim != nil {
		return p.sim[i].pos
	}
	b := p.base[i].pos
	if !p.moving(i) {
		return b
	}
	var out [3]int64
	for a := range out {
		out[a] = extrapolate(b[a], p.prev[i].pos[a], p.num, p.den)
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
	if p.sim != nil {
		return p.sim[i].rot
	}
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

// spinning reports whether cube i turned from Prev to Base.
func (p *predictor) spinning(i int) bool {
	return p.den > 0 && p.prev[i].rot != p.base[i].rot
}

// reexpress returns the components of the rotation t stands for written
// with component l as the largest one (made positive), rounded to the
// grid: the prediction for a cube whose largest component turns out not
// to be the predicted one. The rotation is the same, so the residuals
// stay as small as when the largest component is predicted right.
func reexpress(t wire.SmallestThree, bits int, l uint8) [3]int32 {
	q := t.Quat(bits)
	c := [4]float64{q.X, q.Y, q.Z, q.W}
	sign := 1.0
	if c[l&3] < 0 {
		sign = -1
	}
	k := int32(1)<<(bits-1) - 1
	scale := float64(k) / math.Sqrt(0.5) // steps per unit
	var out [3]int32
	j := 0
	for i := range c {
		if uint8(i) == l {
			continue
		}
		x := math.Floor(float64(float64(sign*c[i])*scale) + 0.5)
		out[j] = int32(max(-float64(k), min(float64(k), x)))
		j++
	}
	return out
}
