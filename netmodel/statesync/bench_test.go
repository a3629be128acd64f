package statesync

import (
	"runtime"
	"testing"

	"github.com/netphys/netphys/internal/cpuclock"
	"github.com/netphys/netphys/vecmath"
)

// fillFixture is a host packet as link.send fills it: three avatars
// against their baselines, then 110 objects (the VR table's count; one in
// ten moving) coded against baselines 9 packets back.
type fillFixture struct {
	n    *node
	ups  []update
	p    packet
	find *lookup // the receiver's baselines
}

func newFillFixture(tb testing.TB) *fillFixture {
	tb.Helper()
	const objects = 110
	cfg := DefaultConfig()
	cfg.Player = 1
	n, err := newNode(cfg, newToy(1, objects), false)
	if err != nil {
		tb.Fatal(err)
	}
	ring, avatars := newReceivedRing(objects), newRing[avatarBaseline](MaxPlayers)
	f := &fillFixture{n: n, find: &lookup{objects: &ring, avatars: &avatars, seq: fuzzSeq}}
	for i := range objects {
		base := baseline{seq: fuzzSeq - 9, tick: 40, state: n.cur[i], auth: Nobody, ver: Version{1, 2}}
		ring.store(i, base.seq, base)
		st := n.cur[i]
		if i%10 == 0 {
			s := n.game.Object(i)
			s.AtRest, s.LinearVelocity = false, vecmath.V3(1, 3, -2)
			s.Position = s.Position.Add(vecmath.V3(0, 0.5, 0))
			if st, err = n.q.quantize(s); err != nil {
				tb.Fatal(err)
			}
		}
		u := update{id: i, baseline: baseline{auth: Nobody, ver: Version{1, 2}, state: st}, age: 9}
		u.base, _ = ring.find(i, fuzzSeq, 9)
		f.ups = append(f.ups, u)
	}
	av, err := n.wc.settleValue(fuzzAvatar())
	if err != nil {
		tb.Fatal(err)
	}
	avatars.store(int(av.player), fuzzSeq-9, avatarBaseline{sample: av, tick: 40})
	moved := av
	moved.avatar.Parts[1].Pose.Pos = moved.avatar.Parts[1].Pose.Pos.Add(vecmath.V3(0.01, 0, 0))
	f.p = packet{tick: 49, avatars: []avatarSample{moved, moved, moved}}
	for i := range f.p.avatars {
		if f.p.refs[i].base, err = f.find.avatar(av.player, 9); err != nil {
			tb.Fatal(err)
		}
		f.p.refs[i].age = 9
	}
	return f
}

// fill builds the packet with coder c under budget into buf, offering
// every object, as link.send does.
func (f *fillFixture) fill(tb testing.TB, bld *builder, c Coder, budget int, buf []byte) []byte {
	f.p.updates = f.p.updates[:0]
	if err := f.n.wc.begin(bld, &f.p, c, budget, buf); err != nil {
		tb.Fatal(err)
	}
	for i := range f.ups {
		*bld.next() = f.ups[i]
		if _, err := bld.add(); err != nil {
			tb.Fatal(err)
		}
	}
	data, err := bld.finish()
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// BenchmarkPacketFill fills and writes the fixture's packet with each
// coder. cpu-ns/op is the thread's CPU time, which a loaded machine
// inflates less than ns/op.
func BenchmarkPacketFill(b *testing.B) {
	f := newFillFixture(b)
	buf := make([]byte, 4096)
	for _, c := range []Coder{CoderPlain, CoderRange} {
		b.Run(c.String(), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var bld builder
			size := 0
			t := cpuclock.Now()
			for range b.N {
				size = len(f.fill(b, &bld, c, f.n.cfg.PacketBytes, buf))
			}
			b.ReportMetric(float64(cpuclock.Now()-t)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(size), "bytes/packet")
			b.ReportMetric(float64(len(f.p.updates)), "objects/packet")
		})
	}
}
