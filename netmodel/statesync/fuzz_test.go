package statesync

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
)

// fuzzSeq is the packet sequence the fuzzed packets arrive with; the ring
// holds every object's state from the packet before it.
const fuzzSeq = reliable.Sequence(101)

func fuzzSetup(t testing.TB) (wireCodec, *lookup, []update) {
	g := newToy(1, 6)
	cfg := DefaultConfig()
	cfg.Player = 1
	n, err := newNode(cfg, g, false)
	if err != nil {
		t.Fatal(err)
	}
	ring := newReceivedRing(6)
	avatars := newRing[avatarBaseline](MaxPlayers)
	base, err := n.wc.settleValue(fuzzAvatar())
	if err != nil {
		t.Fatal(err)
	}
	avatars.store(int(base.player), fuzzSeq-1, avatarBaseline{sample: base, tick: 40})
	var ups []update
	for i := range 6 {
		b := baseline{seq: fuzzSeq - 1, tick: 40, state: n.cur[i], auth: Nobody, ver: Version{1, 2}}
		ring.store(i, b.seq, b)
		moving := n.game.Object(i)
		moving.AtRest = false
		moving.Position = moving.Position.Add(vecmath.V3(0.1*float64(i), 2, 0))
		moving.LinearVelocity = vecmath.V3(1, 3, -2)
		moving.AngularVelocity = vecmath.V3(0, 1, 0)
		q, _ := n.q.quantize(moving)
		u := update{id: i, baseline: baseline{auth: OwnerOf(1), ver: Version{1, 3}, state: q}}
		if i%2 == 0 {
			u.base, _ = ring.find(i, fuzzSeq, 1)
			u.age = 1
		}
		ups = append(ups, u)
	}
	return n.wc, &lookup{objects: &ring, avatars: &avatars, seq: fuzzSeq}, ups
}

// fuzzPackets are real packets: with and without avatars, updates and
// baselines.
func fuzzPackets(t testing.TB, wc wireCodec, find *lookup, ups []update) []packet {
	av, err := wc.settleValue(fuzzAvatar())
	if err != nil {
		t.Fatal(err)
	}
	moved := fuzzAvatar()
	moved.time++
	moved.avatar.Parts[1].Pose.Pos = moved.avatar.Parts[1].Pose.Pos.Add(vecmath.V3(0.01, 0.02, 0))
	moved.avatar.Parts[1].Pose.Rot = vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), 0.35)
	if moved, err = wc.settleValue(moved); err != nil {
		t.Fatal(err)
	}
	base, err := find.avatar(moved.player, 1)
	if err != nil {
		t.Fatal(err)
	}
	delta := packet{tick: 42, player: 2, present: 7, avatars: []avatarSample{moved}, updates: ups[1:4]}
	delta.refs[0] = avatarRef{base: base, age: 1}
	return []packet{
		{tick: 41, player: 1, present: 3},
		{tick: 41, player: 2, present: 7, avatars: []avatarSample{av}, updates: ups},
		{tick: 60, player: 3, present: 15, updates: ups[:2]},
		delta,
	}
}

func encodePacket(t testing.TB, wc wireCodec, c Coder, p packet) []byte {
	data, err := wc.encode(make([]byte, 4096), c, &p)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), data...)
}

func fuzzAvatar() avatarSample {
	av := avatarSample{player: 2, time: 77, offset: 9}
	av.avatar.Parts[0].Pose = vecmath.Transform{Pos: vecmath.V3(1, 2, 3), Rot: vecmath.QuatIdentity}
	av.avatar.Parts[1].Pose = vecmath.Transform{Pos: vecmath.V3(1, 1, 3), Rot: vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), 0.3)}
	av.avatar.Parts[2].Pose = vecmath.Transform{Pos: vecmath.V3(9, 1, -3), Rot: vecmath.QuatIdentity} // out of reach
	av.avatar.Parts[1].Held = Held{Holding: true, Object: 3, Relative: vecmath.Transform{Pos: vecmath.V3(0, -0.6, 0), Rot: vecmath.QuatIdentity}}
	av.held[1] = Version{4, 5}
	return av
}

// FuzzPacketDecode feeds the update decoder arbitrary bytes, bit-packed
// and range-coded (the first byte says which): it must never panic, and
// what it accepts must encode back to the same bytes and decode to the
// same packet.
func FuzzPacketDecode(f *testing.F) {
	wc, find, ups := fuzzSetup(f)
	for _, c := range []Coder{CoderPlain, CoderRange} {
		for _, p := range fuzzPackets(f, wc, find, ups) {
			f.Add(encodePacket(f, wc, c, p))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, wc, find, data)
	})
}

// TestPacketTruncatedAtEveryByte: a bit-packed packet cut short anywhere
// is an error. A range-coded one is an error or, as any range coder's
// output (wire.RangeDecoder), the one encoding of another packet: the
// transport authenticates datagrams, so only a peer could send one, and
// it could send that packet anyway.
func TestPacketTruncatedAtEveryByte(t *testing.T) {
	wc, find, ups := fuzzSetup(t)
	for _, c := range []Coder{CoderPlain, CoderRange} {
		p := fuzzPackets(t, wc, find, ups)[3]
		p.updates = ups
		data := encodePacket(t, wc, c, p)
		for n := range len(data) - 1 {
			var p packet
			if err := wc.decode(data[:n], &p, find); err == nil {
				again, err := wc.encode(make([]byte, 4096), c, &p)
				if c == CoderPlain || err != nil || !bytes.Equal(again, data[:n]) {
					t.Fatalf("%v: decoded %d of %d bytes (%v)", c, n, len(data), err)
				}
			}
		}
		var got packet
		if err := wc.decode(data, &got, find); err != nil || len(got.updates) != len(ups) {
			t.Fatalf("%v: whole packet: %v, %d updates", c, err, len(got.updates))
		}
		for i := range ups {
			if got.updates[i].state != ups[i].state || got.updates[i].ver != ups[i].ver || got.updates[i].auth != ups[i].auth {
				t.Fatalf("%v: update %d: %+v, want %+v", c, i, got.updates[i], ups[i])
			}
		}
		if !reflect.DeepEqual(got.avatars, p.avatars) || got.refs[0].age != 1 {
			t.Fatalf("%v: avatars %+v, want %+v", c, got.avatars, p.avatars)
		}
	}
}

// TestAvatarBound: the costliest avatar of each test shape fits
// maxAvatarBytes with either coder: without a base (a clock far off,
// every part out of reach, every part that holds holding) and against a
// base where everything differs.
func TestAvatarBound(t *testing.T) {
	for _, shape := range testShapes() {
		wc := shapedCodec(t, shape, 1<<16)
		rot := vecmath.QuatAxisAngle(vecmath.V3(0.6, 0, 0.8), 1)
		a := avatarSample{player: 3, time: 1 << 31, offset: 200}
		base := avatarSample{player: 3, time: 5}
		for k := range shape.Parts {
			a.avatar.Parts[k].Pose = vecmath.Transform{Pos: vecmath.V3(-200, 100, 200).Add(vecmath.V3(float64(k)*7, 0, 0)), Rot: rot}
			base.avatar.Parts[k].Pose = vecmath.Transform{Pos: vecmath.V3(230, -30, -250), Rot: vecmath.QuatIdentity}
			if shape.Holds[k] {
				a.avatar.Parts[k].Held = Held{Holding: true, Object: 1<<16 - 1, Relative: vecmath.Transform{Pos: vecmath.V3(-1.9, 1.9, -1.9), Rot: rot}}
				a.held[k] = Version{0xFFFF, 0xFFFF}
				base.avatar.Parts[k].Held = Held{Holding: true, Object: 3, Relative: vecmath.TransformIdentity}
			}
		}
		a.avatar.Parts[0].Pose.Pos = vecmath.V3(255, 255, -255)
		var err error
		if a, err = wc.settleValue(a); err != nil {
			t.Fatal(err)
		}
		if base, err = wc.settleValue(base); err != nil {
			t.Fatal(err)
		}
		withBase := packet{tick: 1 << 30, avatars: []avatarSample{a}}
		withBase.refs[0] = avatarRef{base: &avatarBaseline{sample: base, tick: 3}, age: ringSize - 1}
		for _, c := range []Coder{CoderPlain, CoderRange} {
			none := encodePacket(t, wc, c, packet{})
			for _, p := range []packet{{avatars: []avatarSample{a}}, withBase} {
				if n := len(encodePacket(t, wc, c, p)) - len(none) + 1; n > wc.maxAvatarBytes() {
					t.Fatalf("%d parts, %v, base %v: an avatar of %d bytes, bound %d", shape.Parts, c, p.refs[0].base != nil, n, wc.maxAvatarBytes())
				}
			}
		}
	}
}

// roundTrip checks a fuzzed packet: one that decodes encodes back to the
// same bytes, and those decode to the same packet.
func roundTrip(t *testing.T, wc wireCodec, find *lookup, data []byte) {
	t.Helper()
	var p packet
	if err := wc.decode(data, &p, find); err != nil {
		return
	}
	out, err := wc.encode(make([]byte, len(data)+16), Coder(data[0]&1), &p)
	if err != nil {
		t.Fatalf("a decoded packet does not encode: %v", err)
	}
	if !bytes.Equal(out, data) {
		t.Fatalf("re-encoded as\n% x\ndecoded from\n% x", out, data)
	}
	var q packet
	if err := wc.decode(out, &q, find); err != nil {
		t.Fatalf("the re-encoding does not decode: %v", err)
	}
	if !reflect.DeepEqual(p, q) {
		t.Fatalf("round trip changed the packet:\n%+v\n%+v", p, q)
	}
}

// settleValue is settle for the tests: a copy of the settled sample, which
// the next settle of the same player's avatar leaves as it is.
func (w *wireCodec) settleValue(a avatarSample) (avatarSample, error) {
	s, err := w.settle(&a)
	if err != nil {
		return a, err
	}
	return *s, nil
}
