package statesync

import (
	"reflect"
	"testing"

	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// fuzzSeq is the packet sequence the fuzzed packets arrive with; the ring
// holds every object's state from the packet before it.
const fuzzSeq = reliable.Sequence(101)

func fuzzSetup(t testing.TB) (wireCodec, *receivedRing, []update) {
	g := newToy(1, 6)
	cfg := DefaultConfig()
	cfg.Player = 1
	n, err := newNode(cfg, g, false)
	if err != nil {
		t.Fatal(err)
	}
	ring := newReceivedRing(6)
	var ups []update
	for i := range 6 {
		b := baseline{seq: fuzzSeq - 1, tick: 40, state: n.cur[i], auth: Nobody, ver: Version{1, 2}}
		ring.store(i, b)
		moving := n.game.Object(i)
		moving.AtRest = false
		moving.Position = moving.Position.Add(vecmath.V3(0.1*float64(i), 2, 0))
		moving.LinearVelocity = vecmath.V3(1, 3, -2)
		moving.AngularVelocity = vecmath.V3(0, 1, 0)
		q, _ := n.q.quantize(moving)
		u := update{id: i, auth: OwnerOf(1), ver: Version{1, 3}, state: q}
		if i%2 == 0 {
			u.base, _ = ring.find(i, fuzzSeq, 1)
			u.age = 1
		}
		ups = append(ups, u)
	}
	return n.wc, &ring, ups
}

func encodePacket(t testing.TB, wc wireCodec, p packet) []byte {
	buf := make([]byte, 4096)
	w := wire.NewWriter(buf)
	if err := wc.serializePacket(w, &p, nil); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), w.Bytes()...)
}

// FuzzPacketDecode feeds the update decoder arbitrary bytes: it must never
// panic, and what it accepts must encode back to the same bits.
func FuzzPacketDecode(f *testing.F) {
	wc, ring, ups := fuzzSetup(f)
	av := avatarSample{player: 2, time: 77, offset: 9}
	av.avatar.Head = vecmath.Transform{Pos: vecmath.V3(1, 2, 3), Rot: vecmath.QuatIdentity}
	av.avatar.Hands[0] = vecmath.Transform{Pos: vecmath.V3(1, 1, 3), Rot: vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), 0.3)}
	av.avatar.Hands[1] = av.avatar.Head
	av.avatar.Held[0] = Held{Holding: true, Object: 3, Relative: vecmath.Transform{Pos: vecmath.V3(0, -0.6, 0), Rot: vecmath.QuatIdentity}}
	av.held[0] = Version{4, 5}
	for _, p := range []packet{
		{tick: 41, player: 1, present: 3},
		{tick: 41, player: 2, present: 7, avatars: []avatarSample{av}, updates: ups},
		{tick: 60, player: 3, present: 15, updates: ups[:2]},
	} {
		f.Add(encodePacket(f, wc, p))
	}
	find := func(id, age int) (*baseline, error) { return ring.find(id, fuzzSeq, age) }
	f.Fuzz(func(t *testing.T, data []byte) {
		var p packet
		r := wire.NewReader(data)
		if err := wc.serializePacket(r, &p, find); err != nil {
			return
		}
		buf := make([]byte, len(data)+16)
		w := wire.NewWriter(buf)
		if err := wc.serializePacket(w, &p, nil); err != nil {
			t.Fatalf("a decoded packet does not encode: %v", err)
		}
		if w.BitsWritten() != r.BitsRead() {
			t.Fatalf("re-encoded in %d bits, decoded from %d", w.BitsWritten(), r.BitsRead())
		}
		var q packet
		if err := wc.serializePacket(wire.NewReader(w.Bytes()), &q, find); err != nil {
			t.Fatalf("the re-encoding does not decode: %v", err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip changed the packet:\n%+v\n%+v", p, q)
		}
	})
}

// TestPacketTruncatedAtEveryByte: a packet cut short anywhere is an error.
func TestPacketTruncatedAtEveryByte(t *testing.T) {
	wc, ring, ups := fuzzSetup(t)
	data := encodePacket(t, wc, packet{tick: 41, player: 1, present: 3, updates: ups})
	find := func(id, age int) (*baseline, error) { return ring.find(id, fuzzSeq, age) }
	for n := range len(data) - 1 {
		var p packet
		if err := wc.serializePacket(wire.NewReader(data[:n]), &p, find); err == nil {
			t.Fatalf("decoded %d of %d bytes", n, len(data))
		}
	}
	var p packet
	if err := wc.serializePacket(wire.NewReader(data), &p, find); err != nil || len(p.updates) != len(ups) {
		t.Fatalf("whole packet: %v, %d updates", err, len(p.updates))
	}
	for i := range ups {
		if p.updates[i].state != ups[i].state || p.updates[i].ver != ups[i].ver || p.updates[i].auth != ups[i].auth {
			t.Fatalf("update %d: %+v, want %+v", i, p.updates[i], ups[i])
		}
	}
}
