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
// version of the claims, the state (the embedded baseline, whose seq and
// tick the sender sets to its packet's, so that the sent log keeps the
// packet's updates as they are and an ack points into them), and the
// baseline it is coded against.
type update struct {
	baseline
	id   int
	base *baseline // nil: coded without one
	age  int       // packets between base and this one, when base is set
}

// codec holds what both ends need to code updates.
type codec struct {
	q       quantizer
	pred    predictor
	objects int
	posMax  [3]int64
	linMax  [3]int64
	angMax  [3]int64
	// Predictable and Predicted count, when writing, the moving objects
	// coded against a moving baseline and those the prediction hit; the
	// flight ones those of them whose velocities are exactly what gravity
	// alone makes of the baseline's (nothing touched them in between).
	predictable, predicted             uint64
	flightPredictable, flightPredicted uint64
}

// ringSize is how many packets back a baseline may be: the receiver keeps
// the states of the last ringSize packets per object. At 60 packets per
// second it covers a round trip of two seconds, the 1 s RTT of the
// benchmark's worst condition with room for its bursts of loss.
const ringSize = 128

func newCodec(q quantizer, b Ballistic, objects int) *codec {
	return &codec{
		q: q, pred: newPredictor(q, b), objects: objects,
		posMax: steps(q.spec.Position), linMax: steps(q.spec.LinearVelocity),
		angMax: steps(q.spec.AngularVelocity),
	}
}

// serializeUpdate codes u in the packet of tick now. Bit layout, [] when
// the condition before it holds:
//
//	id gap | has base [same age | age] [same claims] | [auth own-seq auth-seq]
//	       | [unchanged] | at rest | orientation | motion
//
// id gap: the id after the previous update's, modulo the object count,
// minus one, in the relative index classes (objects of equal priority go
// out in id order, so consecutive ids are common); same age: the baseline
// is as many packets back as the previous update's (they were acked
// together). orientation, against a base: same bit, else same-largest bit
// and three relative components, else smallest three; motion: at rest,
// the position (relative to the base's, or absolute); moving against a
// moving base, a "perfect prediction" bit, else residuals of position and
// linear velocity against the ballistic prediction and of the angular
// velocity against the base's; moving otherwise, all three relative to the
// base or absolute. Flags and magnitude classes are coded under cx's
// models (adaptive on the range coder, plain bits on the bit packer).
func (c *codec) serializeUpdate(s wire.Stream, cx *coding, u *update, now Tick, find *lookup) error {
	if err := c.serializeID(s, cx, &u.id); err != nil {
		return err
	}
	hasBase := u.base != nil
	if err := wire.SerializeModelBit(s, &cx.m.hasBase, &hasBase); err != nil {
		return err
	}
	if hasBase {
		if err := serializeAge(s, cx, &u.age); err != nil {
			return err
		}
		if s.Mode() == wire.Reading {
			b, err := find.object(u.id, u.age)
			if err != nil {
				return err
			}
			u.base = b
		}
	} else {
		u.base = nil
	}
	if err := c.serializeClaims(s, cx, u); err != nil {
		return err
	}
	if u.base == nil {
		return c.serializeAbsolute(s, &u.state)
	}
	return c.serializeDelta(s, cx, &u.state, u.base, int(int32(now-u.base.tick)))
}

// serializeID codes *id as its gap after the previous update's.
func (c *codec) serializeID(s wire.Stream, cx *coding, id *int) error {
	n := uint64(c.objects)
	if s.Mode() != wire.Reading && (*id < 0 || *id >= c.objects) {
		return fmt.Errorf("%w: object %d of %d", wire.ErrRange, *id, c.objects)
	}
	gap := (uint64(*id) + n - uint64(cx.prevID+1)) % n
	if err := wire.SerializeClassedModel(s, &gap, 0, n-1, idClasses[:], cx.m.id[:]); err != nil {
		return err
	}
	*id = int((uint64(cx.prevID+1) + gap) % n)
	cx.prevID = *id
	return nil
}

// serializeAge codes a baseline's age, in one flag when it is the
// previous update's.
func serializeAge(s wire.Stream, cx *coding, age *int) error {
	if cx.prevAge != 0 {
		same := *age == cx.prevAge
		if err := wire.SerializeModelBit(s, &cx.m.sameAge, &same); err != nil {
			return err
		}
		if same {
			*age = cx.prevAge
			return nil
		}
	}
	if err := wire.SerializeInt(s, age, 1, ringSize-1); err != nil {
		return err
	}
	if err := canonical(s, *age == cx.prevAge); err != nil {
		return err
	}
	cx.prevAge = *age
	return nil
}

func (c *codec) serializeClaims(s wire.Stream, cx *coding, u *update) error {
	same := u.base != nil && u.auth == u.base.auth && u.ver == u.base.ver
	if u.base != nil {
		if err := wire.SerializeModelBit(s, &cx.m.sameClaims, &same); err != nil {
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

// serializeRelative codes v against base axis by axis, the class bits of
// axis i under p[i].
func serializeRelative(s wire.Stream, v *[3]int64, base, hi [3]int64, p *[3][len(residualClasses)]wire.Prob) error {
	for i := range v {
		if err := wire.SerializeRelativeModel(s, &v[i], base[i], 0, hi[i], residualClasses[:], p[i][:]); err != nil {
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

func (c *codec) serializeDelta(s wire.Stream, cx *coding, st *qstate, b *baseline, ticks int) error {
	m := &cx.m
	unchanged := *st == b.state
	if err := wire.SerializeModelBit(s, &m.unchanged, &unchanged); err != nil {
		return err
	}
	if unchanged {
		*st = b.state
		return nil
	}
	if err := wire.SerializeModelBit(s, &m.rest[boolIndex(b.state.rest)], &st.rest); err != nil {
		return err
	}
	if err := serializeRotation(s, &m.rot[boolIndex(st.rest)], &st.rot, b.state.rot, c.q.spec.OrientationBits); err != nil {
		return err
	}
	if st.rest {
		st.lin, st.ang = c.q.zeroLin, c.q.zeroAng
		if err := serializeRelative(s, &st.pos, b.state.pos, c.posMax, &m.pos[kindRest]); err != nil {
			return err
		}
		return canonical(s, *st == b.state)
	}
	pred, ok := c.pred.predict(b.state, ticks)
	if !ok {
		if err := serializeRelative(s, &st.pos, b.state.pos, c.posMax, &m.pos[kindMoving]); err != nil {
			return err
		}
		if err := serializeRelative(s, &st.lin, b.state.lin, c.linMax, &m.lin[kindMoving]); err != nil {
			return err
		}
		if err := serializeRelative(s, &st.ang, b.state.ang, c.angMax, &m.ang); err != nil {
			return err
		}
		return canonical(s, *st == b.state)
	}
	perfect := st.pos == pred.pos && st.lin == pred.lin && st.ang == b.state.ang
	if err := wire.SerializeModelBit(s, &m.perfect, &perfect); err != nil {
		return err
	}
	if s.Mode() == wire.Writing {
		c.count(perfect, st.lin == pred.lin && st.ang == b.state.ang)
	}
	if perfect {
		st.pos, st.lin, st.ang = pred.pos, pred.lin, b.state.ang
		return nil
	}
	if err := serializeRelative(s, &st.pos, pred.pos, c.posMax, &m.pos[kindPredicted]); err != nil {
		return err
	}
	if err := serializeRelative(s, &st.lin, pred.lin, c.linMax, &m.lin[kindPredicted]); err != nil {
		return err
	}
	if err := serializeRelative(s, &st.ang, b.state.ang, c.angMax, &m.ang); err != nil {
		return err
	}
	return canonical(s, *st == b.state || (st.pos == pred.pos && st.lin == pred.lin && st.ang == b.state.ang))
}

// count notes a prediction when writing. flight: the velocities are the
// ballistic walk of the baseline's, which any contact (the ground,
// another object, a hand) would have changed: the object flew freely from
// the baseline to now, so a miss would be the predictor's fault.
func (c *codec) count(perfect, flight bool) {
	c.predictable++
	if perfect {
		c.predicted++
	}
	if flight {
		c.flightPredictable++
		if perfect {
			c.flightPredicted++
		}
	}
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rotModels are the models of a rotation coded against a base.
type rotModels struct {
	same, largest wire.Prob
	c             [3][len(rotationClasses)]wire.Prob
}

// serializeRotation codes r, b bits a component, against the base's
// rotation: relative components pay only while the largest component
// stays the same, which the article found is often not the case; then it
// is sent whole.
func serializeRotation(s wire.Stream, m *rotModels, r *wire.SmallestThree, base wire.SmallestThree, bits int) error {
	same := *r == base
	if err := wire.SerializeModelBit(s, &m.same, &same); err != nil {
		return err
	}
	if same {
		*r = base
		return nil
	}
	sameLargest := r.Largest == base.Largest
	if err := wire.SerializeModelBit(s, &m.largest, &sameLargest); err != nil {
		return err
	}
	if !sameLargest {
		if err := wire.SerializeSmallestThree(s, r, bits); err != nil {
			return err
		}
		return canonical(s, r.Largest == base.Largest)
	}
	r.Largest = base.Largest
	k := int64(1)<<(bits-1) - 1
	for i := range r.C {
		v := int64(r.C[i])
		if err := wire.SerializeRelativeModel(s, &v, int64(base.C[i]), -k, k, rotationClasses[:], m.c[i][:]); err != nil {
			return err
		}
		r.C[i] = int32(v)
	}
	if !r.Valid(bits) {
		return fmt.Errorf("%w: rotation %+v", wire.ErrInvalid, *r)
	}
	return canonical(s, *r == base)
}
