package wire

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
	// The range coder's own types first: comparing a type is cheaper than
	// asserting an interface, and this runs for every flag of a packet.
	switch c := s.(type) {
	case *RangeEncoder:
		b, err := c.ModelBit(p, *bit)
		*bit = b
		return err
	case *RangeDecoder:
		b, err := c.ModelBit(p, *bit)
		*bit = b
		return err
	}
	if m, ok := s.(ModelStream); ok {
		b, err := m.ModelBit(p, *bit)
		*bit = b
		return err
	}
	return SerializeBool(s, bit)
}

// SerializeProbBit codes *bit under the probability p, as
// SerializeModelBit does under a model, but leaves updating the model to
// the caller (an adaptive model of its own that loads p from its state).
// On the range coder it costs no allocation: a Prob whose address went
// into a ModelStream's interface call would escape to the heap, one
// allocation per coded bit.
func SerializeProbBit(s Stream, p Prob, bit *bool) error {
	switch c := s.(type) {
	case *RangeEncoder:
		b, err := c.ModelBit(&p, *bit)
		*bit = b
		return err
	case *RangeDecoder:
		b, err := c.ModelBit(&p, *bit)
		*bit = b
		return err
	case ModelStream:
		q := p // escapes: only another ModelStream pays for it
		b, err := c.ModelBit(&q, *bit)
		*bit = b
		return err
	}
	return SerializeBool(s, bit)
}
