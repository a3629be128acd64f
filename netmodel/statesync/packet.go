package statesync

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/netphys/netphys/wire"
)

// avatarSample is one player's avatar at one instant of that player's
// clock, with the versions of the claims on what its parts hold.
type avatarSample struct {
	player Player
	// time is the player's tick when the avatar was sampled, and offset
	// the render time past that tick in 1/256 of a step: the avatar is
	// sampled at render time, the physics at the step (the article's
	// physics/render time offset).
	time   Tick
	offset uint8
	avatar Avatar
	held   [MaxParts]Version
}

// playTime is when the sample was taken on its player's clock, in steps.
func (a *avatarSample) playTime() float64 { return float64(a.time) + float64(float64(a.offset)/256) }

// packet is every datagram's payload, host to guest and guest to host:
// one byte of format (formatVersion<<1 | Coder), then, bit-packed or
// range-coded as that byte says,
//
//	+------+--------+---------+---------+---------+------------+----------------------+------+
//	| tick | player | present | avatars | count   | avatar × n | (more=1, update) × m | more |
//	| 32   | 2      | 4       | 1       | 0..4    |            |                      | = 0  |
//	+------+--------+---------+---------+---------+------------+----------------------+------+
//
// tick is the sender's step; player is the guest's seat (host to guest,
// so that a guest knows it was seated as itself) or the sender (guest to
// host); present has bit p set for every player in the match (host to
// guest; a guest sends its own bit); avatars says the sender's game has
// Avatars (a receiver whose game has not, or has and reads a 0, refuses
// the packet: ErrAvatarShape). A guest sends its own avatar and the
// objects it has authority over; the host sends the other players'
// avatars and every object, as the priority accumulator orders them. A
// flag before each update, rather than a count up front, lets the sender
// measure the packet update by update with the range coder's own state.
type packet struct {
	tick    Tick
	player  Player
	present uint8
	// layout: the packet carries the sender's layout (serializeLayout),
	// as every packet does until the peer acks one.
	layout  bool
	avatars []avatarSample
	refs    [MaxPlayers]avatarRef // the avatars' baselines
	updates []update
}

// wireCodec codes packets for one config and world. It keeps the streams
// and the coding state it reads packets and settles avatars with, so that
// neither allocates: they escape through the Stream interface.
type wireCodec struct {
	*codec
	cfg *Config
	// shape is the game's AvatarShape, nil for a game without Avatars;
	// digest its digest (AvatarShape.digest).
	shape  *AvatarShape
	digest uint32
	// layout is this world's layoutDigest.
	layout uint32
	rd     wire.RangeDecoder
	r      wire.Reader
	cx     coding
	st     settling
}

// serializeHead codes the packet up to its updates.
func (w *wireCodec) serializeHead(s wire.Stream, cx *coding, p *packet, find *lookup) error {
	if err := wire.SerializeBits(s, &p.tick, 32); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &p.player, 0, MaxPlayers-1); err != nil {
		return err
	}
	if err := wire.SerializeBits(s, &p.present, MaxPlayers); err != nil {
		return err
	}
	avatars := w.shape != nil
	if err := wire.SerializeBool(s, &avatars); err != nil {
		return err
	}
	if s.Mode() == wire.Reading && avatars != (w.shape != nil) {
		if avatars {
			return fmt.Errorf("%w: the sender's game has avatars, this one has none", ErrAvatarShape)
		}
		return fmt.Errorf("%w: the sender's game has no avatars, this one's have %d parts", ErrAvatarShape, w.shape.Parts)
	}
	if err := w.serializeLayout(s, &p.layout); err != nil {
		return err
	}
	n := len(p.avatars) // from a game without avatars, none decodes
	if err := wire.SerializeInt(s, &n, 0, MaxPlayers); err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		p.avatars, p.refs = p.avatars[:0], [MaxPlayers]avatarRef{}
		for range n {
			p.avatars = append(p.avatars, avatarSample{})
		}
	}
	for i := range p.avatars {
		if err := w.serializeAvatar(s, &cx.m.avatar, &p.avatars[i], &p.refs[i], p.tick, find); err != nil {
			return fmt.Errorf("avatar %d: %w", i, err)
		}
	}
	return nil
}

// serializeLayout codes a flag and, if set, the sender's layout: its
// object count and layoutDigest. Reading, it refuses another layout
// than this world's, naming the difference (ErrLayout): a guest of 12
// cubes at a host of 10 had its ids read modulo 10 and played on, one of
// 8 refused every packet of the host's as malformed, and neither said
// why.
func (w *wireCodec) serializeLayout(s wire.Stream, layout *bool) error {
	if err := wire.SerializeBool(s, layout); err != nil || !*layout {
		return err
	}
	objects, digest := w.objects, w.layout
	if err := wire.SerializeInt(s, &objects, 1, 1<<16); err != nil {
		return err
	}
	if err := wire.SerializeBits(s, &digest, 32); err != nil {
		return err
	}
	switch {
	case s.Mode() != wire.Reading:
	case objects != w.objects:
		return fmt.Errorf("%w: the sender's world has %d objects, this one %d; host and guests must build the same world (the same layout)", ErrLayout, objects, w.objects)
	case digest != w.layout:
		return fmt.Errorf("%w: the sender's world has this one's %d objects but another state spec, time step or ballistics (digest %08x, this one's %08x); host and guests must run the same Config",
			ErrLayout, objects, digest, w.layout)
	}
	return nil
}

// layoutDigest sums up what host and guests must agree on beyond the
// avatars for their packets to mean the same: the object count, the
// state spec, the step and the ballistics.
func layoutDigest(cfg *Config, objects int) uint32 {
	h := fnv.New32a()
	var b [8]byte
	put := func(f float64) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		h.Write(b[:])
	}
	sp := &cfg.Spec
	for _, f := range []float64{float64(objects), float64(cfg.TimeStep), float64(sp.OrientationBits),
		cfg.Ballistic.Gravity, cfg.Ballistic.TimeStep, float64(cfg.Ballistic.Substeps)} {
		put(f)
	}
	for _, bd := range []wire.Bounds{sp.Position, sp.LinearVelocity, sp.AngularVelocity} {
		for _, f := range []float64{bd.Min.X, bd.Min.Y, bd.Min.Z, bd.Max.X, bd.Max.Y, bd.Max.Z, bd.Res} {
			put(f)
		}
	}
	return h.Sum32()
}

// serializeMore codes the flag before each update and after the last.
func serializeMore(s wire.Stream, cx *coding, more bool) (bool, error) {
	err := wire.SerializeModelBit(s, &cx.m.more, &more)
	return more, err
}

// serializePacket codes a whole packet after its format byte.
func (w *wireCodec) serializePacket(s wire.Stream, p *packet, find *lookup) error {
	cx := &w.cx
	*cx = newCoding()
	if err := w.serializeHead(s, cx, p, find); err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		p.updates = p.updates[:0]
	}
	for i := 0; ; i++ {
		more, err := serializeMore(s, cx, s.Mode() == wire.Reading || i < len(p.updates))
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		if s.Mode() == wire.Reading {
			if i == w.objects {
				return fmt.Errorf("%w: more than %d updates", wire.ErrInvalid, w.objects)
			}
			p.updates = append(p.updates, update{})
		}
		if err := w.serializeUpdate(s, cx, &p.updates[i], p.tick, find); err != nil {
			return fmt.Errorf("update %d: %w", i, err)
		}
	}
}

// formatByte is the first byte of a packet of coder c.
func formatByte(c Coder) byte { return formatVersion<<1 | byte(c) }

// decode reads a packet of either coder into p. Whatever decodes is the
// one encoding of what it decoded to: the bit packer's padding must be
// zero and nothing may follow it, and the range decoder checks that its
// input is exactly the encoder's output.
func (w *wireCodec) decode(data []byte, p *packet, find *lookup) error {
	if len(data) < 1 {
		return fmt.Errorf("statesync: empty packet: %w", wire.ErrTruncated)
	}
	switch data[0] {
	case formatByte(CoderRange):
		d := &w.rd
		d.Reset(data[1:])
		if err := w.serializePacket(d, p, find); err != nil {
			return err
		}
		return d.Finish()
	case formatByte(CoderPlain):
		r := &w.r
		r.Reset(data[1:])
		if err := w.serializePacket(r, p, find); err != nil {
			return err
		}
		if r.BitsLeft() >= 8 {
			return fmt.Errorf("statesync: %d bytes after the packet: %w", r.BitsLeft()/8, wire.ErrInvalid)
		}
		return r.Align()
	}
	return fmt.Errorf("statesync: packet format %#02x, want %#02x or %#02x: %w",
		data[0], formatByte(CoderPlain), formatByte(CoderRange), wire.ErrInvalid)
}

// builder fills a packet update by update under a byte budget and writes
// it as it goes. Each candidate is coded with the coder's own state on a
// trial copy of the packet's stream and models, then the packet's end
// flag on another copy, and the update is kept, its copy becoming the
// packet, when the packet still fits. The measure is exact for both
// coders (an adaptive coder's cost depends on everything before it, which
// the copy carries), and the packet is written once: a stream restored to
// an earlier copy writes on as if nothing had followed it (wire.Writer,
// wire.RangeEncoder), so an update that did not fit leaves nothing behind.
// The states live in the builder, which lives in its link, so that
// building allocates nothing.
type builder struct {
	w      *wireCodec
	p      *packet
	coder  Coder
	buf    []byte // the packet's bytes: its format byte, then the stream's
	budget int    // bytes, the format byte included
	// cur is the packet so far and trial a scratch copy of it, each one
	// of states: a trial that fits becomes cur, without a copy back. end
	// is the scratch copy that measures the end flag.
	cur, trial *coderState
	states     [2]coderState
	end        coderState
	// headBytes and avatarBytes are the size of the packet without
	// avatars or updates and what its avatars added.
	headBytes, avatarBytes int
}

// coderState is a stream of either coder and the packet's coding state.
type coderState struct {
	plain wire.Writer
	rng   wire.RangeEncoder
	cx    coding
}

func (b *builder) stream(st *coderState) wire.Stream {
	if b.coder == CoderRange {
		return &st.rng
	}
	return &st.plain
}

// size returns the bytes of the packet st if it ended now, after its end
// flag (coded on a copy of the stream and of the flag's model).
func (b *builder) size(st *coderState) (int, error) {
	e := &b.end
	e.plain, e.rng, e.cx.m.more = st.plain, st.rng, st.cx.m.more
	if _, err := serializeMore(b.stream(e), &e.cx, false); err != nil {
		return 0, err
	}
	if b.coder == CoderRange {
		return 1 + e.rng.Size(), nil
	}
	return 1 + (e.plain.BitsWritten()+7)>>3, nil
}

// begin starts the packet p in buf with coder c and codes its head and
// avatars; p.updates must be empty, and buf must hold the head, the
// avatars and budget bytes.
func (w *wireCodec) begin(b *builder, p *packet, c Coder, budget int, buf []byte) error {
	if len(buf) < budget || len(buf) < 1 {
		return fmt.Errorf("statesync: packet buffer of %d bytes under the budget of %d: %w", len(buf), budget, wire.ErrOverflow)
	}
	b.w, b.p, b.coder, b.budget, b.buf = w, p, c, budget, buf
	b.cur, b.trial = &b.states[0], &b.states[1]
	buf[0] = formatByte(c)
	b.cur.cx = newCoding()
	if c == CoderRange {
		b.cur.rng.Reset(buf[1:])
	} else {
		b.cur.plain.Reset(buf[1:])
	}
	*b.trial = *b.cur
	avatars := p.avatars
	p.avatars = nil
	err := w.serializeHead(b.stream(b.trial), &b.trial.cx, p, nil)
	p.avatars = avatars
	if err != nil {
		return err
	}
	if b.headBytes, err = b.size(b.trial); err != nil {
		return err
	}
	if err := w.serializeHead(b.stream(b.cur), &b.cur.cx, p, nil); err != nil {
		return err
	}
	size, err := b.size(b.cur)
	b.avatarBytes = size - b.headBytes
	return err
}

// next returns the packet's next update, past the end of p.updates, for
// the caller to fill and add: the update is written where the packet keeps
// it, not copied there.
func (b *builder) next() *update {
	ups := b.p.updates
	if len(ups) == cap(ups) {
		ups = append(ups, update{})[:len(ups)]
		b.p.updates = ups
	}
	return &ups[:len(ups)+1][len(ups)]
}

// add appends the update next returned to the packet if it fits and
// reports whether it did. An update that runs past the buffer does not
// fit: the buffer holds the budget.
func (b *builder) add() (bool, error) {
	u := b.next()
	t := b.trial
	*t = *b.cur
	s := b.stream(t)
	if _, err := serializeMore(s, &t.cx, true); err != nil {
		return false, ignoreOverflow(err)
	}
	if err := b.w.serializeUpdate(s, &t.cx, u, b.p.tick, nil); err != nil {
		return false, ignoreOverflow(err)
	}
	if !b.surelyFits(t) {
		size, err := b.size(t)
		if err != nil || size > b.budget {
			return false, ignoreOverflow(err)
		}
	}
	b.cur, b.trial = t, b.cur
	b.p.updates = b.p.updates[:len(b.p.updates)+1]
	return true, nil
}

// surelyFits reports, without measuring, that the range-coded packet st
// fits the budget whatever its end flag costs (RangeEncoder.SizeBound:
// the flag raises the bound by two bytes at most). When it says no, size
// decides: the packets are the same either way.
func (b *builder) surelyFits(st *coderState) bool {
	return b.coder == CoderRange && 1+st.rng.SizeBound()+2 <= b.budget
}

// ignoreOverflow is nil for a stream's overflow, which only says that an
// update does not fit, and err otherwise.
func ignoreOverflow(err error) error {
	if errors.Is(err, wire.ErrOverflow) {
		return nil
	}
	return err
}

// finish ends the packet: its end flag, the coder's flush. It returns the
// packet's bytes, in the buffer given to begin.
func (b *builder) finish() ([]byte, error) {
	s := b.stream(b.cur)
	if _, err := serializeMore(s, &b.cur.cx, false); err != nil {
		return nil, err
	}
	if b.coder == CoderRange {
		n, err := b.cur.rng.Finish()
		return b.buf[:1+n], err
	}
	return b.buf[:1+len(b.cur.plain.Bytes())], nil
}
