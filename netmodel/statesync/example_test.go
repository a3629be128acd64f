package statesync_test

import (
	"fmt"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
)

// pushers is a small game of its own: each player drives a cube over a
// floor (objects 0 and 1) and pushes a crate (object 2) with it. It has no
// hands and no avatar: it implements Game and Bodies only.
type pushers struct {
	w      *physics.World
	ids    []physics.BodyID
	local  statesync.Player
	drive  bool
	target vecmath.Vec3
	pairs  [][2]int
}

func newPushers(local statesync.Player) *pushers {
	w, err := physics.NewWorld(physics.DefaultConfig())
	if err != nil {
		panic(err)
	}
	floor := physics.DefaultBodyDef()
	floor.Type, floor.Shape = physics.Static, collide.Shape{Kind: collide.Plane}
	if _, err := w.CreateBody(floor); err != nil {
		panic(err)
	}
	g := &pushers{w: w, local: local}
	for _, at := range []vecmath.Vec3{vecmath.V3(-3, 0.5, 0), vecmath.V3(3, 0.5, 3), vecmath.V3(0, 0.5, 0)} {
		def := physics.DefaultBodyDef()
		def.Mass, def.Position = 1, at
		id, err := w.CreateBody(def)
		if err != nil {
			panic(err)
		}
		g.ids = append(g.ids, id)
	}
	return g
}

func (g *pushers) Objects() int { return len(g.ids) }

func (g *pushers) Object(i int) physics.BodyState {
	s, err := g.w.State(g.ids[i])
	if err != nil {
		panic(err) // the game's own handles are always valid
	}
	return s
}

func (g *pushers) SetObject(i int, s physics.BodyState) error { return g.w.SetState(g.ids[i], s) }

// Body is the cube player p drives: the host's is 0, the guest's 1.
func (g *pushers) Body(p statesync.Player) int { return int(p) }

// Step drives the local cube towards its target at 2 m/s, then steps.
func (g *pushers) Step(func(int) bool) {
	if me := g.Body(g.local); g.drive {
		s := g.Object(me)
		d := g.target.Sub(s.Position)
		d.Y = 0
		if l := d.Length(); l > 0.1 {
			s.LinearVelocity, s.AtRest = d.Scale(2/l), false
			_ = g.w.SetState(g.ids[me], s)
		}
	}
	g.w.Step()
	g.pairs = g.pairs[:0]
	g.w.Touching(func(a, b physics.BodyID) {
		ia, ib := g.index(a), g.index(b)
		if ia >= 0 && ib >= 0 {
			g.pairs = append(g.pairs, [2]int{ia, ib})
		}
	})
}

func (g *pushers) index(id physics.BodyID) int {
	for i, x := range g.ids {
		if x == id {
			return i
		}
	}
	return -1
}

// Touches reports the touching objects, and the local player's own cube
// while it drives it.
func (g *pushers) Touches(objects func(a, b int), player func(p statesync.Player, i int)) {
	for _, p := range g.pairs {
		objects(p[0], p[1])
	}
	if g.drive {
		player(g.local, g.Body(g.local))
	}
}

// A guest drives its cube into a crate over a lossy network: it takes
// authority over its cube by driving it and over the crate by pushing
// it, and once everything rests, authority returns to the host and both
// machines hold the same bits.
func Example() {
	hostGame, guestGame := newPushers(0), newPushers(1)
	host, err := statesync.NewHost(statesync.DefaultConfig(), hostGame)
	if err != nil {
		panic(err)
	}
	cond := netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.1}
	match, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 1, Conditions: cond}}, host)
	if err != nil {
		panic(err)
	}
	cfg := statesync.DefaultConfig()
	cfg.Player = 1
	guest, err := statesync.NewGuest(cfg, guestGame, match.Now())
	if err != nil {
		panic(err)
	}
	if _, err := match.Join(guest); err != nil {
		panic(err)
	}

	guestGame.drive, guestGame.target = true, vecmath.V3(-2, 0.5, -3)
	crateTaken := false
	for range 60 { // three seconds of play, looking every 50 ms
		if err := match.Run(50 * time.Millisecond); err != nil {
			panic(err)
		}
		if auth, _, _ := host.Authority(2); auth == statesync.OwnerOf(1) {
			crateTaken = true
		}
	}
	fmt.Println("the host saw the guest take the crate:", crateTaken)
	fmt.Println("the crate moved:", hostGame.Object(2).Position.Sub(vecmath.V3(0, 0.5, 0)).Length() > 0.5)

	guestGame.drive = false
	if err := match.Run(5 * time.Second); err != nil {
		panic(err)
	}
	same := true
	for i := range hostGame.Objects() {
		auth, _, _ := guest.Authority(i)
		same = same && auth == statesync.Nobody && guestGame.Object(i) == hostGame.Object(i) && hostGame.Object(i).AtRest
	}
	fmt.Println("at rest, under the default authority, identical:", same)
	// Output:
	// the host saw the guest take the crate: true
	// the crate moved: true
	// at rest, under the default authority, identical: true
}
