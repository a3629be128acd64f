package statesync

import (
	"cmp"
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
)

// hostile is guest 3 with a client of its own: a real Guest underneath
// follows the match (the host's versions and states, what it would send
// is thrown away), and every frame the hostile writes its own packets,
// well formed, on its own endpoint: its avatar, standing still by the
// tower, and the claims of the attack of the moment.
type hostile struct {
	t      *testing.T
	inner  *Guest
	ep     *reliable.Endpoint
	frame  int
	attack func(x *hostile) []packet
	// ahead moves the time its packets and avatar say on, and hand is
	// where its hands are (hostileHand unless set).
	ahead Tick
	hand  *vecmath.Vec3
	// jump is how far behind its hands go when it says its clock jumped
	// (11 m unless set).
	jump float64
	buf  []byte
}

const hostileTower, hostileCubes = 4, 10

// hostileHand is where the hostile's hands stay: by the tower, touching
// nothing, within reach of the tower and of cube 4 and 5, far from the
// others.
var hostileHand = vecmath.V3(-1.3, 1.5, -3.5)

func newHostile(t *testing.T, now time.Time) *hostile {
	cfg := DefaultConfig()
	cfg.Player = 3
	inner, err := NewGuest(cfg, newToyTower(3, hostileCubes, hostileTower), now)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := reliable.NewEndpoint(cfg.Reliable, now)
	if err != nil {
		t.Fatal(err)
	}
	return &hostile{t: t, inner: inner, ep: ep, buf: make([]byte, 4096)}
}

func (x *hostile) Receive(now time.Time, d []byte) error {
	_, _, _ = x.ep.ReceivePacket(now, d) // for its acks
	return x.inner.Receive(now, d)
}

func (x *hostile) Update(now time.Time, send func([]byte)) error {
	if err := x.inner.Update(now, func([]byte) {}); err != nil {
		return err
	}
	x.frame++
	ps := []packet{{}}
	if x.attack != nil {
		if a := x.attack(x); len(a) > 0 {
			ps = a
		}
	}
	for k := range ps {
		p := &ps[k]
		p.tick, p.player, p.present = x.inner.Tick()+x.ahead, 3, 1<<3
		if k == 0 {
			a := avatarSample{player: 3, time: p.tick, avatar: x.inner.av.Avatar(3)}
			hand := hostileHand
			if x.hand != nil {
				hand = *x.hand
			}
			a.avatar.Parts[1].Pose.Pos, a.avatar.Parts[2].Pose.Pos = hand, hand
			for k := range a.avatar.Parts {
				a.avatar.Parts[k].Held = Held{}
			}
			for h, held := range p.avatars {
				a.avatar.Parts[1+h].Held, a.held[1+h] = held.avatar.Parts[1].Held, held.held[1]
			}
			p.avatars = []avatarSample{a}
		}
		data, err := x.inner.wc.encode(x.buf, CoderRange, p)
		if err != nil {
			x.t.Fatal(err)
		}
		_, ds, err := x.ep.SendPacket(now, data)
		if err != nil {
			x.t.Fatal(err)
		}
		for _, d := range ds {
			send(d)
		}
	}
	return nil
}

// claim is an update of object i by the hostile at state s, one ahead of
// the version it knows.
func (x *hostile) claim(i int, s physics.BodyState) update {
	q, err := x.inner.q.quantize(s)
	if err != nil {
		x.t.Fatal(err)
	}
	_, _, v := x.inner.Authority(i)
	v.Auth++
	return update{id: i, baseline: baseline{auth: OwnerOf(3), ver: v, state: q}}
}

// hold is a forged avatar that holds object i in its first hand.
func (x *hostile) hold(i int) avatarSample {
	_, _, v := x.inner.Authority(i)
	a := avatarSample{}
	a.avatar.Parts[1].Held = Held{Holding: true, Object: i, Relative: vecmath.TransformIdentity}
	a.held[1] = Version{v.Own + 1, v.Auth + 1}
	return a
}

// The attacks, a second each.
var attacks = []struct {
	name string
	// packets of one frame; counter says what the host must count
	send    func(x *hostile) []packet
	counter func(c Counters) uint64
	want    uint64
}{
	{"take a cube under another player's authority", func(x *hostile) []packet {
		if a, _, _ := x.inner.Authority(6); a != OwnerOf(1) {
			return nil
		}
		return []packet{{updates: []update{x.claim(6, x.inner.game.Object(6))}}}
	}, func(c Counters) uint64 { return c.Implausible }, 1},
	{"teleport the tower into one point", func(x *hostile) []packet {
		var us []update
		for i := range hostileTower {
			us = append(us, x.claim(i, physics.BodyState{Position: vecmath.V3(0, 9, -3), Rotation: vecmath.QuatIdentity}))
		}
		return []packet{{updates: us}}
	}, func(c Counters) uint64 { return c.Implausible }, hostileTower},
	{"launch a cube at 60 m/s", func(x *hostile) []packet {
		s := x.inner.game.Object(4)
		s.AtRest, s.LinearVelocity = false, vecmath.V3(60, 0, 0)
		return []packet{{updates: []update{x.claim(4, s)}}}
	}, func(c Counters) uint64 { return c.Implausible }, 1},
	{"hold two far cubes a frame", func(x *hostile) []packet {
		i := 7 + x.frame%3
		return []packet{{avatars: []avatarSample{x.hold(i), x.hold(7 + (i-6)%3)}}}
	}, func(c Counters) uint64 { return c.Implausible }, 2},
	{"wrap a version: 160 claims of +250 in one frame", func(x *hostile) []packet {
		if x.frame != 1 {
			return nil
		}
		u := x.claim(5, x.inner.game.Object(5))
		var ps []packet
		for range 160 {
			ps = append(ps, packet{updates: []update{u}})
			u.ver.Auth += 250
		}
		return ps
	}, func(c Counters) uint64 { return c.Forged + c.Stale + c.Flood }, 158}, // the first two fit the second's budget; past floodBurst, unread
	{"set the tower's top cube down 4.5 m higher, at rest, in one packet", func(x *hostile) []packet {
		if x.frame != 1 {
			return nil
		}
		// Within a throw's reach of the host's copy over the round trip
		// (MaxSpeed × elapsed), but at rest, and far from the hostile's
		// hands: no flight ends there.
		top := x.inner.game.Object(hostileTower - 1)
		return []packet{{updates: []update{x.claim(hostileTower-1, physics.BodyState{Position: top.Position.Add(vecmath.V3(0, 4.5, 0)), Rotation: top.Rotation})}}}
	}, func(c Counters) uint64 { return c.Implausible }, 1},
	{"say its clock jumped 10 s and put its hands 11 m away", func(x *hostile) []packet {
		// Behind it, where the way there and back touches nothing: a
		// hand may get there at Speed in the host's time, not at once.
		at := hostileHand.Add(vecmath.V3(0, 0, -cmp.Or(x.jump, 11)))
		x.hand = &at
		if x.frame == 1 {
			x.ahead += 600
		}
		return nil
	}, func(c Counters) uint64 { return c.Implausible }, 1},
}

// TestHostileGuestIsOverruled: a host, two honest guests and a hostile
// third at 100 ms RTT. Guest 1 pushes a cube; the hostile runs every
// attack for a second, then only stands there. Every attack is overruled
// and counted; afterwards the tower stands on the host as it stood, no
// cube left the table, and the honest guests hold the host's bits with
// nobody's authority over anything.
func TestHostileGuestIsOverruled(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxImplausible = 0 // count every attack; TestHostileGuestIsDropped drops it
	host, hg, m, honest, guests, x := hostileMatch(t, cfg)
	if err := m.Run(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	var tower [hostileTower]vecmath.Vec3
	for i := range tower {
		tower[i] = hg.Object(i).Position
	}
	// Guest 1 sweeps its hand through cube 6 (it gets there in about 1.3
	// s): the cube is its, moving, while the first attack runs.
	c6 := hg.Object(6).Position
	honest[0].target = c6.Add(c6.Sub(toyHome(1)).Scale(0.5))
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	for _, a := range attacks {
		before := a.counter(host.Counters())
		x.attack, x.frame = a.send, 0
		if err := m.Run(time.Second); err != nil {
			t.Fatal(err)
		}
		if n := a.counter(host.Counters()) - before; n < a.want {
			t.Errorf("%s: %d counted, want at least %d", a.name, n, a.want)
		}
	}
	x.attack, x.hand = nil, nil
	honest[0].target = toyHome(1)
	if err := m.Run(8 * time.Second); err != nil {
		t.Fatal(err)
	}
	for i, at := range tower {
		if d := hg.Object(i).Position.Sub(at).Length(); d > 0.05 {
			t.Errorf("tower cube %d moved %.2f m on the host", i, d)
		}
	}
	for i := range host.objs {
		s := hg.Object(i)
		if s.Position.Y < 0 || s.Position.Y > 5 || s.Position.Length() > 20 || !s.AtRest {
			t.Errorf("cube %d at %v, at rest %v: off the table, or still moving", i, s.Position, s.AtRest)
		}
		for k, g := range honest {
			if g.Object(i) != s {
				t.Errorf("cube %d differs on guest %d", i, k+1)
			}
			if a, _, v := guests[k].Authority(i); a != Nobody || v != host.objs[i].ver {
				t.Errorf("guest %d credits %d with cube %d, version %v (the host's %v)", k+1, a, i, v, host.objs[i].ver)
			}
		}
		if a, _, _ := host.Authority(i); a != Nobody {
			t.Errorf("the host credits %d with cube %d", a, i)
		}
	}
	t.Logf("host counters: implausible %d (guest 3: %d), forged %d, stale %d", host.Counters().Implausible, host.Implausible(2), host.Counters().Forged, host.Counters().Stale)
}

// hostileMatch is a host of cfg, two honest guests and the hostile at
// 100 ms RTT.
func hostileMatch(t *testing.T, cfg Config) (*Host, *toyGame, *simmatch.Match, []*toyGame, []*Guest, *hostile) {
	hg := newToyTower(0, hostileCubes, hostileTower)
	host, err := NewHost(cfg, hg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 5, Conditions: netsim.Conditions{Latency: 50 * time.Millisecond}}}, host)
	if err != nil {
		t.Fatal(err)
	}
	var honest []*toyGame
	var guests []*Guest
	for p := Player(1); p <= 2; p++ {
		g := newToyTower(p, hostileCubes, hostileTower)
		gcfg := DefaultConfig()
		gcfg.Player = p
		guest, err := NewGuest(gcfg, g, m.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(guest); err != nil {
			t.Fatal(err)
		}
		honest, guests = append(honest, g), append(guests, guest)
	}
	x := newHostile(t, m.Now())
	if _, err := m.Join(x); err != nil {
		t.Fatal(err)
	}
	return host, hg, m, honest, guests, x
}

// droppedHostile plays a hostileMatch with Config.MaxImplausible 20 in
// which, after a second, the hostile guest (slot 2) claims two far holds a
// frame for attack: the host must have dropped it at its 21st
// implausible claim.
func droppedHostile(t *testing.T, attack time.Duration) (*Host, *simmatch.Match) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.MaxImplausible = 20
	host, _, m, _, _, x := hostileMatch(t, cfg)
	if err := m.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	x.attack = attacks[3].send
	if err := m.Run(attack); err != nil {
		t.Fatal(err)
	}
	if n := host.Implausible(2); n != 21 {
		t.Fatalf("%d implausible claims counted, want the 21 that dropped it", n)
	}
	return host, m
}

// TestHostileGuestIsDropped: past Config.MaxImplausible overruled claims
// the host drops the hostile guest from the match: its packets are
// refused, its avatar goes, and the others play on.
func TestHostileGuestIsDropped(t *testing.T) {
	host, m := droppedHostile(t, 4*time.Second)
	before := host.Counters().FromDropped
	if err := host.Receive(m.Now(), 2, []byte{0}); !errors.Is(err, ErrDropped) || host.Counters().FromDropped != before+1 {
		t.Fatalf("a packet of the dropped guest: %v, counted %d; want ErrDropped, counted", err, host.Counters().FromDropped-before)
	}
	if host.relayed[3] || host.links[3] != nil {
		t.Fatal("the dropped guest is still seated")
	}
}

// TestDroppedGuestCannotRejoin: the hostile, dropped past
// Config.MaxImplausible, reconnects with its client id: it is refused
// (a new connection would start its count afresh), and its seat is not
// held for it: another client takes it at once.
func TestDroppedGuestCannotRejoin(t *testing.T) {
	host, m := droppedHostile(t, 2*time.Second)
	id := m.ClientID(2)
	m.Leave(2)
	if _, err := m.JoinID(newHostile(t, m.Now()), id); !errors.Is(err, ErrDropped) {
		t.Fatalf("the dropped guest came back: %v, want ErrDropped", err)
	}
	if slot, err := m.Join(newHostile(t, m.Now())); err != nil || slot != 2 {
		t.Fatalf("another client took slot %d: %v, want slot 2", slot, err)
	}
	if n := host.Implausible(2); n != 0 {
		t.Fatalf("the new guest in the seat starts with %d implausible claims", n)
	}
}

// lateAcker is the hostile holding every datagram from the host for
// 0.9 s before it reads it: its acks come that late, and the host
// measures a round trip of a second.
type lateAcker struct {
	*hostile
	held []heldDatagram
}

type heldDatagram struct {
	at time.Time
	d  []byte
}

func (x *lateAcker) Receive(now time.Time, d []byte) error {
	x.held = append(x.held, heldDatagram{now, append([]byte(nil), d...)})
	for len(x.held) > 0 && now.Sub(x.held[0].at) >= 900*time.Millisecond {
		_ = x.hostile.Receive(now, x.held[0].d)
		x.held = x.held[1:]
	}
	return nil
}

// TestLateAcksWidenNoReach: a hostile that acks a second late (the host's
// round trip to it reads 1 s) launches a free cube 11 m from its hands
// at 25 m/s, alone and in a packet that also launches a cube by its hand
// at 30 m/s. The allowances for a new claim grow with how long ago the
// contact can have been (the host's time since the guest's previous
// packet), not with the round trip the guest's acks make: both are
// overruled, and the far cube never leaves the ground on the host.
func TestLateAcksWidenNoReach(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxImplausible = 0
	host, hg, m, _, _, _ := hostileMatch(t, cfg)
	id := m.ClientID(2)
	m.Leave(2)
	x := &lateAcker{hostile: newHostile(t, m.Now())}
	if _, err := m.JoinID(x, id); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if rtt := host.links[3].ep.Stats().RTTMax; rtt < 900*time.Millisecond {
		t.Fatalf("the host measures a round trip of %v to the late acker", rtt)
	}
	const far, near = hostileCubes - 1, 5 // 11 m and 4.3 m from its hands
	launch := func(i int, v float64) update {
		s := x.inner.game.Object(i)
		s.AtRest, s.LinearVelocity = false, vecmath.V3(0, v, 0)
		return x.claim(i, s)
	}
	for k, us := range []func() []update{
		func() []update { return []update{launch(far, 25)} },
		func() []update { return []update{launch(near, 30), launch(far, 25)} },
	} {
		// What it knows of the versions is a second old: wait for the
		// host's answer to the last attack.
		if err := m.Run(2 * time.Second); err != nil {
			t.Fatal(err)
		}
		before := host.Implausible(2)
		x.attack = func(x *hostile) []packet {
			if x.frame != 1 {
				return nil
			}
			return []packet{{updates: us()}}
		}
		x.frame = 0
		for range 60 {
			if err := m.Run(time.Second / 60); err != nil {
				t.Fatal(err)
			}
			if y := hg.Object(far).Position.Y; y > 1 {
				t.Fatalf("attack %d: the far cube rose to %.2f m on the host", k+1, y)
			}
		}
		if host.Implausible(2) == before {
			t.Errorf("attack %d: nothing counted", k+1)
		}
	}
}
