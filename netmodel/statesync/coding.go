package statesync

import (
	"fmt"

	"github.com/netphys/netphys/wire"
)

// Coder says how a packet's fields become bytes. Both use the same
// Serialize functions and the same layout: the plain coder packs every
// field in its bits (a flag in one bit); the range coder codes the flags
// and the magnitude classes of the residuals under adaptive models, so a
// flag that is nearly always the same costs a fraction of a bit, and
// every other bit at probability 1/2, exactly its bit. A receiver decodes
// either: the packet's first byte names its coder.
type Coder uint8

const (
	// CoderPlain is the bit packer (wire.Writer).
	CoderPlain Coder = iota
	// CoderRange is the adaptive binary range coder (wire.RangeEncoder).
	CoderRange
)

// String returns "plain" or "range".
func (c Coder) String() string {
	switch c {
	case CoderPlain:
		return "plain"
	case CoderRange:
		return "range"
	}
	return fmt.Sprintf("coder(%d)", uint8(c))
}

// ParseCoder reads "plain" or "range".
func ParseCoder(s string) (Coder, error) {
	for _, c := range []Coder{CoderPlain, CoderRange} {
		if c.String() == s {
			return c, nil
		}
	}
	return 0, fmt.Errorf("%w: coder %q (plain or range)", ErrConfig, s)
}

// formatVersion is the update format; a packet's first byte is
// formatVersion<<1 | coder, so that a receiver refuses packets of another
// format instead of decoding garbage. Version 2: one byte of format, update
// ids as gaps, a "same age" flag, an end flag instead of an update count,
// compact avatars. Version 4: the layout (object count and a digest of
// the state spec, step and ballistics) until the peer acks a packet.
const formatVersion = 4

// Classes of the relative encodings, as arrays so that the models below
// have one probability per class.
var (
	idClasses       = [...]uint8{0, 2, 3, 4, 5, 6}
	residualClasses = [...]uint8{2, 5, 8, 11}
	rotationClasses = [...]uint8{3, 6, 9}
)

// Residual kinds: what a position or a velocity is coded against, each
// with its own models (their residuals differ by orders of magnitude).
const (
	kindRest      = iota // a resting object's position against the base
	kindMoving           // a moving object's against the base
	kindPredicted        // a moving object's against the ballistic prediction
	kinds
)

// models are the adaptive probabilities of one packet on the range coder;
// on the bit packer they are ignored. Every packet starts them fresh, so a
// packet decodes alone whatever was lost before it.
type models struct {
	more, hasBase, sameAge, sameClaims, unchanged, perfect wire.Prob
	rest                                                   [2]wire.Prob // [the base rests]
	id                                                     [len(idClasses)]wire.Prob
	rot                                                    [2]rotModels // [the object rests]
	pos, lin                                               [kinds][3][len(residualClasses)]wire.Prob
	ang                                                    [3][len(residualClasses)]wire.Prob
	avatar                                                 avatarModels
}

// coding is the state of one packet's coding that runs from update to
// update: the models, the previous update's id and baseline age.
type coding struct {
	m       models
	prevID  int // -1 before the first update
	prevAge int // 0 before the first update coded against a baseline
}

func newCoding() coding { return coding{prevID: -1, m: priors} }

// priors are where every packet's models start: the flags' usual values
// in the VR match (wire.Prob is the probability of false in 1/4096), so
// that the first updates and the avatars, whose flags are too few to
// learn from, cost a fraction of a bit too. Any prior decodes any packet;
// a wrong one only costs bits.
var priors = func() models {
	const likely, unlikely = 400, 4096 - 400 // P(false) ≈ 0.1, 0.9
	var m models
	m.more, m.hasBase, m.sameAge, m.sameClaims = likely/4, likely, likely, likely
	m.unchanged = 1024
	m.rest = [2]wire.Prob{unlikely, likely} // [the base rests]: the object rests as the base did
	m.perfect = unlikely
	m.id[0] = likely // the next id
	a := &m.avatar
	a.hasBase, a.sameOffset, a.near, a.sameHold = likely, likely, likely, likely
	a.holding = unlikely
	a.time[0] = likely // on time
	return m
}()
