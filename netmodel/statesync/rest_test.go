package statesync

import (
	"testing"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/vecmath"
)

// TestHostKeepsARestingCubeForAnUpdateThatOnlyWakesIt: a guest's update
// at the very pose where the cube rests on the host, creeping, does not
// wake the cube, which would restart the rest window of its whole island:
// the host's rest is final, and it answers with it (authority back to
// nobody, a version newer than the claim, for the guest to follow). The
// same update moving at 1 m/s, or at another pose, wakes it.
func TestHostKeepsARestingCubeForAnUpdateThatOnlyWakesIt(t *testing.T) {
	f := newForger(t)
	const i = 2
	q, err := f.host.q.quantize(f.hg.Object(i))
	if err != nil {
		t.Fatal(err)
	}
	q.rest, q.lin, q.ang = true, f.host.q.zeroLin, f.host.q.zeroAng
	resting := f.host.q.body(q)
	if err := f.hg.SetObject(i, resting); err != nil {
		t.Fatal(err)
	}
	f.reach(i)
	_, _, v := f.host.Authority(i)
	at := func(d, vel vecmath.Vec3) qstate {
		s := resting
		s.Position, s.LinearVelocity, s.AtRest = s.Position.Add(d), vel, false
		u, err := f.host.q.quantize(s)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	creep := vecmath.V3(0, 0, -0.002) // one velocity step, 2 mm/s
	v.Auth++
	if err := f.send(packet{player: 1, present: 2, updates: []update{f.claim(i, v, at(vecmath.Vec3{}, creep))}}); err != nil {
		t.Fatal(err)
	}
	f.play()
	if a, _, now := f.host.Authority(i); a != Nobody || now.Compare(v) <= 0 || f.host.Counters().Reclaimed != 1 {
		t.Fatalf("the host did not answer with its rest: authority %d, version %v (claim %v)", a, now, v)
	}
	if s := f.hg.Object(i); s != resting {
		t.Fatalf("a creeping update at the resting pose woke the cube: %+v", s)
	}
	_, _, v = f.host.Authority(i)
	v.Auth++
	for name, u := range map[string]qstate{
		"moving at 1 m/s":   at(vecmath.Vec3{}, vecmath.V3(0, 0, -1)),
		"a millimetre away": at(vecmath.V3(0, 0, -0.001), creep),
	} {
		if err := f.hg.SetObject(i, resting); err != nil {
			t.Fatal(err)
		}
		if err := f.send(packet{player: 1, present: 2, updates: []update{f.claim(i, v, u)}}); err != nil {
			t.Fatal(err)
		}
		f.play()
		if s := f.hg.Object(i); s.AtRest || s == resting {
			t.Errorf("%s: not applied: %+v", name, s)
		}
	}
}

// TestGuestRetakesAWokenPileWhole: a pile of four cubes under guest 1's
// authority rested (every cube waits for the host's confirmation) and
// was woken: it settles. While it only settles, nothing changes; when the
// bottom cube moves again, every awake cube touching it through the pile
// is taken afresh, so that the host's confirmations, now stale, do not
// hand part of a moving pile to the host. Another player's cube, one
// apart, and one still asleep (its rest update is right as it is) keep
// waiting.
func TestGuestRetakesAWokenPileWhole(t *testing.T) {
	g := newToy(1, 6)
	cfg := DefaultConfig()
	cfg.Player = 1
	guest, err := NewGuest(cfg, g, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	n := guest.node
	for i := range n.objs {
		s := g.Object(i)
		s.AtRest, s.LinearVelocity, s.AngularVelocity = i == 5, vecmath.V3(0, -0.01, 0), vecmath.Vec3{}
		if s.AtRest {
			s.LinearVelocity = vecmath.Vec3{}
		}
		if err := g.SetObject(i, s); err != nil {
			t.Fatal(err)
		}
		n.objs[i] = object{auth: n.me, ver: Version{Auth: 3}, restPending: true}
	}
	n.objs[4].auth = OwnerOf(2)
	// 0-1-2-3 is the pile; 4, another player's, touches 3; 5, asleep,
	// touches 0.
	n.pairs = [][2]int{{1, 0}, {1, 2}, {3, 2}, {3, 4}, {0, 5}}
	n.retakePiles()
	for i := range n.objs {
		if !n.objs[i].restPending {
			t.Fatalf("cube %d was taken afresh while the pile only settles", i)
		}
	}
	n.objs[0].restPending, n.objs[0].ver.Auth = false, 4 // afterStep: it moves again
	n.retakePiles()
	for i, want := range []bool{false, false, false, false, true, true} {
		if o := n.objs[i]; o.restPending != want || (!want && o.ver.Auth != 4) {
			t.Errorf("cube %d: waiting %v, version %v; want waiting %v", i, o.restPending, o.ver, want)
		}
	}
}
