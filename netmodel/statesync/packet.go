package statesync

import (
	"fmt"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// avatarSample is one player's avatar at one instant of that player's
// clock, with the versions of the claims on what its hands hold.
type avatarSample struct {
	player Player
	// time is the player's tick when the avatar was sampled, and offset
	// the render time past that tick in 1/256 of a step: the avatar is
	// sampled at render time, the physics at the step (the article's
	// physics/render time offset).
	time   Tick
	offset uint8
	avatar Avatar
	held   [2]Version
}

// playTime is when the sample was taken on its player's clock, in steps.
func (a *avatarSample) playTime() float64 { return float64(a.time) + float64(float64(a.offset)/256) }

// packet is every datagram's payload, host to guest and guest to host.
//
//	+------+--------+---------+---------+------------+---------+------------+
//	| tick | player | present | avatars | avatar × n | updates | update × m |
//	| 32   | 2      | 4       | 0..4    |            | 0..N    |            |
//	+------+--------+---------+---------+------------+---------+------------+
//
// tick is the sender's step; player is the guest's seat (host to guest,
// so that a guest knows it was seated as itself) or the sender (guest to
// host); present has bit p set for every player in the match (host to
// guest; a guest sends its own bit). A guest sends its own avatar and the objects it has authority
// over; the host sends the other players' avatars and every object, as the
// priority accumulator orders them.
type packet struct {
	tick    Tick
	player  Player
	present uint8
	avatars []avatarSample
	updates []update
}

// wireCodec codes packets for one config and world.
type wireCodec struct {
	*codec
	cfg *Config
}

func (w *wireCodec) serializePacket(s wire.Stream, p *packet, find findBase) error {
	if err := wire.SerializeBits(s, &p.tick, 32); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &p.player, 0, MaxPlayers-1); err != nil {
		return err
	}
	if err := wire.SerializeBits(s, &p.present, MaxPlayers); err != nil {
		return err
	}
	n := len(p.avatars)
	if err := wire.SerializeInt(s, &n, 0, MaxPlayers); err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		p.avatars = p.avatars[:0]
		for range n {
			p.avatars = append(p.avatars, avatarSample{})
		}
	}
	for i := range p.avatars {
		if err := w.serializeAvatar(s, &p.avatars[i]); err != nil {
			return fmt.Errorf("avatar %d: %w", i, err)
		}
	}
	m := len(p.updates)
	if err := wire.SerializeInt(s, &m, 0, w.objects); err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		p.updates = p.updates[:0]
	}
	for i := range m {
		if s.Mode() == wire.Reading {
			p.updates = append(p.updates, update{})
		}
		if err := w.serializeUpdate(s, &p.updates[i], p.tick, find); err != nil {
			return fmt.Errorf("update %d: %w", i, err)
		}
	}
	return nil
}

func (w *wireCodec) serializePose(s wire.Stream, t *vecmath.Transform) error {
	if s.Mode() != wire.Reading {
		t.Pos = w.cfg.AvatarPosition.Clamp(t.Pos)
	}
	if err := wire.SerializeVec3(s, &t.Pos, w.cfg.AvatarPosition); err != nil {
		return err
	}
	return wire.SerializeQuat(s, &t.Rot, w.cfg.AvatarRotationBits)
}

// heldBounds is the box a held object's offset from its hand lies in.
func (w *wireCodec) heldBounds() wire.Bounds {
	r := w.cfg.HeldRange
	return wire.Bounds{Min: vecmath.V3(-r, -r, -r), Max: vecmath.V3(r, r, r), Res: w.q.spec.Position.Res}
}

// serializeAvatar codes one avatar: player, time, offset, the head and
// hand poses, and per hand [object, version, relative pose] when it holds
// something.
func (w *wireCodec) serializeAvatar(s wire.Stream, a *avatarSample) error {
	if err := wire.SerializeInt(s, &a.player, 0, MaxPlayers-1); err != nil {
		return err
	}
	if err := wire.SerializeBits(s, &a.time, 32); err != nil {
		return err
	}
	if err := wire.SerializeBits(s, &a.offset, 8); err != nil {
		return err
	}
	if err := w.serializePose(s, &a.avatar.Head); err != nil {
		return err
	}
	for h := range a.avatar.Hands {
		if err := w.serializePose(s, &a.avatar.Hands[h]); err != nil {
			return err
		}
		held := &a.avatar.Held[h]
		if err := wire.SerializeBool(s, &held.Holding); err != nil {
			return err
		}
		if !held.Holding {
			*held = Held{}
			continue
		}
		if err := wire.SerializeInt(s, &held.Object, 0, w.objects-1); err != nil {
			return err
		}
		if err := wire.SerializeBits(s, &a.held[h].Own, 16); err != nil {
			return err
		}
		if err := wire.SerializeBits(s, &a.held[h].Auth, 16); err != nil {
			return err
		}
		b := w.heldBounds()
		if s.Mode() != wire.Reading {
			held.Relative.Pos = b.Clamp(held.Relative.Pos)
		}
		if err := wire.SerializeVec3(s, &held.Relative.Pos, b); err != nil {
			return err
		}
		if err := wire.SerializeQuat(s, &held.Relative.Rot, w.q.spec.OrientationBits); err != nil {
			return err
		}
	}
	return nil
}
