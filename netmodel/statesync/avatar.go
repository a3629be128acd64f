package statesync

import (
	"fmt"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// Avatar coding. An avatar is a head and two hands, each a pose, and what
// the hands hold. Version 1 sent every pose whole on the avatar grid (1 mm
// over the spec's 512 m box, 19+18+19 bits) and the time in 32 bits: 40
// bytes an avatar, and the host sends three in every packet. Now:
//
//	player | time | offset | head pos | head rot | hand × 2
//	hand: near | pos (near: from the head, in ±AvatarReach; else whole) | rot
//	      | holding [object | own-seq auth-seq | relative pos | relative rot]
//
// time is relative to the packet's tick (a guest's own avatar is sampled
// at the tick it sends: one bit); a hand is a few decimetres from the head,
// so its offset costs 12 bits an axis instead of 19; a held object's pose
// in the hand is coded on the avatar grid (1 mm, AvatarRotationBits): it
// only places the object on the machines that do not simulate the hold.

// timeClasses code an avatar's time against the packet's tick: equal for a
// guest's own avatar, a few steps apart or a clock offset for relayed ones.
var timeClasses = [...]uint8{0, 4, 8, 12}

// avatarModels are the avatar fields' adaptive models.
type avatarModels struct {
	time    [len(timeClasses)]wire.Prob
	near    wire.Prob
	holding wire.Prob
}

// reachBounds is the box a hand's offset from its head lies in to be
// coded as near.
func (w *wireCodec) reachBounds() wire.Bounds {
	res := w.cfg.AvatarPosition.Res
	r := w.cfg.AvatarReach
	return wire.Bounds{Min: vecmath.V3(-r, -r, -r), Max: vecmath.V3(r-res, r-res, r-res), Res: res}
}

// heldBounds is the box a held object's offset from its hand lies in.
func (w *wireCodec) heldBounds() wire.Bounds {
	res := w.cfg.AvatarPosition.Res
	r := w.cfg.HeldRange
	return wire.Bounds{Min: vecmath.V3(-r, -r, -r), Max: vecmath.V3(r-res, r-res, r-res), Res: res}
}

// serializeAvatar codes one avatar of the packet of tick now.
func (w *wireCodec) serializeAvatar(s wire.Stream, m *avatarModels, a *avatarSample, now Tick) error {
	if err := wire.SerializeInt(s, &a.player, 0, MaxPlayers-1); err != nil {
		return err
	}
	t := int64(a.time)
	if err := wire.SerializeRelativeModel(s, &t, int64(now), 0, 1<<32-1, timeClasses[:], m.time[:]); err != nil {
		return err
	}
	a.time = Tick(t)
	if err := wire.SerializeBits(s, &a.offset, 8); err != nil {
		return err
	}
	av := &a.avatar
	if err := w.serializePose(s, &av.Head, w.cfg.AvatarPosition); err != nil {
		return err
	}
	for h := range av.Hands {
		if err := w.serializeHand(s, m, &av.Hands[h], av.Head.Pos); err != nil {
			return err
		}
		if err := w.serializeHeld(s, m, &av.Held[h], &a.held[h]); err != nil {
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

// serializeHand codes a hand's pose, its position from the head's when it
// is within reach. head is the head's position as written (quantized when
// the hand is coded from it, so that both ends add the same numbers).
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
		_, err := reach.Index(rel.Pos)
		near = err == nil
	}
	if err := wire.SerializeModelBit(s, &m.near, &near); err != nil {
		return err
	}
	if !near {
		if err := w.serializePose(s, t, whole); err != nil {
			return err
		}
		if s.Mode() == wire.Reading {
			_, err := reach.Index(t.Pos.Sub(qhead))
			return canonical(s, err == nil)
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
// claims on it and its pose in the hand.
func (w *wireCodec) serializeHeld(s wire.Stream, m *avatarModels, held *Held, ver *Version) error {
	if err := wire.SerializeModelBit(s, &m.holding, &held.Holding); err != nil {
		return err
	}
	if !held.Holding {
		*held, *ver = Held{}, Version{}
		return nil
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
	return w.serializePose(s, &held.Relative, w.heldBounds())
}
