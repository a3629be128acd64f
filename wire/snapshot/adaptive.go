package snapshot

import (
	"fmt"

	"github.com/netphys/netphys/wire"
)

// bitModel is an adaptive binary model that learns fast while it is young:
// its n-th bit moves it 1/(n+2) of the way towards the bit (the running
// frequency, as a count would), until the rate reaches 1/(rateLimit+2).
// wire.Prob moves 1/16 of the way from the first bit on; a stage-9 packet
// has many models that see a few dozen bits each, and on the real scene
// the counting start makes packets 2.5 % smaller (measurements in
// predict.go). It rides on wire.ModelStream: each bit is coded under a
// wire.Prob loaded from the model, whose own update is discarded; on
// the bit packer each bit costs one bit, as wire.SerializeModelBit does.
//
// The zero value is a fresh model at probability 1/2.
type bitModel struct {
	p uint16 // P(bit = 0) in units of 2⁻¹⁶, offset by 1/2: p0 = p + 32768 (mod 2¹⁶)
	n uint8  // bits seen, saturating at rateLimit
}

// rateLimit is the count at which the adaptation rate stops slowing down:
// at 1/16, as wire.Prob. On the real report 14 codes smallest (120.9
// bytes per snapshot; 20: 121.0, 30: 121.2, 62: 121.6).
const rateLimit = 14

// recip[n] = 2¹⁶/(n+2): the adaptation rate of the model's (n+1)-th bit.
var recip = func() (r [rateLimit + 1]int32) {
	for n := range r {
		r[n] = int32(65536 / (n + 2))
	}
	return r
}()

// prob returns P(bit = 0) in units of 2⁻¹⁶.
func (m *bitModel) prob() int32 { return int32(uint16(m.p + 32768)) }

func (m *bitModel) update(bit bool) {
	p := m.prob()
	target := int32(65535)
	if bit {
		target = 0
	}
	// p moves towards target by (target - p)/(n+2), rounded towards p.
	d := (target - p) * recip[m.n] >> 16
	m.p = uint16(p+d) - 32768
	if m.n < rateLimit {
		m.n++
	}
}

// code codes *bit under the model and updates it.
func (m *bitModel) code(s wire.Stream, bit *bool) error {
	// The zero wire.Prob means "fresh" (1/2); wire clamps the rest away
	// from 0 and 1.
	p := wire.Prob(max(m.prob()>>(16-wire.ProbBits), 1))
	if err := wire.SerializeProbBit(s, p, bit); err != nil {
		return err
	}
	m.update(*bit)
	return nil
}

// tree2 codes a 2-bit value, each bit under the model of the bits above.
type tree2 [4]bitModel

func (t *tree2) code(s wire.Stream, v *uint32) error {
	if s.Mode() != wire.Reading && *v > 3 {
		return fmt.Errorf("snapshot: %d does not fit 2 bits: %w", *v, wire.ErrRange)
	}
	node := uint32(1)
	for i := 1; i >= 0; i-- {
		bit := *v>>i&1 != 0
		if err := t[node].code(s, &bit); err != nil {
			return err
		}
		node = node<<1 | uint32(boolIndex(bit))
	}
	*v = node - 4
	return nil
}

// expBits bounds the exponent of a magnitude: position residuals stay
// below 2¹⁹ (the bounds are 2¹⁸ steps wide), orientation ones below 2⁹.
const expBits = 24

// signedModel codes a signed residual that is usually small: a zero flag,
// a sign, then |v| = 1·m in an Exp-Golomb code, the exponent in unary
// under models and the mantissa m in plain bits but for its top bit.
// The models are chosen by the trend: the motion
// predicted on the coded axis. A residual tends to have the sign opposite
// to the trend (the cube slows down) and an axis with no trend tends to
// have no residual. Residuals fall off with their magnitude, so within
// [2^e, 2^(e+1)) the lower half is the likelier one: the top mantissa bit
// is coded under a model that starts at P(0) = 0.6 and adapts at the
// full rate (topPrior; learning it from 1/2 cost more than it saved, and
// the lower bits are uniform: modelling them lost 1 %).
type signedModel struct {
	zero [2]bitModel          // [trend ≠ 0]
	sign [3]bitModel          // [trend: none, up, down]
	exp  [2][expBits]bitModel // [trend ≠ 0][bit of the unary exponent]
	top  [expBits]bitModel    // [exponent]: top mantissa bit; zero value: not used yet
}

// topPrior is the starting point of a top-mantissa-bit model: P(0) = 0.6,
// as sure as rateLimit bits seen. On the real report it saves 0.5 %
// (114.5 → 113.9 bytes per snapshot); P(0) = 0.55 saved less.
var topPrior = newBitModel(39000, rateLimit)

// code codes *v, |*v| < 2^expBits (larger magnitudes are ErrRange),
// trend being what both sides know of the predicted motion on its axis.
func (m *signedModel) code(s wire.Stream, v *int64, trend int64) error {
	if s.Mode() != wire.Reading && (*v >= 1<<expBits || *v <= -(1<<expBits)) {
		return fmt.Errorf("snapshot: residual %d beyond ±2^%d: %w", *v, expBits, wire.ErrRange)
	}
	moving := boolIndex(trend != 0)
	zero := *v == 0
	if err := m.zero[moving].code(s, &zero); err != nil {
		return err
	}
	if zero {
		*v = 0
		return nil
	}
	neg := *v < 0
	if err := m.sign[boolIndex(trend > 0)+2*boolIndex(trend < 0)].code(s, &neg); err != nil {
		return err
	}
	x := max(*v, -*v)
	e := 0 // x < 2^(e+1)
	for e < expBits-1 {
		more := x>>(e+1) != 0
		if err := m.exp[moving][e].code(s, &more); err != nil {
			return err
		}
		if !more {
			break
		}
		e++
	}
	mag := int64(1)
	for i := e - 1; i >= 0; i-- {
		bit := x>>i&1 != 0
		if i == e-1 {
			if m.top[e].n == 0 {
				m.top[e] = topPrior
			}
			if err := m.top[e].code(s, &bit); err != nil {
				return err
			}
		} else if err := wire.SerializeBool(s, &bit); err != nil {
			return err
		}
		mag = mag<<1 | int64(boolIndex(bit))
	}
	if neg {
		mag = -mag
	}
	*v = mag
	return nil
}

// newBitModel returns a model at P(bit = 0) = p0/2¹⁶ that has seen n bits.
func newBitModel(p0 int32, n uint8) bitModel {
	return bitModel{p: uint16(p0) - 32768, n: min(n, rateLimit)}
}
