package statesync

import (
	"fmt"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// Avatar coding. An avatar is a head and two hands, each a pose, and what
// the hands hold. Format 1 sent every pose whole on the avatar grid (1 mm
// over the spec's 512 m box, 19+18+19 bits) and the time in 32 bits: 40
// bytes an avatar, and the host sends three in every packet. Now, [] when
// the condition before it holds:
//
//	player | has base [age] | time | same offset [offset] | head | hand × 2
//	head, against a base:    unchanged [pos residuals | rotation against the base's]
//	head, without one:       pos | rot
//	hand, against a base:    as the head, then the hold
//	hand, without one:       near | pos (near: from the head, in ±AvatarReach; else whole) | rot, then the hold
//	hold:                    holding [same as the base's | object | own-seq auth-seq | relative pos | relative rot]
//
// The base is the avatar of the same player in a packet the receiver
// acked, as for objects: a bot's head does not move, a hand moves a few
// centimetres between packets. time is relative to the base's, moved on
// by the ticks between the base's packet and this one, or to the packet's
// tick without a base (a guest's own avatar is sampled at the tick it
// sends; a relayed one runs on its player's clock); a hand is a few
// decimetres from its head, so from the head it costs 12 bits an axis
// instead of 19; a held object's pose in the hand is coded on the avatar
// grid (1 mm, AvatarRotationBits): it only places the object on the
// machines that do not simulate the hold. Every sample is settled (coded
// and decoded) before it is sent, so that the sender's baseline holds
// exactly the receiver's numbers.

// maxAvatarBytes bounds one avatar's coding (TestAvatarBound): a packet
// carries its avatars whatever the budget, so the send buffer has room
// for them beyond it.
const maxAvatarBytes = 80

// timeClasses code an avatar's time against the expected one: equal, a
// few steps apart, or without a base a relayed player's clock offset.
var timeClasses = [...]uint8{0, 4, 8, 12}

// avatarModels are the avatar fields' adaptive models.
type avatarModels struct {
	hasBase, sameOffset, near, holding, sameHold wire.Prob
	time                                         [len(timeClasses)]wire.Prob
	unchanged                                    [2]wire.Prob // [head, hand]
	pos                                          [2][3][len(residualClasses)]wire.Prob
	rot                                          [2]rotModels
}

// avatarBaseline is an avatar a packet of tick carried.
type avatarBaseline struct {
	sample avatarSample
	tick   Tick
}

// avatarRef is an avatar's baseline in a packet: nil, or the acked sample
// age packets back.
type avatarRef struct {
	base *avatarBaseline
	age  int
}

// reachBounds is the box a hand's offset from its head lies in to be
// coded as near.
func (w *wireCodec) reachBounds() wire.Bounds { return w.box(w.cfg.AvatarReach) }

// heldBounds is the box a held object's offset from its hand lies in.
func (w *wireCodec) heldBounds() wire.Bounds { return w.box(w.cfg.HeldRange) }

// box returns [-r, r) on every axis on the avatar grid.
func (w *wireCodec) box(r float64) wire.Bounds {
	res := w.cfg.AvatarPosition.Res
	return wire.Bounds{Min: vecmath.V3(-r, -r, -r), Max: vecmath.V3(r-res, r-res, r-res), Res: res}
}

// settle returns a as a receiver decodes it: the sender keeps this as a
// baseline and codes it, so that both ends delta the same numbers. The
// host sends each avatar to every guest: the newest sample of each player
// is settled once.
func (w *wireCodec) settle(a avatarSample) (avatarSample, error) {
	st := &w.st
	memo := &st.memo[a.player%MaxPlayers]
	if memo.valid && memo.in == a {
		return memo.out, nil
	}
	memo.valid = false
	st.in, st.m, st.ref = a, avatarModels{}, avatarRef{}
	st.w.Reset(st.buf[:])
	if err := w.serializeAvatar(&st.w, &st.m, &st.in, &st.ref, a.time, nil); err != nil {
		return a, err
	}
	st.out, st.m, st.ref = avatarSample{}, avatarModels{}, avatarRef{}
	st.r.Reset(st.w.Bytes())
	if err := w.serializeAvatar(&st.r, &st.m, &st.out, &st.ref, a.time, nil); err != nil {
		return st.out, err
	}
	*memo = settled{valid: true, in: a, out: st.out}
	return st.out, nil
}

// settling is settle's scratch, kept in the wireCodec: what goes through
// the Stream interface escapes, and would be allocated per avatar. memo
// is each player's newest sample, settled.
type settling struct {
	buf     [96]byte
	w       wire.Writer
	r       wire.Reader
	m       avatarModels
	in, out avatarSample
	ref     avatarRef
	memo    [MaxPlayers]settled
}

type settled struct {
	valid   bool
	in, out avatarSample
}

// serializeAvatar codes one avatar of the packet of tick now against ref.
func (w *wireCodec) serializeAvatar(s wire.Stream, m *avatarModels, a *avatarSample, ref *avatarRef, now Tick, find *lookup) error {
	if err := wire.SerializeInt(s, &a.player, 0, MaxPlayers-1); err != nil {
		return err
	}
	hasBase := ref.base != nil
	if err := wire.SerializeModelBit(s, &m.hasBase, &hasBase); err != nil {
		return err
	}
	bl := &avatarBaseline{}
	if !hasBase {
		*ref = avatarRef{}
	} else {
		if err := wire.SerializeInt(s, &ref.age, 1, ringSize-1); err != nil {
			return err
		}
		if s.Mode() == wire.Reading {
			var err error
			if ref.base, err = find.avatar(a.player, ref.age); err != nil {
				return err
			}
		}
		bl = ref.base
	}
	base := &bl.sample
	// The time expected: the base's, as much later as this packet is
	// than the base's (a guest's own avatar: the packet's tick; a relayed
	// one: its player's clock, which runs as fast as ours).
	expect := int64(now)
	if hasBase {
		expect = int64(base.time + (now - bl.tick))
	}
	t := int64(a.time)
	if err := wire.SerializeRelativeModel(s, &t, expect, 0, 1<<32-1, timeClasses[:], m.time[:]); err != nil {
		return err
	}
	a.time = Tick(t)
	sameOffset := a.offset == base.offset
	if err := wire.SerializeModelBit(s, &m.sameOffset, &sameOffset); err != nil {
		return err
	}
	if sameOffset {
		a.offset = base.offset
	} else {
		if err := wire.SerializeBits(s, &a.offset, 8); err != nil {
			return err
		}
		if err := canonical(s, a.offset == base.offset); err != nil {
			return err
		}
	}
	av := &a.avatar
	if hasBase {
		if err := w.serializePoseDelta(s, m, 0, &av.Head, base.avatar.Head); err != nil {
			return err
		}
	} else if err := w.serializePose(s, &av.Head, w.cfg.AvatarPosition); err != nil {
		return err
	}
	for h := range av.Hands {
		if hasBase {
			if err := w.serializePoseDelta(s, m, 1, &av.Hands[h], base.avatar.Hands[h]); err != nil {
				return err
			}
		} else if err := w.serializeHand(s, m, &av.Hands[h], av.Head.Pos); err != nil {
			return err
		}
		if err := w.serializeHeld(s, m, &av.Held[h], &a.held[h], base.avatar.Held[h], base.held[h]); err != nil {
			return err
		}
	}
	return nil
}

// serializePose codes a pose with its position in b, clamped there when
// writing.
func (w *wireCodec) serializePose(s wire.Stream, t *vecmath.Transform, b wire.Bounds) error {
	if s.Mode() != wire.Reading {
		t.Pos = b.Clamp(t.Pos)
	}
	if err := wire.SerializeVec3(s, &t.Pos, b); err != nil {
		return err
	}
	return wire.SerializeQuat(s, &t.Rot, w.cfg.AvatarRotationBits)
}

// serializePoseDelta codes a settled pose against its base's: the
// position's grid indices as residuals, the rotation against the base's.
// part is 0 for the head, 1 for a hand.
func (w *wireCodec) serializePoseDelta(s wire.Stream, m *avatarModels, part int, t *vecmath.Transform, base vecmath.Transform) error {
	unchanged := *t == base
	if err := wire.SerializeModelBit(s, &m.unchanged[part], &unchanged); err != nil {
		return err
	}
	if unchanged {
		*t = base
		return nil
	}
	b, bits := w.cfg.AvatarPosition, w.cfg.AvatarRotationBits
	var pos, bpos [3]int64
	var rot, brot wire.SmallestThree
	var err error
	if bpos, err = indices(b, base.Pos); err != nil {
		return err
	}
	if brot, err = wire.QuantizeQuat(base.Rot, bits); err != nil {
		return err
	}
	if s.Mode() != wire.Reading {
		if pos, err = indices(b, t.Pos); err != nil {
			return err
		}
		if rot, err = wire.QuantizeQuat(t.Rot, bits); err != nil {
			return err
		}
	}
	if err := serializeRelative(s, &pos, bpos, steps(b), &m.pos[part]); err != nil {
		return err
	}
	if err := serializeRotation(s, &m.rot[part], &rot, brot, bits); err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		t.Pos, t.Rot = value(b, pos), rot.Quat(bits)
	}
	return canonical(s, *t == base)
}

// serializeHand codes a hand's pose without a base, its position from the
// head's when it is within reach. head is the head's position as written
// (quantized when the hand is coded from it, so that both ends add the
// same numbers).
func (w *wireCodec) serializeHand(s wire.Stream, m *avatarModels, t *vecmath.Transform, head vecmath.Vec3) error {
	whole := w.cfg.AvatarPosition
	qhead, err := whole.Quantize(whole.Clamp(head))
	if err != nil {
		return err
	}
	reach := w.reachBounds()
	rel := vecmath.Transform{Rot: t.Rot}
	var near bool
	if s.Mode() != wire.Reading {
		t.Pos = whole.Clamp(t.Pos)
		var q vecmath.Vec3
		if q, err = whole.Quantize(t.Pos); err != nil {
			return err
		}
		rel.Pos = q.Sub(qhead)
		near = reach.Contains(rel.Pos)
	}
	if err := wire.SerializeModelBit(s, &m.near, &near); err != nil {
		return err
	}
	if !near {
		if err := w.serializePose(s, t, whole); err != nil {
			return err
		}
		if s.Mode() == wire.Reading {
			return canonical(s, reach.Contains(t.Pos.Sub(qhead)))
		}
		return nil
	}
	if err := w.serializePose(s, &rel, reach); err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		t.Pos, t.Rot = qhead.Add(rel.Pos), rel.Rot
		if _, err := whole.Index(t.Pos); err != nil {
			return fmt.Errorf("%w: hand beyond the avatar bounds", wire.ErrInvalid)
		}
	}
	return nil
}

// serializeHeld codes what a hand holds: the object, the version of the
// claims on it and its pose in the hand; in one flag when the base's hand
// held the same.
func (w *wireCodec) serializeHeld(s wire.Stream, m *avatarModels, held *Held, ver *Version, base Held, bver Version) error {
	if err := wire.SerializeModelBit(s, &m.holding, &held.Holding); err != nil {
		return err
	}
	if !held.Holding {
		*held, *ver = Held{}, Version{}
		return nil
	}
	if base.Holding {
		same := *held == base && *ver == bver
		if err := wire.SerializeModelBit(s, &m.sameHold, &same); err != nil {
			return err
		}
		if same {
			*held, *ver = base, bver
			return nil
		}
	}
	if err := wire.SerializeInt(s, &held.Object, 0, w.objects-1); err != nil {
		return err
	}
	if err := wire.SerializeBits(s, &ver.Own, 16); err != nil {
		return err
	}
	if err := wire.SerializeBits(s, &ver.Auth, 16); err != nil {
		return err
	}
	if err := w.serializePose(s, &held.Relative, w.heldBounds()); err != nil {
		return err
	}
	return canonical(s, base.Holding && *held == base && *ver == bver)
}
