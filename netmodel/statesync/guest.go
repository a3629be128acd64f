package statesync

import (
	"fmt"
	"time"
)

// Guest is one guest of a match (netmodel.Client): players 1 to 3. It
// simulates the whole world, sends its avatar and the objects it has
// authority over, and follows the host for everything else, including
// objects it thinks it owns when the host's claims are newer.
type Guest struct {
	*node
	avatars [1]avatarSample
	// newest is, per remote player, the time of the newest avatar sample
	// taken from the host, if heard: an older one (reordered) is dropped.
	newest [MaxPlayers]Tick
	heard  [MaxPlayers]bool
	agree  Agreement // with the host, by its digests (agree.go)
}

// NewGuest returns guest cfg.Player (1 to 3) of game, which must start as
// the host's did.
func NewGuest(cfg Config, game Game, now time.Time) (*Guest, error) {
	if cfg.Player == 0 {
		return nil, fmt.Errorf("%w: a guest is player 1-%d", ErrConfig, MaxPlayers-1)
	}
	n, err := newNode(cfg, game, false)
	if err != nil {
		return nil, err
	}
	l, err := newLink(n, 0, now)
	if err != nil {
		return nil, err
	}
	n.links[0] = l
	g := &Guest{node: n}
	n.beforeStep = g.playOut
	return g, nil
}

// Game returns the guest's world.
func (g *Guest) Game() Game { return g.game }

// Receive takes one datagram from the host.
func (g *Guest) Receive(now time.Time, datagram []byte) error {
	if isDigest(datagram) {
		return g.hearDigest(datagram)
	}
	complete, err := g.links[0].receive(now, datagram)
	if err != nil || !complete {
		return err
	}
	in := &g.in
	if in.player != g.cfg.Player {
		return fmt.Errorf("%w: seated as player %d, configured as %d", ErrPlayer, in.player, g.cfg.Player)
	}
	g.absent(in.present)
	for k := range in.avatars {
		if a := &in.avatars[k]; a.player != g.cfg.Player && g.av != nil {
			g.remoteAvatar(a)
		}
	}
	for k := range in.updates {
		if !g.links[0].inOrder(in.updates[k].id) {
			g.stats.Late++
			continue
		}
		if e, ok := g.links[0].pb.push(in.tick, in.updates[k]); ok {
			g.follow(&e.u)
		}
	}
	return nil
}

// playOut applies, before each step, the host's updates whose time has
// come.
func (g *Guest) playOut() {
	pb := &g.links[0].pb
	due := pb.advance(g.tick)
	for k := range due {
		g.follow(&due[k].u)
	}
	pb.done(len(due))
	pb.between(g.glide)
}

// glide steers an object between the host's updates a and b
// (playback.between) while this guest holds a's claims and neither a nor
// b gives it authority: the object is nobody's or another player's.
func (g *Guest) glide(a, b *update, ticks Tick) {
	o := &g.objs[a.id]
	if o.ver != a.ver || o.auth != a.auth || a.auth == g.me || b.auth == g.me || o.holder != Nobody {
		return
	}
	if s, ok := g.steer(a.id, b.state, ticks); ok {
		g.applyHost(a.id, s)
	}
}

// absent removes the players the host no longer has.
func (g *Guest) absent(present uint8) {
	for p := range Player(MaxPlayers) {
		if present&(1<<p) != 0 || OwnerOf(p) == g.me {
			continue
		}
		g.remote[p].reset()
		g.heard[p] = false
		g.clearAvatar(p)
		for i := range g.objs {
			if g.objs[i].holder == OwnerOf(p) {
				g.objs[i].holder = Nobody
			}
		}
	}
}

// remoteAvatar takes another player's avatar from the host. Its holds are
// the host's verdicts: a hold as new as this guest's own claim on the
// object means the host gave the object to that player, and this guest
// lets go.
func (g *Guest) remoteAvatar(a *avatarSample) {
	p, them := a.player, OwnerOf(a.player)
	if g.heard[p] && int32(a.time-g.newest[p]) <= 0 {
		return // no newer than a sample already taken
	}
	g.newest[p], g.heard[p] = a.time, true
	holds := noHolds
	for k := range a.avatar.Parts {
		held := &a.avatar.Parts[k].Held
		if !held.Holding {
			continue
		}
		i, claim := held.Object, a.held[k]
		o := &g.objs[i]
		switch c := claim.Compare(o.ver); {
		case c < 0 && o.ver.lead(claim) <= g.cfg.MaxSequenceLead:
			*held = Held{}
			continue
		case o.holder != them:
			if o.holder == g.me {
				g.drop(i)
				g.stats.GrabsLost++
			}
			o.holder, o.auth, o.restPending = them, them, false
		}
		o.ver = claim
		holds[k] = i
	}
	for i := range g.objs {
		if o := &g.objs[i]; o.holder == them && !holding(&holds, i) {
			o.holder = Nobody
		}
	}
	g.remote[p].push(a.playTime(), a.avatar)
}

// follow applies the host's update of one object: always when its claims
// are newer, or as new but naming another authority (the host decided a
// race, or confirmed a rest); as new and naming the same authority, when
// that authority is not this guest (plain synchronization).
func (g *Guest) follow(u *update) {
	o := &g.objs[u.id]
	c := u.ver.Compare(o.ver)
	if c < 0 && !g.yields(o, u.ver) {
		return
	}
	if c >= 0 {
		o.behind = false
	}
	switch {
	case c == 0 && u.auth == o.auth:
		if o.auth == g.me {
			return
		}
		o.holder = Nobody // regular updates resumed: whoever held it let go
		g.applyHost(u.id, u.state)
		return
	}
	if o.holder == g.me {
		g.drop(u.id)
		g.stats.GrabsLost++
	}
	if o.auth == g.me && u.auth != g.me {
		if c == 0 && u.auth == Nobody && o.restPending {
			g.stats.Confirmed++
		} else {
			g.stats.Overruled++
		}
	}
	o.auth, o.ver, o.holder, o.restPending = u.auth, u.ver, Nobody, false
	if u.auth != g.me {
		g.applyHost(u.id, u.state)
	}
}

// yields reports whether this guest gives up its own newer version of
// object o for the host's older v: at once when its lead is more than
// any honest claim has (the versions were wrapped), or once the host has
// gone on sending older versions for Config.Resync (the claim was lost
// or refused): the host's view is final, and a guest that disagrees with
// it takes it.
func (g *Guest) yields(o *object, v Version) bool {
	if o.ver.lead(v) <= g.cfg.MaxSequenceLead {
		if !o.behind || o.behindVer != o.ver {
			o.behind, o.behindVer, o.behindAt = true, o.ver, g.tick
			return false
		}
		if g.tick-o.behindAt < Tick(g.cfg.Resync/g.cfg.TimeStep) {
			return false
		}
	}
	o.behind = false
	g.stats.Resynced++
	return true
}

// applyHost applies the host's state of object i and remembers whether
// the host has it at rest, for holdRests.
func (g *Guest) applyHost(i int, st qstate) {
	g.apply(i, st)
	o := &g.objs[i]
	o.settled, o.rest = st.rest, st
}

// Update runs the steps due by now and sends the host a packet.
func (g *Guest) Update(now time.Time, send func(datagram []byte)) error {
	steps, err := g.advance(now)
	if err != nil || steps == 0 {
		return err
	}
	avatars := g.avatars[:0] // a game without avatars sends none
	if g.av != nil {
		g.avatars[0] = g.sample()
		avatars = g.avatars[:]
	}
	if err := g.links[0].send(now, g.cfg.Player, 1<<g.cfg.Player, avatars, send); err != nil {
		return err
	}
	if d, due := g.digest(); due {
		send(d)
	}
	return nil
}
