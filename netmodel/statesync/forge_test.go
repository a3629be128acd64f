package statesync

import (
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// forger speaks to a host as guest 1 would, but writes whatever packet a
// test gives it.
type forger struct {
	t     *testing.T
	host  *Host
	hg    *toyGame
	ep    *reliable.Endpoint
	wc    wireCodec
	coder Coder
	now   time.Time
	tick  Tick // the forged avatar samples' time
}

func newForger(t *testing.T) *forger {
	hg := newToy(0, 6)
	host, err := NewHost(DefaultConfig(), hg)
	if err != nil {
		t.Fatal(err)
	}
	now := simmatch.Epoch
	if err := host.Join(now, 0); err != nil {
		t.Fatal(err)
	}
	ep, _ := reliable.NewEndpoint(reliable.DefaultConfig(), now)
	return &forger{t: t, host: host, hg: hg, ep: ep, wc: host.wc, coder: host.cfg.Coder, now: now}
}

// send encodes p and hands it to the host; it returns the host's verdict.
func (f *forger) send(p packet) error {
	f.t.Helper()
	data, err := f.wc.encode(make([]byte, 2048), f.coder, &p)
	if err != nil {
		f.t.Fatal(err)
	}
	_, ds, err := f.ep.SendPacket(f.now, data)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.host.Receive(f.now, 0, ds[0])
}

// reach sends guest 1's avatar with both hands at object i, as a guest
// that touches it would: the host takes claims only on what a guest
// could have touched.
func (f *forger) reach(i int) {
	f.t.Helper()
	f.tick++
	a := avatarSample{player: 1, time: f.tick, avatar: f.hg.avatars[1]}
	at := f.hg.Object(i).Position
	a.avatar.Parts[1].Pose.Pos, a.avatar.Parts[2].Pose.Pos = at, at
	// a first sample, then one where the hands are: no jump between them
	if err := f.send(packet{player: 1, present: 2, avatars: []avatarSample{a}}); err != nil {
		f.t.Fatal(err)
	}
}

// play steps the host past the playback delay of guest 1's updates, so
// that what it accepted is applied.
func (f *forger) play() {
	f.t.Helper()
	for range int(f.host.links[1].pb.delay) + 2 {
		f.now = f.now.Add(time.Second / 60)
		if err := f.host.Update(f.now, func(int, []byte) {}); err != nil {
			f.t.Fatal(err)
		}
	}
}

// claim is guest 1's update of object i at state s with version v.
func (f *forger) claim(i int, v Version, s qstate) update {
	return update{id: i, baseline: baseline{auth: OwnerOf(1), ver: v, state: s}}
}

func (f *forger) moved(i int, d vecmath.Vec3) qstate {
	s := f.hg.Object(i)
	s.Position, s.AtRest = s.Position.Add(d), false
	s.LinearVelocity = vecmath.V3(0, 1, 0)
	q, err := f.host.q.quantize(s)
	if err != nil {
		f.t.Fatal(err)
	}
	return q
}

func TestHostRejectsForgedClaims(t *testing.T) {
	f := newForger(t)
	f.reach(2)
	before := f.hg.Object(2)
	_, _, v := f.host.Authority(2)
	ahead := v
	ahead.Auth += 20000
	farOwn := v
	farOwn.Own += 1000
	other := f.claim(2, Version{v.Own, v.Auth + 1}, f.moved(2, vecmath.V3(0, 1, 0)))
	other.auth = OwnerOf(3)
	outside := f.claim(2, Version{v.Own, v.Auth + 1}, f.moved(2, vecmath.V3(0, -12, 0)))
	for name, u := range map[string]update{
		"authority sequence far ahead": f.claim(2, ahead, f.moved(2, vecmath.V3(0, 1, 0))),
		"ownership sequence far ahead": f.claim(2, farOwn, f.moved(2, vecmath.V3(0, 1, 0))),
		"authority for another player": other,
		"outside the arena":            outside,
	} {
		forged := f.host.Counters().Forged
		if err := f.send(packet{player: 1, present: 2, updates: []update{u}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.host.Counters().Forged != forged+1 {
			t.Errorf("%s: not counted as forged", name)
		}
		if f.hg.Object(2) != before {
			t.Fatalf("%s: applied", name)
		}
		if a, _, now := f.host.Authority(2); a != Nobody || now != v {
			t.Fatalf("%s: claims changed to %d %v", name, a, now)
		}
	}
	// The same claim with an honest version is taken.
	if err := f.send(packet{player: 1, present: 2, updates: []update{f.claim(2, Version{v.Own, v.Auth + 1}, f.moved(2, vecmath.V3(0, 1, 0)))}}); err != nil {
		t.Fatal(err)
	}
	f.play()
	if a, _, _ := f.host.Authority(2); a != OwnerOf(1) || f.hg.Object(2) == before {
		t.Fatalf("an honest claim was refused: authority %d", a)
	}
}

func TestHostRejectsAClaimOnACubeAnotherHolds(t *testing.T) {
	f := newForger(t)
	top := f.hg.Object(4).Position.Add(vecmath.V3(0, 0.7, 0))
	f.hg.target = top
	for range 120 {
		f.now = f.now.Add(time.Second / 60)
		if err := f.host.Update(f.now, func(int, []byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	f.hg.grip = true
	f.now = f.now.Add(time.Second / 60)
	_ = f.host.Update(f.now, func(int, []byte) {})
	if _, h, _ := f.host.Authority(4); h != OwnerOf(0) {
		t.Fatalf("the host player does not hold the cube: %d", h)
	}
	_, _, v := f.host.Authority(4)
	newer := Version{v.Own + 1, v.Auth + 1}
	a := avatarSample{player: 1, time: 1, avatar: f.hg.avatars[1]}
	a.avatar.Parts[1].Held = Held{Holding: true, Object: 4, Relative: vecmath.TransformIdentity}
	a.held[1] = newer
	before := f.host.Counters().HeldElsewhere
	err := f.send(packet{player: 1, present: 2, avatars: []avatarSample{a},
		updates: []update{f.claim(4, newer, f.moved(4, vecmath.V3(2, 0, 0)))}})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.host.Counters().HeldElsewhere - before; n != 2 {
		t.Fatalf("%d claims on the held cube counted, want the hold and the update", n)
	}
	if _, h, now := f.host.Authority(4); h != OwnerOf(0) || now != v {
		t.Fatalf("the host player lost the cube: holder %d version %v", h, now)
	}
}

func TestHostDropsUndecodablePackets(t *testing.T) {
	f := newForger(t)
	before := f.hg.Object(1)
	// A quaternion code smallest three never produces: 2^B - 1.
	// One update written by hand: id 1, no base, claims, position, then
	// the invalid orientation.
	buf := make([]byte, 64)
	buf[0] = formatByte(CoderPlain)
	w := wire.NewWriter(buf[1:])
	cx := newCoding()
	_ = f.wc.serializeHead(w, &cx, &packet{player: 1, present: 2}, nil)
	_, _ = serializeMore(w, &cx, true)
	id, hasBase, auth := 1, false, OwnerOf(1)
	_ = f.wc.serializeID(w, &cx, &id)
	_ = wire.SerializeBool(w, &hasBase)
	_ = wire.SerializeInt(w, &auth, 0, MaxPlayers)
	seq := Seq(1)
	_ = wire.SerializeBits(w, &seq, 16)
	_ = wire.SerializeBits(w, &seq, 16)
	pos := f.moved(1, vecmath.Vec3{}).pos
	_ = serializeInts(w, &pos, f.wc.posMax)
	largest, bad := uint8(3), uint64(1)<<f.wc.q.spec.OrientationBits-1
	_ = wire.SerializeInt(w, &largest, 0, 3)
	for range 3 {
		_, _ = w.Bits(bad, f.wc.q.spec.OrientationBits)
	}
	_, ds, _ := f.ep.SendPacket(f.now, buf[:1+len(w.Bytes())])
	err := f.host.Receive(f.now, 0, ds[0])
	if !errors.Is(err, ErrMalformed) || f.host.Counters().Malformed != 1 || f.hg.Object(1) != before {
		t.Fatalf("err %v, counters %+v", err, f.host.Counters())
	}
}
