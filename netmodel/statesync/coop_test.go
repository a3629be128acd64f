package statesync

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
)

// coopGame is a co-op world without hands, the cube world's: every player
// drives a cube of its own over the floor and pushes a tower of cubes
// with it. It implements Game and Bodies but not Avatars: nothing is
// held, no avatar is sent, and the players' cubes are objects like the
// others (objects 0 to MaxPlayers-1, the tower after them). The former
// Game, which required a head, two hands and Drop, could not take it.
type coopGame struct {
	w      *physics.World
	bodies []physics.BodyID
	byBody map[physics.BodyID]int
	local  Player
	// drive: the local player steers its cube towards target at
	// coopSpeed; otherwise it leaves it alone.
	drive  bool
	target vecmath.Vec3
	pairs  [][2]int
	mine   []int // objects the local cube touched in the last step
}

const coopSpeed = 3.0

var (
	_ Game   = (*coopGame)(nil)
	_ Bodies = (*coopGame)(nil)
)

// coopHome is player p's cube's place at the start: on a line at z = 4.
func coopHome(p Player) vecmath.Vec3 { return vecmath.V3(float64(2*int(p))-3, 0.5, 4) }

func newCoop(local Player, tower int) *coopGame {
	w, err := physics.NewWorld(physics.DefaultConfig())
	if err != nil {
		panic(err)
	}
	g := &coopGame{w: w, local: local, byBody: map[physics.BodyID]int{}}
	ground := physics.DefaultBodyDef()
	ground.Type, ground.Shape = physics.Static, collide.Shape{Kind: collide.Plane}
	if _, err := w.CreateBody(ground); err != nil {
		panic(err)
	}
	add := func(at vecmath.Vec3) {
		def := physics.DefaultBodyDef()
		def.Mass, def.Position = 1, at
		id, err := w.CreateBody(def)
		if err != nil {
			panic(err)
		}
		g.byBody[id] = len(g.bodies)
		g.bodies = append(g.bodies, id)
	}
	for p := range Player(MaxPlayers) {
		add(coopHome(p))
	}
	for k := range tower {
		add(vecmath.V3(float64(k%2)*1.01-0.5, float64(k/2)+0.5, 0))
	}
	return g
}

func (g *coopGame) Objects() int                   { return len(g.bodies) }
func (g *coopGame) Object(i int) physics.BodyState { return mustState(g.w, g.bodies[i]) }
func (g *coopGame) SetObject(i int, s physics.BodyState) error {
	return g.w.SetState(g.bodies[i], s)
}
func (g *coopGame) Body(p Player) int { return int(p) }

// Step steers the local cube (horizontally, keeping what gravity does),
// steps the world and keeps its contacts.
func (g *coopGame) Step(func(int) bool) {
	me := g.Body(g.local)
	if g.drive {
		s := g.Object(me)
		d := g.target.Sub(s.Position)
		d.Y = 0
		v := vecmath.Vec3{}
		if l := d.Length(); l > 0.05 {
			v = d.Scale(min(coopSpeed, float64(4*l)) / l)
		}
		v.Y = s.LinearVelocity.Y
		s.LinearVelocity, s.AtRest = v, false
		_ = g.w.SetState(g.bodies[me], s)
	}
	g.w.Step()
	g.pairs, g.mine = g.pairs[:0], g.mine[:0]
	if g.drive {
		g.mine = append(g.mine, me) // the player moves its own cube
	}
	g.w.Touching(func(a, b physics.BodyID) {
		ia, oka := g.byBody[a]
		ib, okb := g.byBody[b]
		if oka && okb {
			g.pairs = append(g.pairs, [2]int{ia, ib})
		}
	})
}

func (g *coopGame) Touches(objects func(a, b int), player func(p Player, i int)) {
	for _, p := range g.pairs {
		objects(p[0], p[1])
	}
	for _, i := range g.mine {
		player(g.local, i)
	}
}

// TestCoopWithoutHandsConverges: four players, each driving its cube over
// a lossy, jittery network, push a tower of eight cubes from two
// sides. Each player takes authority over its cube by driving it and over
// the tower cubes its cube hits; no avatar travels. When they stop,
// every object comes to rest under the default authority with the same
// bits on every machine. The host may overrule a few claims as
// implausible: a guest's cube that takes a tower cube it has not yet heard
// another guest took races that guest, and the host does not let objects
// take from another player's authority.
func TestCoopWithoutHandsConverges(t *testing.T) {
	for seed := uint64(3); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { coopConverges(t, seed) })
	}
}

func coopConverges(t *testing.T, seed uint64) {
	const tower = 8
	hg := newCoop(0, tower)
	if _, ok := Game(hg).(Avatars); ok {
		t.Fatal("the co-op game must not implement Avatars")
	}
	host, err := NewHost(DefaultConfig(), hg)
	if err != nil {
		t.Fatal(err)
	}
	cond := netsim.Conditions{Latency: 60 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.1}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: seed, Conditions: cond}}, host)
	if err != nil {
		t.Fatal(err)
	}
	games := []*coopGame{hg}
	nodes := []*node{host.node}
	var guests []*Guest
	for p := Player(1); p < MaxPlayers; p++ {
		g := newCoop(p, tower)
		cfg := DefaultConfig()
		cfg.Player = p
		guest, err := NewGuest(cfg, g, m.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Join(guest); err != nil {
			t.Fatal(err)
		}
		games, nodes, guests = append(games, g), append(nodes, guest.node), append(guests, guest)
	}
	run := func(d time.Duration) {
		t.Helper()
		if err := m.Run(d); err != nil {
			t.Fatal(err)
		}
	}
	run(time.Second)
	// Players 1 and 2 charge the tower from +z, 3 from -x, the host waits.
	targets := []vecmath.Vec3{{}, vecmath.V3(-0.5, 0.5, -3), vecmath.V3(0.5, 0.5, -3), vecmath.V3(-4, 0.5, 0)}
	games[3].target, games[3].drive = vecmath.V3(-3, 0.5, 4), true
	run(time.Second)
	games[3].target = vecmath.V3(4, 0.5, 0)
	for p := 1; p < 3; p++ {
		games[p].target, games[p].drive = targets[p], true
	}
	took := make([]bool, MaxPlayers) // a guest took a tower cube, as the host saw it
	for range 40 {
		run(50 * time.Millisecond)
		for i := MaxPlayers; i < hg.Objects(); i++ {
			if a, _, _ := host.Authority(i); a != Nobody {
				p, _ := a.Player()
				took[p] = true
			}
		}
	}
	if !took[1] && !took[2] && !took[3] {
		t.Fatal("no guest took authority over a tower cube it pushed")
	}
	start := newCoop(0, tower)
	moved := 0
	for i := MaxPlayers; i < hg.Objects(); i++ {
		if hg.Object(i).Position.Sub(start.Object(i).Position).Length() > 0.3 {
			moved++
		}
	}
	if moved < tower/2 {
		t.Fatalf("the players pushed %d of %d tower cubes", moved, tower)
	}
	for _, g := range games {
		g.drive = false
	}
	run(8 * time.Second)
	for i := range hg.Objects() {
		for _, n := range nodes {
			if auth, holder, _ := n.Authority(i); auth != Nobody || holder != Nobody {
				t.Errorf("player %d: object %d under %d held by %d after play", n.cfg.Player, i, auth, holder)
			}
			if n.cur[i] != host.cur[i] {
				t.Errorf("player %d: object %d differs from the host's", n.cfg.Player, i)
			}
			if !n.game.Object(i).AtRest {
				t.Errorf("player %d: object %d not at rest", n.cfg.Player, i)
			}
		}
	}
	hc := host.Counters()
	if hc.Accepted == 0 || hc.Forged != 0 || hc.Implausible > 4 {
		t.Fatalf("host counters %+v", hc)
	}
	for _, g := range guests {
		if c := g.Counters(); c.GrabsLost != 0 {
			t.Fatalf("guest %d lost grabs in a game without holds: %+v", g.cfg.Player, c)
		}
	}
}

// TestBodiesJudgeTakingWithoutAvatars: the host of a game without
// avatars judges a guest's taking by the object the guest drives (Bodies):
// its own body it may take, a tower cube four metres from it it may not;
// a guest whose game has avatars is refused (ErrAvatarShape).
func TestBodiesJudgeTakingWithoutAvatars(t *testing.T) {
	hg := newCoop(0, 4)
	host, err := NewHost(DefaultConfig(), hg)
	if err != nil {
		t.Fatal(err)
	}
	now := simmatch.Epoch
	if err := host.Join(now, 0); err != nil {
		t.Fatal(err)
	}
	ep, _ := reliable.NewEndpoint(reliable.DefaultConfig(), now)
	f := &forger{t: t, host: host, ep: ep, wc: host.wc, coder: host.cfg.Coder, now: now}
	moved := func(i int) qstate {
		s := hg.Object(i)
		s.Position, s.AtRest = s.Position.Add(vecmath.V3(0, 0, -0.05)), false
		s.LinearVelocity = vecmath.V3(0, 0, -1)
		q, err := host.q.quantize(s)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	const crate = MaxPlayers // the tower's bottom cube, at z = 0
	if d := hg.Object(crate).Position.Sub(hg.Object(1).Position).Length(); d < 3.5 {
		t.Fatalf("the crate is %.1f m from guest 1's body", d)
	}
	_, _, vc := host.Authority(crate)
	vc.Auth++
	_, _, vb := host.Authority(1)
	vb.Auth++
	claims := []update{f.claim(1, vb, moved(1)), f.claim(crate, vc, moved(crate))}
	if err := f.send(packet{player: 1, present: 2, updates: claims}); err != nil {
		t.Fatal(err)
	}
	f.play()
	if auth, _, _ := host.Authority(1); auth != OwnerOf(1) {
		t.Fatalf("guest 1's claim on its own body: authority %d", auth)
	}
	if auth, _, _ := host.Authority(crate); auth != Nobody || host.Implausible(0) != 1 {
		t.Fatalf("guest 1's claim on a crate 4 m away: authority %d, %d implausible", auth, host.Implausible(0))
	}
	// A guest whose game has avatars (the toy's, one by the crate) is
	// refused whole: no claim of its packet is judged, nor any after.
	a := avatarSample{player: 1, time: 1}
	for k := range 3 {
		a.avatar.Parts[k].Pose = vecmath.Transform{Pos: hg.Object(crate).Position, Rot: vecmath.QuatIdentity}
	}
	vc.Auth++
	claims = []update{f.claim(crate, vc, moved(crate))}
	shape := toyShape()
	f.wc.shape, f.wc.digest = &shape, shape.digest(&host.cfg)
	for range 2 {
		err = f.send(packet{player: 1, present: 2, avatars: []avatarSample{a}, updates: claims})
		if !errors.Is(err, ErrAvatarShape) || !strings.Contains(err.Error(), "the sender's game has avatars, this one has none") {
			t.Fatalf("a guest with avatars on a host without: %v", err)
		}
	}
	f.play()
	if auth, _, _ := host.Authority(crate); auth != Nobody || host.relayed[1] || host.Counters().Forged != 0 {
		t.Fatalf("a refused guest's claim: authority %d, relayed %v, counters %+v", auth, host.relayed[1], host.Counters())
	}
}
