package statesync

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// Avatar coding. An avatar is the parts of the game's AvatarShape, each a
// pose, and what the parts that hold hold. Format 1 sent every pose whole
// on the avatar grid (1 mm over the spec's 512 m box, 19+18+19 bits) and
// the time in 32 bits: 40 bytes a VR avatar, and the host sends three in
// every packet. Now, [] when the condition before it holds:
//
//	player | has base [age] [shape] | time | same offset [offset] | root [hold] | (part [hold]) × (Parts-1)
//	shape (without a base):  parts | holds (a bit a part) | digest (32 bits)
//	root, against a base:    unchanged [pos residuals | rotation against the base's]
//	root, without one:       pos | rot
//	part, against a base:    as the root
//	part, without one:       [near] | pos (near: from the root, in ±Reach; else whole) | rot
//	[hold], if the part holds: holding [same as the base's | object | own-seq auth-seq | relative pos | relative rot]
//
// The base is the avatar of the same player in a packet the receiver
// acked, as for objects: a bot's head does not move, a hand moves a few
// centimetres between packets. time is relative to the base's, moved on
// by the ticks between the base's packet and this one, or to the packet's
// tick without a base (a guest's own avatar is sampled at the tick it
// sends; a relayed one runs on its player's clock); a hand is a few
// decimetres from its head, so from the head it costs 12 bits an axis
// instead of 19 (the near flag only for a part of Reach > 0); a held
// object's pose in the hand is coded on the avatar grid (1 mm,
// AvatarRotationBits): it only places the object on the machines that do
// not simulate the hold. Every sample is settled (coded and decoded)
// before it is sent, so that the sender's baseline holds exactly the
// receiver's numbers.
//
// An avatar without a base carries the sender's shape: its part count,
// which parts hold, and a digest of the rest (the reaches, the speed and
// the Config's avatar grid). The receiver refuses an avatar of another
// shape (ErrAvatarShape, naming the difference); one against a base was
// chained from one that passed. The root and the other parts each have
// their models, whatever their number.

// ErrAvatarShape is returned for a packet from a peer whose avatars have
// another AvatarShape than this game's, or that has avatars where this
// game has none or the other way round: host and guests must run the
// same game.
var ErrAvatarShape = errors.New("statesync: the peer's avatars have another shape than this game's")

// validate checks a game's shape.
func (s *AvatarShape) validate() error {
	if s.Parts < 1 || s.Parts > MaxParts {
		return fmt.Errorf("%w: avatar shape of %d parts, want 1 to %d", ErrConfig, s.Parts, MaxParts)
	}
	if !(s.Speed > 0) || math.IsInf(s.Speed, 0) {
		return fmt.Errorf("%w: avatar speed %v m/s, want a positive bound", ErrConfig, s.Speed)
	}
	if s.Reach[0] != 0 {
		return fmt.Errorf("%w: avatar reach of the root %v: the root is coded whole, set Reach[0] to 0", ErrConfig, s.Reach[0])
	}
	for k := range MaxParts {
		if k >= s.Parts && (s.Reach[k] != 0 || s.Holds[k]) {
			return fmt.Errorf("%w: avatar part %d has a reach or holds, but the shape has %d parts", ErrConfig, k, s.Parts)
		}
		if r := s.Reach[k]; !(r >= 0 && r <= maxAvatarReach) {
			return fmt.Errorf("%w: avatar part %d's reach %v m, want 0 (coded whole) to %v", ErrConfig, k, r, maxAvatarReach)
		}
	}
	return nil
}

// maxAvatarReach bounds a part's Reach, m: on the default 1 mm grid,
// 2^15 steps an axis, fewer than the whole box's.
const maxAvatarReach = 16

// holdMask returns the bits of the parts that hold.
func (s *AvatarShape) holdMask() uint8 {
	var m uint8
	for k, h := range s.Holds {
		if h {
			m |= 1 << k
		}
	}
	return m
}

// digest sums up the shape and the avatar grid of cfg.
func (s *AvatarShape) digest(cfg *Config) uint32 {
	h := fnv.New32a()
	var b [8]byte
	put := func(f float64) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		h.Write(b[:])
	}
	h.Write([]byte{byte(s.Parts), s.holdMask(), byte(cfg.AvatarRotationBits)})
	for _, r := range s.Reach {
		put(r)
	}
	for _, f := range []float64{s.Speed, cfg.HeldRange, cfg.AvatarPosition.Res,
		cfg.AvatarPosition.Min.X, cfg.AvatarPosition.Min.Y, cfg.AvatarPosition.Min.Z,
		cfg.AvatarPosition.Max.X, cfg.AvatarPosition.Max.Y, cfg.AvatarPosition.Max.Z} {
		put(f)
	}
	return h.Sum32()
}

// maxAvatarBytes bounds one avatar's coding for the codec's shape
// (TestAvatarBound): a packet carries its avatars whatever the budget,
// so the send buffer has room for them beyond it. It is the header's
// bytes (player, base, shape, time), each part's (a pose whole or
// against its base, with the near flag) and each hold's (the object,
// the versions, the pose in the hand), with a byte for the range coder's
// flush.
func (w *wireCodec) maxAvatarBytes() int {
	if w.shape == nil {
		return 0
	}
	const head, part, hold = 19, 15, 17
	n := head + w.shape.Parts*part
	for _, h := range w.shape.Holds {
		if h {
			n += hold + 2 // the object's id, at most 16 bits
		}
	}
	return n
}

// timeClasses code an avatar's time against the expected one: equal, a
// few steps apart, or without a base a relayed player's clock offset.
var timeClasses = [...]uint8{0, 4, 8, 12}

// avatarModels are the avatar fields' adaptive models.
type avatarModels struct {
	hasBase, sameOffset, near, holding, sameHold wire.Prob
	time                                         [len(timeClasses)]wire.Prob
	unchanged                                    [2]wire.Prob // [root, other part]
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

// reachBounds is the box part k's offset from the root lies in to be
// coded as near.
func (w *wireCodec) reachBounds(k int) wire.Bounds { return w.box(w.shape.Reach[k]) }

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
// is settled once. The result is valid until the next settle of the same
// player's avatar.
func (w *wireCodec) settle(a *avatarSample) (*avatarSample, error) {
	st := &w.st
	memo := &st.memo[a.player%MaxPlayers]
	if memo.valid && memo.in == *a {
		return &memo.out, nil
	}
	memo.valid = false
	st.in, st.m, st.ref = *a, avatarModels{}, avatarRef{}
	st.w.Reset(st.buf)
	if err := w.serializeAvatar(&st.w, &st.m, &st.in, &st.ref, a.time, nil); err != nil {
		return nil, err
	}
	memo.out, st.m, st.ref = avatarSample{}, avatarModels{}, avatarRef{}
	st.r.Reset(st.w.Bytes())
	if err := w.serializeAvatar(&st.r, &st.m, &memo.out, &st.ref, a.time, nil); err != nil {
		return nil, err
	}
	memo.valid, memo.in = true, *a
	return &memo.out, nil
}

// settling is settle's scratch, kept in the wireCodec: what goes through
// the Stream interface escapes, and would be allocated per avatar. memo
// is each player's newest sample, settled.
type settling struct {
	buf  []byte // maxAvatarBytes
	w    wire.Writer
	r    wire.Reader
	m    avatarModels
	in   avatarSample
	ref  avatarRef
	memo [MaxPlayers]settled
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
		if err := w.serializeShape(s, a.player); err != nil {
			return err
		}
	} else if w.shape == nil {
		return fmt.Errorf("%w: player %d's avatar, and this game has no avatars", ErrAvatarShape, a.player)
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
	for k := range w.shape.Parts {
		part := &av.Parts[k]
		var err error
		switch {
		case hasBase:
			err = w.serializePoseDelta(s, m, min(k, 1), &part.Pose, base.avatar.Parts[k].Pose)
		case k == 0:
			err = w.serializePose(s, &part.Pose, w.cfg.AvatarPosition)
		default:
			err = w.serializePart(s, m, k, &part.Pose, av.Parts[0].Pose.Pos)
		}
		if err != nil {
			return err
		}
		if w.shape.Holds[k] {
			if err := w.serializeHeld(s, m, &part.Held, &a.held[k], base.avatar.Parts[k].Held, base.held[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// serializeShape codes the sender's shape in an avatar without a base;
// reading, it refuses another shape than this game's.
func (w *wireCodec) serializeShape(s wire.Stream, p Player) error {
	var parts, holds int
	var digest uint32
	if s.Mode() != wire.Reading {
		parts, holds, digest = w.shape.Parts, int(w.shape.holdMask()), w.digest
	}
	if err := wire.SerializeInt(s, &parts, 1, MaxParts); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &holds, 0, 1<<parts-1); err != nil {
		return err
	}
	if err := wire.SerializeBits(s, &digest, 32); err != nil {
		return err
	}
	if s.Mode() != wire.Reading {
		return nil
	}
	mine := w.shape
	switch {
	case mine == nil:
		return fmt.Errorf("%w: player %d's avatar has %d parts, and this game has no avatars", ErrAvatarShape, p, parts)
	case parts != mine.Parts:
		return fmt.Errorf("%w: player %d's avatar has %d parts, this game's %d", ErrAvatarShape, p, parts, mine.Parts)
	case holds != int(mine.holdMask()):
		return fmt.Errorf("%w: player %d's avatar holds with parts %s, this game's with %s", ErrAvatarShape, p, partList(uint8(holds)), partList(mine.holdMask()))
	case digest != w.digest:
		return fmt.Errorf("%w: player %d's avatar has this game's %d parts and holds, but another reach, speed or Config avatar grid (digest %08x, this game's %08x)",
			ErrAvatarShape, p, parts, digest, w.digest)
	}
	return nil
}

// partList names the parts of mask m: "{1, 2}", "none".
func partList(m uint8) string {
	if m == 0 {
		return "none"
	}
	var b strings.Builder
	for k := range MaxParts {
		if m&(1<<k) != 0 {
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			fmt.Fprint(&b, k)
		}
	}
	return "{" + b.String() + "}"
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
// model is 0 for the root, 1 for another part.
func (w *wireCodec) serializePoseDelta(s wire.Stream, m *avatarModels, model int, t *vecmath.Transform, base vecmath.Transform) error {
	unchanged := *t == base
	if err := wire.SerializeModelBit(s, &m.unchanged[model], &unchanged); err != nil {
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
	if err := serializeRelative(s, &pos, bpos, steps(b), &m.pos[model]); err != nil {
		return err
	}
	if err := serializeRotation(s, &m.rot[model], &rot, brot, bits); err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		t.Pos, t.Rot = value(b, pos), rot.Quat(bits)
	}
	return canonical(s, *t == base)
}

// serializePart codes part k's pose without a base, its position from
// the root's when it is within the part's reach (a part of reach 0 is
// coded whole). root is the root's position as written (quantized when
// the part is coded from it, so that both ends add the same numbers).
func (w *wireCodec) serializePart(s wire.Stream, m *avatarModels, k int, t *vecmath.Transform, root vecmath.Vec3) error {
	whole := w.cfg.AvatarPosition
	if w.shape.Reach[k] == 0 {
		return w.serializePose(s, t, whole)
	}
	qhead, err := whole.Quantize(whole.Clamp(root))
	if err != nil {
		return err
	}
	reach := w.reachBounds(k)
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
			return fmt.Errorf("%w: avatar part %d beyond the avatar bounds", wire.ErrInvalid, k)
		}
	}
	return nil
}

// serializeHeld codes what a part holds: the object, the version of the
// claims on it and its pose in the part's frame; in one flag when the
// base's part held the same.
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
