package wire

import "fmt"

// Prob is an adaptive binary probability model: the probability that the
// next bit is 0, in units of 1/2^ProbBits. It moves 1/16 of the way
// towards each bit it sees: models live for one packet, so they must learn
// within a few dozen bits. (On the snapshot codec's data 1/16 beats 1/32
// by 3 % and beats mixing a fast and a slow estimate; on a long stationary
// source it costs about 15 % over the entropy.) The zero value is
// ProbInit: a fresh model knows nothing. ResetProbs resets used models.
type Prob uint16

const (
	// ProbBits is the precision of a Prob.
	ProbBits = 12
	probOne  = 1 << ProbBits
	// probShift sets the adaptation speed: 1/2^probShift per bit. The
	// model stays within [15, 4081]/4096, so no bit ever costs more than
	// about 8 bits and none is ever impossible.
	probShift = 4
	// ProbInit is the model of a bit about which nothing is known yet.
	ProbInit Prob = probOne / 2
	// probMin and probMax bound a model, where adaptation leaves it.
	probMin = (1 << probShift) - 1
	probMax = probOne - probMin
)

// load returns the model's probability, mapping the zero value to
// ProbInit and clamping values set by hand, so that no model can stall
// the coder (a zero-width range) or overflow its update.
func (p *Prob) load() uint32 {
	switch v := *p; {
	case v == 0:
		*p = ProbInit
	case v < probMin:
		*p = probMin
	case v > probMax:
		*p = probMax
	}
	return uint32(*p)
}

// ResetProbs sets every model in p to ProbInit.
func ResetProbs(p []Prob) {
	for i := range p {
		p[i] = ProbInit
	}
}

// ModelStream is a Stream that can code a bit under an adaptive model,
// spending -log2(P(bit)) bits on it: the range coder.
type ModelStream interface {
	Stream
	// ModelBit codes bit under the model *p, updates the model and
	// returns the bit (the decoded one when reading).
	ModelBit(p *Prob, bit bool) (bool, error)
}

// SerializeModelBit codes *bit under the model *p when s is a ModelStream
// and as a plain bit otherwise. Encodings written with it therefore run
// on the bit packer (one bit per model bit) and on the range coder alike;
// both sides must use the same kind of stream.
func SerializeModelBit(s Stream, p *Prob, bit *bool) error {
	if m, ok := s.(ModelStream); ok {
		b, err := m.ModelBit(p, *bit)
		*bit = b
		return err
	}
	return SerializeBool(s, bit)
}

// SerializeTree codes the low n bits of *v, most significant first, each
// under the model of the bits above it in a binary tree: probs must hold
// 2^n models (index 0 is unused). Every n-bit value can be coded, so
// reading never fails on the value itself.
func SerializeTree(s Stream, probs []Prob, v *uint32, n int) error {
	if n < 1 || n > 16 || len(probs) < 1<<n {
		return fmt.Errorf("wire: tree of %d bits over %d models: %w", n, len(probs), ErrConfig)
	}
	if s.Mode() != Reading && *v>>n != 0 {
		return fmt.Errorf("wire: %d does not fit a %d-bit tree: %w", *v, n, ErrRange)
	}
	node := uint32(1)
	for i := n - 1; i >= 0; i-- {
		bit := *v>>i&1 != 0
		if err := SerializeModelBit(s, &probs[node], &bit); err != nil {
			return err
		}
		node <<= 1
		if bit {
			node |= 1
		}
	}
	*v = node - 1<<n
	return nil
}

// golombExpBits is the width of the largest magnitude a GolombModel codes.
const golombExpBits = 32

// GolombModel codes unbounded non-negative integers (up to 2³²-1) in an
// adaptive Exp-Golomb code: v+1 = 1·m with e mantissa bits; e is sent in
// unary under one model per position, the mantissa's top bits under
// models per (e, position) and the rest at probability 1/2. Small values
// that dominate cost fractions of a bit; a large one costs about
// 2·log2(v). Initialize with Reset.
type GolombModel struct {
	Exp  [golombExpBits + 1]Prob
	Mant [golombExpBits + 1][golombModeledBits]Prob
}

// golombModeledBits is how many top mantissa bits get their own models;
// the lower bits of a large value are close to uniform.
const golombModeledBits = 3

// Reset sets every model to ProbInit.
func (g *GolombModel) Reset() {
	ResetProbs(g.Exp[:])
	for i := range g.Mant {
		ResetProbs(g.Mant[i][:])
	}
}

// Serialize codes *v. The exponent is capped at 32, so a corrupt stream
// costs at most 32 unary bits here, and a decoded value beyond 2³²-1 is
// ErrInvalid.
func (g *GolombModel) Serialize(s Stream, v *uint32) error {
	x := uint64(*v) + 1
	e := BitsRequired(x) - 1
	// Unary exponent: e ones then a zero (no zero after the 32nd one).
	for i := 0; i <= golombExpBits; i++ {
		more := i < e
		if i == golombExpBits {
			e = i
			break
		}
		if err := SerializeModelBit(s, &g.Exp[i], &more); err != nil {
			return err
		}
		if !more {
			e = i
			break
		}
	}
	m := uint64(1)
	for i := e - 1; i >= 0; i-- {
		bit := x>>i&1 != 0
		var err error
		if j := e - 1 - i; j < golombModeledBits {
			err = SerializeModelBit(s, &g.Mant[e][j], &bit)
		} else {
			err = SerializeBool(s, &bit)
		}
		if err != nil {
			return err
		}
		m <<= 1
		if bit {
			m |= 1
		}
	}
	if m-1 > 0xFFFFFFFF {
		return fmt.Errorf("wire: Exp-Golomb value beyond 32 bits: %w", ErrInvalid)
	}
	*v = uint32(m - 1)
	return nil
}

// SignedModel codes a signed integer that is usually zero or small: a
// zero bit, a sign bit, then the magnitude less one in a GolombModel.
type SignedModel struct {
	Zero, Sign Prob
	Mag        GolombModel
}

// Reset sets every model to ProbInit.
func (m *SignedModel) Reset() {
	m.Zero, m.Sign = ProbInit, ProbInit
	m.Mag.Reset()
}

// Serialize codes *v, |*v| ≤ 2³²; larger magnitudes are ErrRange.
func (m *SignedModel) Serialize(s Stream, v *int64) error {
	if s.Mode() != Reading && (*v > 1<<32 || *v < -(1<<32)) {
		return fmt.Errorf("wire: %d beyond ±2³²: %w", *v, ErrRange)
	}
	zero := *v == 0
	if err := SerializeModelBit(s, &m.Zero, &zero); err != nil {
		return err
	}
	if zero {
		*v = 0
		return nil
	}
	neg := *v < 0
	if err := SerializeModelBit(s, &m.Sign, &neg); err != nil {
		return err
	}
	mag := uint32(0)
	if s.Mode() != Reading {
		a := *v
		if neg {
			a = -a
		}
		mag = uint32(a - 1)
	}
	if err := m.Mag.Serialize(s, &mag); err != nil {
		return err
	}
	a := int64(mag) + 1
	if neg {
		a = -a
	}
	*v = a
	return nil
}
