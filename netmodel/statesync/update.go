package statesync

import (
	"fmt"

	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/wire"
)

// Tick counts the fixed steps a machine has simulated since it started.
type Tick uint32

// baseline is a state both ends of a link hold for one object: the
// receiver keeps every state it decodes in a ring (ring.go), and the sender
// learns from the packet acks which of the states it sent arrived.
type baseline struct {
	seq   reliable.Sequence // the packet that carried it
	tick  Tick              // the sender's tick when it was sent
	state qstate
	auth  Owner
	ver   Version
}

// update is one object's state in a packet: who has authority, the
// version of the claims, the state, and the baseline it is coded against.
type update struct {
	id    int
	auth  Owner
	ver   Version
	state qstate
	base  *baseline // nil: coded without one
	age   int       // packets between base and this one, when base is set
}

// codec holds what both ends need to code updates.
type codec struct {
	q       quantizer
	pred    predictor
	objects int
	posMax  [3]int64
	linMax  [3]int64
	angMax  [3]int64
	rotK    int32
	// Predictable and Predicted count, when writing, the moving objects
	// coded against a moving baseline and those the prediction hit.
	predictable, predicted uint64
}

// ringSize is how many packets back a baseline may be: the receiver keeps
// the states of the last ringSize packets per object. At 60 packets per
// second it covers a round trip of two seconds, the 1 s RTT of the
// benchmark's worst condition with room for its bursts of loss.
const ringSize = 128

var (
	residualClasses = wire.Classes{2, 5, 8, 11}
	rotationClasses = wire.Classes{3, 6, 9}
)

func newCodec(q quantizer, b Ballistic, objects int) *codec {
	k := int32(1)<<(q.spec.OrientationBits-1) - 1
	return &codec{
		q: q, pred: newPredictor(q, b), objects: objects,
		posMax: steps(q.spec.Position), linMax: steps(q.spec.LinearVelocity),
		angMax: steps(q.spec.AngularVelocity), rotK: k,
	}
}

// findBase looks a baseline up when reading.
type findBase func(id, age int) (*baseline, error)

// serializeUpdate codes u in the packet of tick now. Bit layout, [] when
// the condition before it holds:
//
//	id | has base [age | same claims] | [auth own-seq auth-seq]
//	   | [unchanged] | at rest | orientation | motion
//
// orientation, against a base: same bit, else same-largest bit and three
// relative components, else smallest three; motion: at rest, the position
// (relative to the base's, or absolute); moving against a moving base, a
// "perfect prediction" bit, else residuals of position and linear velocity
// against the ballistic prediction and of the angular velocity against the
// base's; moving otherwise, all three relative to the base or absolute.
func (c *codec) serializeUpdate(s wire.Stream, u *update, now Tick, find findBase) error {
	if err := wire.SerializeInt(s, &u.id, 0, c.objects-1); err != nil {
		return err
	}
	hasBase := u.base != nil
	if err := wire.SerializeBool(s, &hasBase); err != nil {
		return err
	}
	if hasBase {
		if err := wire.SerializeInt(s, &u.age, 1, ringSize-1); err != nil {
			return err
		}
		if s.Mode() == wire.Reading {
			b, err := find(u.id, u.age)
			if err != nil {
				return err
			}
			u.base = b
		}
	} else {
		u.base = nil
	}
	if err := c.serializeClaims(s, u); err != nil {
		return err
	}
	if u.base == nil {
		return c.serializeAbsolute(s, &u.state)
	}
	return c.serializeDelta(s, &u.state, u.base, int(int32(now-u.base.tick)))
}

func (c *codec) serializeClaims(s wire.Stream, u *update) error {
	same := u.base != nil && u.auth == u.base.auth && u.ver == u.base.ver
	if u.base != nil {
		if err := wire.SerializeBool(s, &same); err != nil {
			return err
		}
	}
	if same {
		u.auth, u.ver = u.base.auth, u.base.ver
		return nil
	}
	if err := wire.SerializeInt(s, &u.auth, 0, MaxPlayers); err != nil {
		return err
	}
	if err := wire.SerializeBits(s, &u.ver.Own, 16); err != nil {
		return err
	}
	if err := wire.SerializeBits(s, &u.ver.Auth, 16); err != nil {
		return err
	}
	return canonical(s, u.base != nil && u.auth == u.base.auth && u.ver == u.base.ver)
}

// canonical rejects, when reading, a value sent the long way although a
// flag would have said it in one bit: every packet then has exactly one
// encoding, and what decodes re-encodes to the same bits.
func canonical(s wire.Stream, short bool) error {
	if s.Mode() == wire.Reading && short {
		return fmt.Errorf("%w: a long form where a flag would do", wire.ErrInvalid)
	}
	return nil
}

func serializeInts(s wire.Stream, v *[3]int64, hi [3]int64) error {
	for i := range v {
		if err := wire.SerializeInt(s, &v[i], 0, hi[i]); err != nil {
			return err
		}
	}
	return nil
}

func serializeRelative(s wire.Stream, v *[3]int64, base, hi [3]int64, c wire.Classes) error {
	for i := range v {
		if err := wire.SerializeRelative(s, &v[i], base[i], 0, hi[i], c); err != nil {
			return err
		}
	}
	return nil
}

func (c *codec) serializeAbsolute(s wire.Stream, st *qstate) error {
	if err := serializeInts(s, &st.pos, c.posMax); err != nil {
		return err
	}
	if err := wire.SerializeSmallestThree(s, &st.rot, c.q.spec.OrientationBits); err != nil {
		return err
	}
	if err := wire.SerializeBool(s, &st.rest); err != nil {
		return err
	}
	if st.rest {
		st.lin, st.ang = c.q.zeroLin, c.q.zeroAng
		return nil
	}
	if err := serializeInts(s, &st.lin, c.linMax); err != nil {
		return err
	}
	return serializeInts(s, &st.ang, c.angMax)
}

func (c *codec) serializeDelta(s wire.Stream, st *qstate, b *baseline, ticks int) error {
	unchanged := *st == b.state
	if err := wire.SerializeBool(s, &unchanged); err != nil {
		return err
	}
	if unchanged {
		*st = b.state
		return nil
	}
	if err := wire.SerializeBool(s, &st.rest); err != nil {
		return err
	}
	if err := c.serializeRotation(s, &st.rot, b.state.rot); err != nil {
		return err
	}
	if st.rest {
		st.lin, st.ang = c.q.zeroLin, c.q.zeroAng
		if err := serializeRelative(s, &st.pos, b.state.pos, c.posMax, residualClasses); err != nil {
			return err
		}
		return canonical(s, *st == b.state)
	}
	pred, ok := c.pred.predict(b.state, ticks)
	if !ok {
		if err := serializeRelative(s, &st.pos, b.state.pos, c.posMax, residualClasses); err != nil {
			return err
		}
		if err := serializeRelative(s, &st.lin, b.state.lin, c.linMax, residualClasses); err != nil {
			return err
		}
		if err := serializeRelative(s, &st.ang, b.state.ang, c.angMax, residualClasses); err != nil {
			return err
		}
		return canonical(s, *st == b.state)
	}
	perfect := st.pos == pred.pos && st.lin == pred.lin && st.ang == b.state.ang
	if err := wire.SerializeBool(s, &perfect); err != nil {
		return err
	}
	if s.Mode() == wire.Writing {
		c.predictable++
		if perfect {
			c.predicted++
		}
	}
	if perfect {
		st.pos, st.lin, st.ang = pred.pos, pred.lin, b.state.ang
		return nil
	}
	if err := serializeRelative(s, &st.pos, pred.pos, c.posMax, residualClasses); err != nil {
		return err
	}
	if err := serializeRelative(s, &st.lin, pred.lin, c.linMax, residualClasses); err != nil {
		return err
	}
	if err := serializeRelative(s, &st.ang, b.state.ang, c.angMax, residualClasses); err != nil {
		return err
	}
	return canonical(s, *st == b.state || (st.pos == pred.pos && st.lin == pred.lin && st.ang == b.state.ang))
}

// serializeRotation codes r against the base's rotation: relative
// components pay only while the largest component stays the same, which
// the article found is often not the case; then it is sent whole.
func (c *codec) serializeRotation(s wire.Stream, r *wire.SmallestThree, base wire.SmallestThree) error {
	bits := c.q.spec.OrientationBits
	same := *r == base
	if err := wire.SerializeBool(s, &same); err != nil {
		return err
	}
	if same {
		*r = base
		return nil
	}
	sameLargest := r.Largest == base.Largest
	if err := wire.SerializeBool(s, &sameLargest); err != nil {
		return err
	}
	if !sameLargest {
		if err := wire.SerializeSmallestThree(s, r, bits); err != nil {
			return err
		}
		return canonical(s, r.Largest == base.Largest)
	}
	r.Largest = base.Largest
	k := int64(c.rotK)
	for i := range r.C {
		v := int64(r.C[i])
		if err := wire.SerializeRelative(s, &v, int64(base.C[i]), -k, k, rotationClasses); err != nil {
			return err
		}
		r.C[i] = int32(v)
	}
	if !r.Valid(bits) {
		return fmt.Errorf("%w: rotation %+v", wire.ErrInvalid, *r)
	}
	return canonical(s, *r == base)
}
