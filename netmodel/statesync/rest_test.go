package statesync

import (
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// TestHostKeepsARestingCubeForAnUpdateThatOnlyWakesIt: a guest's update
// at the very pose where the cube rests on the host, creeping, is taken
// (authority and version) but does not wake the cube, which would restart
// the rest window of its whole island; the same update moving at 1 m/s,
// or at another pose, wakes it.
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
	if a, _, now := f.host.Authority(i); a != OwnerOf(1) || now != v {
		t.Fatalf("the claim was not taken: authority %d, version %v", a, now)
	}
	if s := f.hg.Object(i); s != resting {
		t.Fatalf("a creeping update at the resting pose woke the cube: %+v", s)
	}
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
		if s := f.hg.Object(i); s.AtRest || s == resting {
			t.Errorf("%s: not applied: %+v", name, s)
		}
	}
}
