package statesync

import (
	"fmt"
	"time"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
)

// object is what a machine knows about the claims on one object.
type object struct {
	auth   Owner
	holder Owner
	ver    Version
	// restPending: a guest's object came to rest under its authority and
	// the host has not confirmed the return to the default yet; the guest
	// keeps sending it until it does.
	restPending bool
	// boost and boostUntil raise the priority after a throw or a
	// high-energy collision.
	boost      float64
	boostUntil Tick
	lastLin    vecmath.Vec3
	// settled and rest: on a guest, the host's last word on the object was
	// that it rests in state rest (see holdRests).
	settled bool
	rest    qstate
	// creep counts, on the host, the steps in a row an object under a
	// guest's authority has moved slower than SpreadSpeed (YieldTicks).
	creep int
	// leadAt and leadSpent budget, on the host, the lead guests' claims
	// add to the version: at most MaxSequenceLead in each second from
	// leadAt (Host.spend).
	leadAt    Tick
	leadSpent int
	// behind and behindAt: on a guest, the host has been sending versions
	// older than behindVer, this guest's, since step behindAt (yields).
	behind    bool
	behindVer Version
	behindAt  Tick
}

// node is one machine of the match, host or guest: its copy of the world
// and the rules it applies to it every step.
type node struct {
	cfg     Config
	game    Game
	av      Avatars // game's, nil for a game without avatars
	me      Owner
	host    bool
	q       quantizer
	wc      wireCodec
	objs    []object
	cur     []qstate            // every object's state as of the last step, quantized
	curBody []physics.BodyState // what cur stands for, to skip re-quantizing
	snapped []snapMemo          // per object: the grid state of its state after the last step
	tick    Tick
	next    time.Time
	started bool
	remote  [MaxPlayers]jitterBuffer
	smooth  smoother
	links   [MaxPlayers]*link // by peer; a guest's only link is [0]
	stats   Counters
	mayGrab func(i int) bool
	pairs   [][2]int // touching objects of the last step
	// addPair and touch are spread's callbacks, made once: a closure
	// handed to the game escapes, one allocation a step.
	addPair func(a, b int)
	touch   func(p Player, i int)
	// stepped is every object's state after the last step, read from the
	// game once: the world does not move while the rules run after the
	// step, and they would ask for the same objects again and again.
	stepped []physics.BodyState
	// touching[i]: object i is in one of pairs.
	touching []bool
	// unsettled is holdRests' scratch: per object, whether it touches
	// one that does not rest on the host.
	unsettled []bool
	watch     watcher // the world's digests (agree.go)
	in        packet  // decoding scratch
	// beforeStep, if set, runs first in every step (a guest's playback).
	beforeStep func()
}

func newNode(cfg Config, game Game, host bool) (*node, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if host != (cfg.Player == 0) {
		return nil, fmt.Errorf("%w: the host is player 0 and guests are 1-%d, not %d", ErrConfig, MaxPlayers-1, cfg.Player)
	}
	q, err := newQuantizer(cfg.Spec)
	if err != nil {
		return nil, err
	}
	n := game.Objects()
	if n < 1 || n > 1<<16 {
		return nil, fmt.Errorf("%w: %d objects", ErrConfig, n)
	}
	nd := &node{cfg: cfg, game: game, me: OwnerOf(cfg.Player), host: host, q: q,
		objs: make([]object, n), cur: make([]qstate, n), curBody: make([]physics.BodyState, n), snapped: make([]snapMemo, n),
		smooth: newSmoother(&cfg, n), unsettled: make([]bool, n), stepped: make([]physics.BodyState, n), touching: make([]bool, n)}
	nd.wc = wireCodec{codec: newCodec(q, cfg.Ballistic, n), cfg: &nd.cfg, layout: layoutDigest(&cfg, n)}
	if nd.av, _ = game.(Avatars); nd.av != nil {
		shape := nd.av.AvatarShape()
		if err := shape.validate(); err != nil {
			return nil, err
		}
		nd.wc.shape, nd.wc.digest = &shape, shape.digest(&nd.cfg)
		nd.wc.st.buf = make([]byte, nd.wc.maxAvatarBytes())
	}
	nd.mayGrab = func(i int) bool { return nd.objs[i].holder == Nobody }
	nd.addPair = func(a, b int) { nd.pairs = append(nd.pairs, [2]int{a, b}) }
	nd.touch = nd.touchPlayer
	for i := range nd.cur {
		if nd.cur[i], err = q.quantize(game.Object(i)); err != nil {
			return nil, fmt.Errorf("%w: object %d: %w", ErrConfig, i, err)
		}
		nd.curBody[i] = q.body(nd.cur[i])
	}
	return nd, nil
}

// advance runs the steps due by now, at most MaxStepsPerUpdate; a machine
// further behind drops the backlog rather than spiral. It returns the
// number of steps.
func (n *node) advance(now time.Time) (int, error) {
	if !n.started {
		n.next, n.started = now, true
	}
	steps := 0
	for !now.Before(n.next) && steps < n.cfg.MaxStepsPerUpdate {
		if err := n.step(); err != nil {
			return steps, err
		}
		n.next = n.next.Add(n.cfg.TimeStep)
		steps++
	}
	if !now.Before(n.next) {
		n.next = now.Add(n.cfg.TimeStep)
	}
	return steps, nil
}

// step is one fixed step: pose the remote avatars, quantize every object
// as the network does, let the game step (the local player acts), then
// apply the authority rules to what happened.
func (n *node) step() error {
	if n.beforeStep != nil {
		n.beforeStep()
	}
	for p := range Player(MaxPlayers) {
		if OwnerOf(p) == n.me {
			continue
		}
		if a, ok := n.remote[p].next(n.avatarDelay(p)); ok && n.av != nil {
			n.av.SetAvatar(p, n.heldByRules(p, a))
		}
	}
	if !n.host {
		n.holdRests()
	}
	for i := range n.objs {
		if err := n.quantizeObject(i); err != nil {
			return err
		}
	}
	before := n.localHeld()
	n.game.Step(n.mayGrab)
	n.tick++
	n.stats.Steps++
	for i := range n.stepped {
		n.stepped[i] = n.game.Object(i)
	}
	n.grabsAndReleases(before, n.localHeld())
	n.spread()
	for i := range n.objs {
		s := &n.stepped[i]
		if *s != n.curBody[i] { // a resting object stays on the grid
			q, err := n.q.quantize(*s)
			if err != nil {
				return fmt.Errorf("statesync: object %d: %w", i, err)
			}
			n.cur[i], n.curBody[i] = q, n.q.body(q)
			n.snapped[i] = snapMemo{ok: true, in: *s, out: n.curBody[i]}
		}
		n.afterStep(i, s)
	}
	if !n.host {
		n.retakePiles()
	}
	n.smooth.step()
	for _, l := range n.links {
		if l != nil {
			l.acc.accumulate(l.factor)
		}
	}
	return nil
}

// avatarDelay is how far behind its newest sample remote player p's
// avatar plays back, in steps: the playback delay of the link it comes
// by (a guest's only link; on the host, p's), so that an object leaves
// a remote hand where the hand is drawn.
func (n *node) avatarDelay(p Player) float64 {
	l := n.links[0]
	if n.host {
		l = n.links[p]
	}
	if l == nil {
		return float64(n.cfg.JitterDelay) / float64(n.cfg.TimeStep)
	}
	return float64(l.pb.delay)
}

// quantizeObject snaps object i to the network's grid before a step, so
// that every machine extrapolates from the bits the network carries.
func (n *node) quantizeObject(i int) error {
	s := n.game.Object(i)
	if s == n.curBody[i] {
		return nil // on the grid already: at rest, or set from the network
	}
	var b physics.BodyState
	if m := &n.snapped[i]; m.ok && m.in == s {
		b = m.out // as the last step left it: quantized then
	} else {
		q, err := n.q.quantize(s)
		if err != nil {
			return fmt.Errorf("statesync: object %d: %w", i, err)
		}
		b = n.q.body(q)
	}
	if b != s {
		return n.game.SetObject(i, b)
	}
	return nil
}

// snapMemo is a state after a step and its grid state (quantized and
// back), which the next step's quantizeObject would otherwise compute
// again for every moving object.
type snapMemo struct {
	ok      bool
	in, out physics.BodyState
}

// holdRests keeps each object that the host says rests at the host's
// resting state while it only creeps here, if everything it touches rests
// on the host too. Without it a guest's pile never rests: the host's
// updates put its cubes to rest one packet at a time, each awake
// neighbour wakes the cube just put to rest, and the cube's rest window
// starts over, so the pile creeps at a millimetre per second for ever with
// the right bits but the wrong at-rest bit. Held at the host's states
// together, the pile rests as one. An object that moves (faster than
// SpreadSpeed: something hit it here) or that the guest takes is the
// guest's to simulate until the host says more; one that touches an
// object still moving on the host, or under this guest's authority, is
// left to the physics, which a held object would push like a wall.
func (n *node) holdRests() {
	for i := range n.objs {
		if o := &n.objs[i]; o.settled && (o.auth == n.me || o.holder != Nobody || n.moving(i)) {
			o.settled = false
		}
	}
	clear(n.unsettled)
	for _, p := range n.pairs {
		n.unsettled[p[0]] = n.unsettled[p[0]] || !n.objs[p[1]].settled
		n.unsettled[p[1]] = n.unsettled[p[1]] || !n.objs[p[0]].settled
	}
	for i := range n.objs {
		o := &n.objs[i]
		if !o.settled || n.unsettled[i] {
			continue
		}
		if b := n.q.body(o.rest); n.game.Object(i) != b {
			_ = n.game.SetObject(i, b) // a quantized state is always finite
			n.cur[i], n.curBody[i] = o.rest, b
		}
	}
}

// localHeld returns what the local player's parts hold; nothing in a
// game without avatars.
func (n *node) localHeld() [MaxParts]Held {
	var held [MaxParts]Held
	if n.av == nil {
		return held
	}
	a := n.av.Avatar(n.cfg.Player)
	for k := range n.wc.shape.Parts {
		if n.wc.shape.Holds[k] {
			held[k] = a.Parts[k].Held
		}
	}
	return held
}

// clearAvatar removes remote player p's avatar, if the game has avatars.
func (n *node) clearAvatar(p Player) {
	if n.av != nil {
		n.av.ClearAvatar(p)
	}
}

// drop makes the local player let go of object i, if the game has
// avatars (only they hold).
func (n *node) drop(i int) {
	if n.av != nil {
		n.av.Drop(i)
	}
}

// heldByRules keeps in a remote avatar only the holds the claims table
// grants it: a hold the host refused, or one that regular updates have
// since ended, is not drawn.
func (n *node) heldByRules(p Player, a Avatar) Avatar {
	for k := range a.Parts {
		if h := &a.Parts[k].Held; h.Holding && n.objs[h.Object].holder != OwnerOf(p) {
			*h = Held{}
		}
	}
	return a
}

// noHolds is a holds table (an avatar's held object per part) with
// nothing held.
var noHolds = [MaxParts]int{-1, -1, -1, -1, -1, -1, -1, -1}

// holding reports whether object i is in the holds table.
func holding(holds *[MaxParts]int, i int) bool {
	for _, j := range holds {
		if j == i {
			return true
		}
	}
	return false
}

// grabsAndReleases applies the local player's grabs (ownership, which
// also takes authority) and releases (a throw: the object stays under the
// player's authority, with the thrown priority).
func (n *node) grabsAndReleases(before, after [MaxParts]Held) {
	for h := range before {
		b, a := before[h], after[h]
		if b.Holding && (!a.Holding || a.Object != b.Object) {
			o := &n.objs[b.Object]
			if o.holder == n.me {
				o.holder = Nobody
				o.boost, o.boostUntil = n.cfg.ThrownPriority, n.tick+Tick(n.cfg.ThrownTicks)
			}
		}
	}
	for h := range after {
		b, a := before[h], after[h]
		if a.Holding && (!b.Holding || a.Object != b.Object) {
			o := &n.objs[a.Object]
			o.holder, o.auth = n.me, n.me
			o.ver.Own++
			o.ver.Auth++
			o.restPending = false
		}
	}
}

// take gives the local player authority over object i.
func (n *node) take(i int) {
	o := &n.objs[i]
	if o.auth != n.me {
		o.auth = n.me
		o.ver.Auth++
	}
	o.restPending, o.settled = false, false
}

// spread applies the contacts of the last step. What the local player's
// avatar touches comes first; then authority spreads through the touching
// pairs: an object under the local player's authority takes each
// default-authority object it touches when either of the two moves (a
// thrown cube takes the tower it hits; a cube put on a stack takes the
// cubes it wakes), passing on until nothing changes, so that a chain of
// contacts is taken in the step it moves. Objects under another player's
// authority are left to that player, so that two machines never fight
// over a pile step after step.
func (n *node) spread() {
	n.pairs = n.pairs[:0]
	n.game.Touches(n.addPair, n.touch)
	clear(n.touching)
	for _, p := range n.pairs {
		n.touching[p[0]], n.touching[p[1]] = true, true
	}
	for changed := true; changed; {
		changed = false
		for _, p := range n.pairs {
			if n.movingState(&n.stepped[p[0]]) || n.movingState(&n.stepped[p[1]]) {
				changed = n.spreadPair(p[0], p[1]) || n.spreadPair(p[1], p[0]) || changed
			}
		}
	}
}

// moving reports whether object i moves fast enough to spread authority:
// the settling of a pile after a correction (millimetres per second) is
// not an interaction, and taking authority for it would pass a resting
// pile back and forth between machines.
func (n *node) moving(i int) bool {
	s := n.game.Object(i)
	return n.movingState(&s)
}

// movingState is moving of an object in state s.
func (n *node) movingState(s *physics.BodyState) bool {
	return s.LinearVelocity.LengthSq() > n.cfg.SpreadSpeed*n.cfg.SpreadSpeed
}

// spreadPair lets x take y, and reports whether it did.
func (n *node) spreadPair(x, y int) bool {
	ox, oy := &n.objs[x], &n.objs[y]
	if ox.auth != n.me || oy.auth != Nobody || oy.holder != Nobody {
		return false
	}
	n.take(y)
	return true
}

// touchPlayer: what the local player touches, it takes authority over,
// unless someone holds it.
func (n *node) touchPlayer(p Player, i int) {
	if OwnerOf(p) == n.me && n.objs[i].holder == Nobody {
		n.take(i)
	}
}

// afterStep updates object i's rest and collision bookkeeping. An object
// under the local player's authority that comes to rest returns to the
// default at once on the host; a guest bumps the authority sequence and
// keeps authority until the host confirms.
func (n *node) afterStep(i int, s *physics.BodyState) {
	o := &n.objs[i]
	if d := s.LinearVelocity.Sub(o.lastLin); d.LengthSq() > n.cfg.CollisionSpeed*n.cfg.CollisionSpeed &&
		!(n.tick < o.boostUntil && o.boost >= n.cfg.CollisionPriority) {
		o.boost, o.boostUntil = n.cfg.CollisionPriority, n.tick+Tick(n.cfg.CollisionTicks)
	}
	o.lastLin = s.LinearVelocity
	if n.host && o.auth != Nobody && o.auth != n.me && o.holder == Nobody {
		n.yieldCreeping(i, s)
		return
	}
	if o.auth != n.me || o.holder != Nobody {
		return
	}
	switch {
	case s.AtRest && n.host:
		o.auth = Nobody
		o.ver.Auth++
	case s.AtRest && !o.restPending:
		o.restPending = true
		o.ver.Auth++
	case !s.AtRest && o.restPending && n.movingState(s):
		// Moved again before the host confirmed: take it afresh, or the
		// host, having confirmed, would refuse its updates. Settling
		// (a correction of a neighbour woke it) is not moving again.
		o.restPending = false
		o.ver.Auth++
	}
}

// yieldCreeping takes back, on the host, object i under a guest's
// authority once it has moved slower than SpreadSpeed for YieldTicks
// steps in a row: nobody interacts with it, and the guest has not brought
// it to rest (its pile creeps there, woken by corrections, or its rest
// updates are lost or late). The host's state is final from then on: its
// newer version makes the guest follow it, and the guest can take the
// object again only by interacting with it.
func (n *node) yieldCreeping(i int, s *physics.BodyState) {
	o := &n.objs[i]
	if n.movingState(s) {
		o.creep = 0
		return
	}
	if o.creep++; o.creep < n.cfg.YieldTicks {
		return
	}
	o.auth, o.creep, o.restPending = Nobody, 0, false
	o.ver.Auth++
	o.boost, o.boostUntil = n.cfg.CollisionPriority, n.tick+Tick(n.cfg.CollisionTicks)
	n.stats.Reclaimed++
}

// retakePiles keeps a pile under this guest's authority whole: when a
// part of it moves again before the host confirmed its rest (afterStep
// took it afresh, or it never rested), every object touching it that still
// waits for the host's confirmation is taken afresh too, through chains of
// contacts. Otherwise the host confirms the waiting ones, takes them over
// while they are woken here, and simulates them between the guest's
// moving ones a round trip late: two machines push one pile, which rocks
// for seconds (a 16-cube tower's stump did, 1.6 s, after the topple at
// 88 s of the match at 250 ms / 25 %).
func (n *node) retakePiles() {
	for changed := true; changed; {
		changed = false
		for _, p := range n.pairs {
			changed = n.retakeFrom(p[0], p[1]) || n.retakeFrom(p[1], p[0]) || changed
		}
	}
}

// retakeFrom takes y afresh if it waits for the host's confirmation and x,
// under this guest's authority, does not (after afterStep, such an x is
// awake or held); it reports whether it did. A y still asleep is left
// waiting: the rest it sends is true, and if x wakes it, the next step
// takes it.
func (n *node) retakeFrom(x, y int) bool {
	ox, oy := &n.objs[x], &n.objs[y]
	if ox.auth != n.me || ox.restPending || oy.auth != n.me || !oy.restPending || n.game.Object(y).AtRest {
		return false
	}
	oy.restPending = false
	oy.ver.Auth++
	return true
}

// priority is object i's factor before the link's own exclusions.
func (n *node) priority(i int) float64 {
	o := &n.objs[i]
	if o.holder != Nobody {
		return -1 // held objects travel inside their holder's avatar
	}
	if n.tick < o.boostUntil {
		return o.boost
	}
	return 1
}

// apply sets object i to a state from the network, for the smoother to
// hide, unless the object is there already: with the same bits, or with
// the same pose and only the rest bit apart (restBitOnly).
func (n *node) apply(i int, st qstate) {
	before := n.game.Object(i)
	if q, err := n.q.quantize(before); err == nil && (q == st || n.restBitOnly(q, st)) {
		return
	}
	after := n.q.body(st)
	if err := n.game.SetObject(i, after); err != nil {
		return // a quantized state is always finite; nothing to undo
	}
	n.cur[i], n.curBody[i] = st, after
	n.stats.Corrections++
	if n.smooth.correct(i, before, after) {
		n.stats.Pops++
	}
}

// restBitOnly reports whether a and b differ only in the rest bit: the
// same pose, and the one that is not at rest only creeps (slower than
// SpreadSpeed). Applying such a state would cost a rest window and
// change nothing a player sees: put to rest, the object is woken again by
// its awake neighbours, which restarts its window; woken, it wakes the
// resting island it belongs to. Either way a stack that rests on one
// machine and is about to rest on another is kept awake on both by their
// updates to each other. Left alone, each machine's physics puts it to
// rest at these very bits.
func (n *node) restBitOnly(a, b qstate) bool {
	if a.rest == b.rest || a.pos != b.pos || a.rot != b.rot {
		return false
	}
	if a.rest {
		a = b
	}
	v := n.q.body(a).LinearVelocity
	return v.LengthSq() <= n.cfg.SpreadSpeed*n.cfg.SpreadSpeed
}

// steer returns object i's state that takes it to target's position in
// ticks steps (playback.between): its simulated pose, rotated a share of
// the way to target's, with the velocity that covers the distance in that
// time, along the ballistic arc if the object touched no other object in
// the last step (free flight). Aimed again every step, the object arrives
// at target's position whatever touched it on the way. The position does
// not move, so the steering is never a pop; a collision on the way is
// corrected when target is applied. It reports false, and the object is
// left to the physics until target is applied, when the aim would be
// faster than twice the faster of the two velocities plus 1 m/s: the two
// states are not one flight (the object was moved), and steering it there
// would launch it through its neighbours.
//
// An object that lies on others is aimed straight: the arc's lift, which
// the contact does not cancel there, feeds energy into a pile, and two
// machines steering each other's copies of it can keep it moving for
// ever (TestCoopWithoutHandsConverges, seed 6, did not converge). With
// the lift for every object the report's bursts row had a third fewer
// pops (21-23 a minute against 30).
func (n *node) steer(i int, target qstate, ticks Tick) (qstate, bool) {
	s, t := n.game.Object(i), n.q.body(target)
	dt := float64(float64(ticks) * n.cfg.Ballistic.TimeStep)
	v := t.Position.Sub(s.Position).Scale(1 / dt)
	if !n.touching[i] {
		v.Y -= float64(float64(n.cfg.Ballistic.Gravity*dt) / 2)
	}
	limit := float64(2*max(s.LinearVelocity.Length(), t.LinearVelocity.Length())) + 1
	if v.LengthSq() > float64(limit*limit) {
		return qstate{}, false
	}
	share := 1 / float64(ticks)
	q, err := n.q.quantize(physics.BodyState{
		Position:        s.Position,
		Rotation:        s.Rotation.Nlerp(t.Rotation, share),
		LinearVelocity:  v,
		AngularVelocity: s.AngularVelocity.Lerp(t.AngularVelocity, share),
	})
	return q, err == nil
}

// sample returns the local player's avatar as sent; n.av must be set.
func (n *node) sample() avatarSample {
	a := avatarSample{player: n.cfg.Player, time: n.tick, avatar: n.av.Avatar(n.cfg.Player)}
	shape := n.wc.shape
	for k := range a.avatar.Parts {
		part := &a.avatar.Parts[k]
		switch { // what the shape does not send is zero
		case k >= shape.Parts:
			*part = Part{}
		case !shape.Holds[k]:
			part.Held = Held{}
		case part.Held.Holding:
			a.held[k] = n.objs[part.Held.Object].ver
		}
	}
	return a
}

// inArena reports whether every position of a guest's claim lies in the
// arena.
func (n *node) inArena(p vecmath.Vec3) bool {
	a := n.cfg.Arena
	return p.X >= a.Min.X && p.X <= a.Max.X && p.Y >= a.Min.Y && p.Y <= a.Max.Y && p.Z >= a.Min.Z && p.Z <= a.Max.Z
}

func (n *node) avatarInArena(a *Avatar) bool {
	ok := true
	for k := range n.wc.shape.Parts {
		ok = ok && n.inArena(a.Parts[k].Pose.Pos)
	}
	return ok
}

// Authority returns who has authority over object i, who holds it and the
// version of those claims, as this machine knows them.
func (n *node) Authority(i int) (auth, holder Owner, ver Version) {
	o := &n.objs[i]
	return o.auth, o.holder, o.ver
}

// Render returns where to draw object i: its simulated pose plus the
// decaying error of recent corrections.
func (n *node) Render(i int) vecmath.Transform {
	s := n.game.Object(i)
	return n.smooth.render(i, vecmath.Transform{Pos: s.Position, Rot: s.Rotation})
}

// Counters returns what the machine counted.
func (n *node) Counters() Counters {
	c := n.stats
	c.Predictable, c.Predicted = n.wc.predictable, n.wc.predicted
	c.FlightPredictable, c.FlightPredicted = n.wc.flightPredictable, n.wc.flightPredicted
	return c
}

// Tick returns the steps simulated so far.
func (n *node) Tick() Tick { return n.tick }
