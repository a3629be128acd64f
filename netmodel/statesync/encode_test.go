package statesync

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/netphys/netphys/wire"
)

// encode writes p into buf with coder c in one pass, every update in
// it: the reference the builder's packets are checked against, and how
// the tests forge packets.
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

// TestBuilderWritesWhatEncodeWrites fills the fixture's packet under
// budgets from the head alone to everything, with each coder: the
// builder's packet, written as it measured it, is byte for byte what
// encode writes in one pass for the updates it kept, within the budget,
// and decodes to them.
func TestBuilderWritesWhatEncodeWrites(t *testing.T) {
	f := newFillFixture(t)
	for _, c := range []Coder{CoderPlain, CoderRange} {
		var bld builder
		for _, budget := range []int{10, 40, 41, 57, 64, 100, 150, 233, f.n.cfg.PacketBytes, 1200} {
			buf := bytes.Repeat([]byte{0xA5}, budget+MaxPlayers*f.n.wc.maxAvatarBytes())
			data := f.fill(t, &bld, c, budget, buf)
			if len(data) > max(budget, bld.headBytes+bld.avatarBytes) {
				t.Errorf("%v, budget %d: %d bytes", c, budget, len(data))
			}
			want, err := f.n.wc.encode(make([]byte, 4096), c, &f.p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, want) {
				t.Fatalf("%v, budget %d, %d updates: built %x, encode wrote %x", c, budget, len(f.p.updates), data, want)
			}
			var got packet
			if err := f.n.wc.decode(data, &got, f.find); err != nil {
				t.Fatalf("%v, budget %d: %v", c, budget, err)
			}
			if got.tick != f.p.tick || len(got.avatars) != len(f.p.avatars) || len(got.updates) != len(f.p.updates) {
				t.Fatalf("%v, budget %d: decoded tick %d, %d avatars, %d updates", c, budget, got.tick, len(got.avatars), len(got.updates))
			}
			for i, u := range got.updates {
				w := f.p.updates[i]
				if u.id != w.id || u.auth != w.auth || u.ver != w.ver || u.state != w.state || u.age != w.age {
					t.Fatalf("%v, budget %d: update %d decoded as %+v, want %+v", c, budget, i, u, w)
				}
			}
		}
	}
}
