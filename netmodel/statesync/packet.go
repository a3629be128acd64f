package statesync

import (
	"fmt"

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

// packet is every datagram's payload, host to guest and guest to host:
// one byte of format (formatVersion<<1 | Coder), then, bit-packed or
// range-coded as that byte says,
//
//	+------+--------+---------+---------+------------+----------------------+------+
//	| tick | player | present | avatars | avatar × n | (more=1, update) × m | more |
//	| 32   | 2      | 4       | 0..4    |            |                      | = 0  |
//	+------+--------+---------+---------+------------+----------------------+------+
//
// tick is the sender's step; player is the guest's seat (host to guest,
// so that a guest knows it was seated as itself) or the sender (guest to
// host); present has bit p set for every player in the match (host to
// guest; a guest sends its own bit). A guest sends its own avatar and the
// objects it has authority over; the host sends the other players'
// avatars and every object, as the priority accumulator orders them. A
// flag before each update, rather than a count up front, lets the sender
// measure the packet update by update with the range coder's own state.
type packet struct {
	tick    Tick
	player  Player
	present uint8
	avatars []avatarSample
	refs    [MaxPlayers]avatarRef // the avatars' baselines
	updates []update
}

// wireCodec codes packets for one config and world.
type wireCodec struct {
	*codec
	cfg *Config
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
	n := len(p.avatars)
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

// serializeMore codes the flag before each update and after the last.
func serializeMore(s wire.Stream, cx *coding, more bool) (bool, error) {
	err := wire.SerializeModelBit(s, &cx.m.more, &more)
	return more, err
}

// serializePacket codes a whole packet after its format byte.
func (w *wireCodec) serializePacket(s wire.Stream, p *packet, find *lookup) error {
	cx := newCoding()
	if err := w.serializeHead(s, &cx, p, find); err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		p.updates = p.updates[:0]
	}
	for i := 0; ; i++ {
		more, err := serializeMore(s, &cx, s.Mode() == wire.Reading || i < len(p.updates))
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
		if err := w.serializeUpdate(s, &cx, &p.updates[i], p.tick, find); err != nil {
			return fmt.Errorf("update %d: %w", i, err)
		}
	}
}

// formatByte is the first byte of a packet of coder c.
func formatByte(c Coder) byte { return formatVersion<<1 | byte(c) }

// encode writes p into buf with coder c and returns the packet.
func (w *wireCodec) encode(buf []byte, c Coder, p *packet) ([]byte, error) {
	if len(buf) < 1 {
		return nil, fmt.Errorf("statesync: empty packet buffer: %w", wire.ErrOverflow)
	}
	buf[0] = formatByte(c)
	if c == CoderRange {
		e := wire.NewRangeEncoder(buf[1:])
		if err := w.serializePacket(e, p, nil); err != nil {
			return nil, err
		}
		n, err := e.Finish()
		return buf[:1+n], err
	}
	wr := wire.NewWriter(buf[1:])
	if err := w.serializePacket(wr, p, nil); err != nil {
		return nil, err
	}
	return buf[:1+len(wr.Bytes())], nil
}

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
		d := wire.NewRangeDecoder(data[1:])
		if err := w.serializePacket(d, p, find); err != nil {
			return err
		}
		return d.Finish()
	case formatByte(CoderPlain):
		r := wire.NewReader(data[1:])
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

// builder fills a packet update by update under a byte budget. Each
// candidate is measured with the coder's own state: a trial copy of the
// measuring stream and of the models codes the update and the packet's
// end flag, and the update is kept when the packet still fits. The
// measure is exact for both coders: writing the packet afterwards makes
// the same calls on a fresh stream and produces exactly the measured bytes
// (an adaptive coder's cost depends on everything before it, which the
// copy carries). The copies live in the builder, which lives in its link,
// so that measuring allocates nothing.
type builder struct {
	w      *wireCodec
	p      *packet
	coder  Coder
	budget int // bytes, the format byte included
	// cur is the packet so far, trial and end scratch copies of it.
	cur, trial, end coderState
	// headBytes and avatarBytes are the size of the packet without
	// avatars or updates and what its avatars added.
	headBytes, avatarBytes int
}

// coderState is a measuring stream of either coder and the packet's
// coding state.
type coderState struct {
	plain wire.Measurer
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
	return 1 + e.plain.Bytes(), nil
}

// begin measures p's head and avatars; p.updates must be empty.
func (w *wireCodec) begin(b *builder, p *packet, c Coder, budget int) error {
	b.w, b.p, b.coder, b.budget = w, p, c, budget
	b.cur = coderState{cx: newCoding()}
	if c == CoderRange {
		b.cur.rng = *wire.NewRangeMeasurer()
	}
	b.trial = b.cur
	avatars := p.avatars
	p.avatars = nil
	err := w.serializeHead(b.stream(&b.trial), &b.trial.cx, p, nil)
	p.avatars = avatars
	if err != nil {
		return err
	}
	if b.headBytes, err = b.size(&b.trial); err != nil {
		return err
	}
	if err := w.serializeHead(b.stream(&b.cur), &b.cur.cx, p, nil); err != nil {
		return err
	}
	size, err := b.size(&b.cur)
	b.avatarBytes = size - b.headBytes
	return err
}

// add appends u to the packet if it fits and reports whether it did.
func (b *builder) add(u update) (bool, error) {
	t := &b.trial
	*t = b.cur
	s := b.stream(t)
	if _, err := serializeMore(s, &t.cx, true); err != nil {
		return false, err
	}
	if err := b.w.serializeUpdate(s, &t.cx, &u, b.p.tick, nil); err != nil {
		return false, err
	}
	size, err := b.size(t)
	if err != nil || size > b.budget {
		return false, err
	}
	b.cur = *t
	b.p.updates = append(b.p.updates, u)
	return true, nil
}

// packetSize returns the bytes of the packet built so far.
func (b *builder) packetSize() (int, error) { return b.size(&b.cur) }
