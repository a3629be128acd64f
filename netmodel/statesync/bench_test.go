package statesync

import (
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// BenchmarkPacketFill fills and writes a host packet as link.send does:
// three avatars against their baselines, then 110 objects measured one by
// one (the VR table's count; one in ten moving), with each coder.
func BenchmarkPacketFill(b *testing.B) {
	const objects = 110
	cfg := DefaultConfig()
	cfg.Player = 1
	n, err := newNode(cfg, newToy(1, objects), false)
	if err != nil {
		b.Fatal(err)
	}
	ring := newReceivedRing(objects)
	var ups []update
	for i := range objects {
		base := baseline{seq: fuzzSeq - 9, tick: 40, state: n.cur[i], auth: Nobody, ver: Version{1, 2}}
		ring.store(i, base.seq, base)
		st := n.cur[i]
		if i%10 == 0 {
			s := n.game.Object(i)
			s.AtRest, s.LinearVelocity = false, vecmath.V3(1, 3, -2)
			s.Position = s.Position.Add(vecmath.V3(0, 0.5, 0))
			if st, err = n.q.quantize(s); err != nil {
				b.Fatal(err)
			}
		}
		u := update{id: i, auth: Nobody, ver: Version{1, 2}, state: st, age: 9}
		u.base, _ = ring.find(i, fuzzSeq, 9)
		ups = append(ups, u)
	}
	av, err := n.wc.settle(fuzzAvatar())
	if err != nil {
		b.Fatal(err)
	}
	moved := av
	moved.avatar.Hands[0].Pos = moved.avatar.Hands[0].Pos.Add(vecmath.V3(0.01, 0, 0))
	buf := make([]byte, 4096)
	for _, c := range []Coder{CoderPlain, CoderRange} {
		b.Run(c.String(), func(b *testing.B) {
			var bld builder
			p := &packet{tick: 49, avatars: []avatarSample{moved, moved, moved}}
			for i := range p.avatars {
				p.refs[i] = avatarRef{base: &avatarBaseline{sample: av, tick: 40}, age: 9}
			}
			size := 0
			for range b.N {
				p.updates = p.updates[:0]
				if err := n.wc.begin(&bld, p, c, cfg.PacketBytes); err != nil {
					b.Fatal(err)
				}
				for _, u := range ups {
					if _, err := bld.add(u); err != nil {
						b.Fatal(err)
					}
				}
				data, err := n.wc.encode(buf, c, p)
				if err != nil {
					b.Fatal(err)
				}
				size = len(data)
			}
			b.ReportMetric(float64(size), "bytes/packet")
			b.ReportMetric(float64(len(p.updates)), "objects/packet")
		})
	}
}
