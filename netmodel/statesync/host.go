package statesync

import (
	"fmt"
	"time"
)

// Host is the host of a match (netmodel.Server): player 0, the real
// simulation and the arbiter. Every guest's traffic comes to it; it
// accepts or rejects each claim by the claims' versions, and relays the
// world and the avatars to every guest.
type Host struct {
	*node
	avatars []avatarSample // scratch for a packet's avatars
	// deferred is Receive's scratch: the claims of the packet judged
	// again (arbitrate).
	deferred []int
	// relay is each guest's newest avatar, as judged, if relayed.
	relay   [MaxPlayers]avatarSample
	relayed [MaxPlayers]bool
	// limits bound what a guest's claims may do (plausible.go);
	// implausibleBy counts each guest's impossible claims, and dropped
	// marks the guests dropped for them.
	limits        Limits
	implausibleBy [MaxPlayers]uint64
	dropped       [MaxPlayers]bool
	// banned are the client ids of the last guests dropped (nbanned in
	// all), refused by JoinClient.
	banned  [16]uint64
	nbanned int
	// holds says who each guest seat belongs to (rejoin.go).
	holds [MaxPlayers]seatHold
	// agree is each guest seat's agreement, by its digests (agree.go).
	agree [MaxPlayers]Agreement
}

// NewHost returns the host of game; cfg.Player must be 0.
func NewHost(cfg Config, game Game) (*Host, error) {
	n, err := newNode(cfg, game, true)
	if err != nil {
		return nil, err
	}
	h := &Host{node: n, limits: limitsOf(game)}
	n.beforeStep = h.playOut
	return h, nil
}

// Game returns the host's world.
func (h *Host) Game() Game { return h.game }

// seat maps a netcode slot to a guest.
func seat(slot int) (Player, bool) {
	if slot < 0 || slot >= MaxPlayers-1 {
		return 0, false
	}
	return Player(slot + 1), true
}

// Join seats the client in slot as player slot+1.
func (h *Host) Join(now time.Time, slot int) error {
	p, ok := seat(slot)
	if !ok {
		return fmt.Errorf("%w: slot %d", ErrFull, slot)
	}
	l, err := newLink(h.node, p, now)
	if err != nil {
		return err
	}
	if h.links[p] != nil {
		h.unseat(p) // taken again without a Leave
	}
	h.links[p] = l
	h.dropped[p], h.implausibleBy[p] = false, 0
	h.holds[p] = seatHold{}
	h.agree[p] = Agreement{}
	return nil
}

// unseat forgets what every other link relayed of player p, whose seat
// changes hands: the next player in it starts its clock again, and its
// avatar must not wait for its predecessor's time. Until each peer has
// acked a packet showing the seat empty, that link shows it empty.
func (h *Host) unseat(p Player) {
	h.relayed[p] = false
	h.remote[p].reset()
	for q, l := range h.links {
		if l == nil || Player(q) == p {
			continue
		}
		l.sentRelay[p], l.relayedAt[p] = false, 0
		if !l.gone[p] {
			l.gone[p], l.goneSent[p] = true, false
		}
	}
}

// Leave unseats the guest in slot: its avatar goes, and everything it had
// authority over or held returns to the host, with a newer version so that
// every guest takes the host's state.
func (h *Host) Leave(now time.Time, slot int) {
	p, ok := seat(slot)
	if !ok || h.links[p] == nil {
		return
	}
	h.links[p] = nil
	h.holds[p].away, h.holds[p].implausible = now, h.implausibleBy[p]
	h.unseat(p)
	h.clearAvatar(p)
	for i := range h.objs {
		o := &h.objs[i]
		if o.auth == OwnerOf(p) || o.holder == OwnerOf(p) {
			o.auth, o.holder = Nobody, Nobody
			o.ver.Auth++
			h.stats.Returned++
		}
	}
}

// Receive takes one datagram from the guest in slot and applies the
// claims the rules accept.
func (h *Host) Receive(now time.Time, slot int, datagram []byte) error {
	p, ok := seat(slot)
	if ok && h.dropped[p] {
		h.stats.FromDropped++
		return fmt.Errorf("%w: player %d", ErrDropped, p)
	}
	if !ok || h.links[p] == nil {
		return fmt.Errorf("%w: slot %d is not seated", ErrMalformed, slot)
	}
	l := h.links[p]
	if l.tokens < 1 {
		h.stats.Flood++
		return fmt.Errorf("%w: player %d sent more than %d datagrams at once, %d a step", ErrFlood, p, floodBurst, floodRate)
	}
	l.tokens--
	if isDigest(datagram) {
		return h.hearDigest(p, datagram)
	}
	complete, err := l.receive(now, datagram)
	if err != nil || !complete {
		return err
	}
	l.heardBefore, l.heardAt = l.heardAt, now
	in := &h.in
	if in.player != p || len(in.avatars) > 1 || (len(in.avatars) == 1 && in.avatars[0].player != p) {
		h.stats.Forged++
		return fmt.Errorf("%w: player %d sent a packet as player %d", ErrForged, p, in.player)
	}
	if len(in.avatars) == 1 && h.av != nil { // a game without avatars ignores one
		h.guestAvatar(now, l, &in.avatars[0])
	}
	if h.dropped[p] {
		return fmt.Errorf("%w: player %d", ErrDropped, p)
	}
	h.deferred = h.deferred[:0]
	for k := range in.updates {
		if l.objSeq[in.updates[k].id] == l.inExt {
			h.stats.Forged++ // a second update of one object in one packet
			continue
		}
		if !l.inOrder(in.updates[k].id) {
			h.stats.Late++
			continue
		}
		if h.arbitrate(now, l, p, &in.updates[k], true) {
			h.deferred = append(h.deferred, k)
		}
		if h.dropped[p] {
			return fmt.Errorf("%w: player %d", ErrDropped, p)
		}
	}
	// A claim that nothing of the guest's touched may be vouched for by
	// one after it in the packet (a chain of contacts, in priority
	// order, not the chain's): it is judged again while that takes some,
	// at most maxChainPasses times, then counted.
	for pass := 0; len(h.deferred) > 0; pass++ {
		last, left := pass == maxChainPasses, h.deferred[:0]
		for _, k := range h.deferred {
			if h.arbitrate(now, l, p, &in.updates[k], !last) {
				left = append(left, k)
			}
			if h.dropped[p] {
				return fmt.Errorf("%w: player %d", ErrDropped, p)
			}
		}
		if len(left) == len(h.deferred) && !last {
			pass = maxChainPasses - 1 // nothing taken: judge them for good
		}
		h.deferred = left
	}
	return nil
}

// maxChainPasses bounds how many times Receive judges again the claims
// of one packet that nothing of the guest's touched before it counts
// them: the work of a packet stays a few times its claims', whatever
// their order.
const maxChainPasses = 4

// floodRate and floodBurst bound the datagrams the host reads from one
// guest: floodRate more each step, at most floodBurst at once. An honest
// guest sends a packet a step and a digest now and then, and the network
// may bunch a second of them; a guest of its own making that sent a
// hundred a frame bought the host a hundred decodes, claims judged and
// playback pushes for each of its (TestFloodIsRefusedUnread). Refused
// before the endpoint reads them, they are not acked: the guest's
// baselines stay the host's.
const (
	floodRate  = 2
	floodBurst = 64
)

// guestAvatar judges the holds in a guest's avatar and queues it for
// playback. A hold is granted when nobody else holds the object and the
// claim is newer than the host's; the host's verdict is what it relays.
func (h *Host) guestAvatar(now time.Time, l *link, a *avatarSample) {
	p, me := a.player, OwnerOf(a.player)
	if !h.avatarInArena(&a.avatar) {
		h.stats.Forged++
		return
	}
	if l.heard && int32(a.time-l.newest) <= 0 {
		return // an older sample than one already judged
	}
	if !h.plausibleAvatar(now, l, p, a) {
		h.implausible(now, p)
		return
	}
	l.newest, l.heard = a.time, true
	holds := noHolds
	for k := range a.avatar.Parts {
		held := &a.avatar.Parts[k].Held
		if !held.Holding {
			continue
		}
		o, claim := &h.objs[held.Object], a.held[k]
		switch {
		case o.holder == me:
			holds[k] = held.Object
		case o.holder != Nobody:
			h.stats.HeldElsewhere++
			h.stats.GrabsLost++
			*held = Held{}
		case claim.lead(o.ver) > h.cfg.MaxSequenceLead:
			h.stats.Forged++
			*held = Held{}
		case claim.Compare(o.ver) > 0 && !h.holdInReach(l, a.avatar.Parts[k].Pose.Pos, held.Object):
			h.implausible(now, p)
			if h.dropped[p] {
				return
			}
			h.overrule(held.Object, claim, p)
			*held = Held{}
		case claim.Compare(o.ver) > 0 && !h.spend(held.Object, claim.lead(o.ver)):
			h.stats.Forged++
			*held = Held{}
		case claim.Compare(o.ver) > 0:
			o.holder, o.auth, o.ver, o.restPending = me, me, claim, false
			h.stats.GrabsWon++
			holds[k] = held.Object
		default:
			h.stats.GrabsLost++
			*held = Held{}
		}
		a.held[k] = o.ver
	}
	// A hold the avatar no longer shows was released: the object is
	// thrown, still under the guest's authority.
	for i := range h.objs {
		o := &h.objs[i]
		if o.holder == me && !holding(&holds, i) {
			o.holder = Nobody
			o.boost, o.boostUntil = h.cfg.ThrownPriority, h.tick+Tick(h.cfg.ThrownTicks)
			l.path[i].from = h.game.Object(i).Position // it travelled in the hand: its states go on from here
		}
	}
	h.remote[p].push(a.playTime(), a.avatar)
	h.relay[p] = *a
	h.relayed[p] = true
}

// arbitrate judges one object update from guest p. It is applied when the
// claim is newer than the host's, or as new and from the player the host
// already gives authority to; an update at rest then returns the object to
// the default authority, which confirms the rest to the guest.
// It reports deferred, and counts nothing, when defer is set and the
// claim is refused only because nothing of p's touched the object:
// Receive judges it again once the packet's other claims are taken.
func (h *Host) arbitrate(now time.Time, l *link, p Player, u *update, deferring bool) (deferred bool) {
	o, me := &h.objs[u.id], OwnerOf(p)
	switch {
	case u.auth != me || u.ver.lead(o.ver) > h.cfg.MaxSequenceLead || !h.inArena(h.q.body(u.state).Position):
		h.stats.Forged++
		return false
	case o.holder != Nobody && o.holder != me:
		h.stats.HeldElsewhere++
		return false
	}
	c := u.ver.Compare(o.ver)
	if c < 0 || (c == 0 && o.auth != me) {
		h.stats.Stale++
		return false
	}
	if ok, untouched := h.plausibleUpdate(l, p, u, c); !ok {
		if untouched && deferring {
			return true
		}
		if h.implausible(now, p); !h.dropped[p] {
			h.overrule(u.id, u.ver, p)
		}
		return false
	}
	if c > 0 {
		if !h.spend(u.id, u.ver.lead(o.ver)) {
			h.stats.Forged++
			return false
		}
		o.creep = 0 // a new claim: the guest interacted with it
	}
	h.travelled(l, p, u.id, h.q.body(u.state).Position) // before took and auth: judged as by plausibleUpdate
	l.took[u.id] = h.tick
	o.auth, o.ver, o.holder, o.restPending = me, u.ver, Nobody, false
	h.stats.Accepted++
	if e, ok := l.pb.push(h.in.tick, *u); ok {
		h.settle(p, &e.u)
	}
	return false
}

// settle applies the state of guest p's accepted update u at its
// playback time (playOut), if the claims have not changed since: the
// host plays each guest's updates back at the guest's pace, JitterDelay
// behind its newest packet, as the guests play back the host's, so that
// the jitter of the guest-to-host leg does not reach the other guests as
// jumps of the guest's cubes. An update at rest then returns the object
// to the default authority, which confirms the rest to the guest.
func (h *Host) settle(p Player, u *update) {
	o := &h.objs[u.id]
	if o.auth != OwnerOf(p) || o.ver != u.ver || o.holder != Nobody {
		return // a newer claim, an overrule or a hold came in between
	}
	if h.settlesAtRest(u.id, u.state) {
		// The host's rest is final: the guest's copy only settles where
		// the host's rests, and the guest yields to the newer version.
		o.auth, o.creep = Nobody, 0
		o.ver.Auth++
		h.stats.Reclaimed++
		return
	}
	h.apply(u.id, u.state)
	if u.state.rest {
		o.auth = Nobody
		h.stats.Confirmed++
	}
}

// playOut applies, before each step, the guests' updates whose time has
// come.
func (h *Host) playOut() {
	for p, l := range h.links {
		if l == nil {
			continue
		}
		l.tokens = min(l.tokens+floodRate, floodBurst)
		due := l.pb.advance(h.tick)
		for k := range due {
			h.settle(Player(p), &due[k].u)
		}
		l.pb.done(len(due))
		l.pb.between(func(_, b *update, ticks Tick) { h.glide(Player(p), b, ticks) })
	}
}

// glide steers an object between two of guest p's updates
// (playback.between) while the host still gives p authority with the
// claims of the later one, b.
func (h *Host) glide(p Player, b *update, ticks Tick) {
	if o := &h.objs[b.id]; o.auth != OwnerOf(p) || o.ver != b.ver || o.holder != Nobody {
		return
	}
	if s, ok := h.steer(b.id, b.state, ticks); ok {
		h.apply(b.id, s)
	}
}

// overrule answers an implausible claim with version claim on object i
// with the host's state: the host's version moves past the claim (and,
// if the claimant had authority, it returns to nobody), so that
// the claimant, like everybody, takes the host's state. Beyond the
// version budget (spend) the claim is only refused.
func (h *Host) overrule(i int, claim Version, claimant Player) {
	o := &h.objs[i]
	v := o.ver
	if claim.Compare(v) >= 0 {
		v = claim
	}
	v.Auth++
	if !h.spend(i, v.lead(o.ver)) {
		return
	}
	if o.auth == OwnerOf(claimant) && o.holder == Nobody {
		o.auth = Nobody
	}
	o.ver, o.creep, o.restPending = v, 0, false
	o.boost, o.boostUntil = h.cfg.CollisionPriority, h.tick+Tick(h.cfg.CollisionTicks)
}

// spend reports whether a claim that moves object i's version on by lead
// fits in the object's budget, and takes it from the budget if so: the
// guests' claims move a version on by at most MaxSequenceLead in a second.
// One guest's claims, however many and however fast, cannot then carry
// the host's version half the sequence space away from the other guests'
// before they hear of it.
func (h *Host) spend(i, lead int) bool {
	o := &h.objs[i]
	if second := Tick(time.Second / h.cfg.TimeStep); h.tick-o.leadAt >= second || o.leadSpent == 0 {
		o.leadAt, o.leadSpent = h.tick, 0
	}
	if o.leadSpent+lead > h.cfg.MaxSequenceLead {
		return false
	}
	o.leadSpent += lead
	return true
}

// settleSpeed is how fast, m/s, a guest's object may move at the pose
// where the host's rests for the host to answer with its rest
// (settlesAtRest): settling after a correction, not a push.
const settleSpeed = 0.01

// settlesAtRest reports whether the host has object i at rest at the pose
// of st, which is awake but only settles (slower than settleSpeed).
func (h *Host) settlesAtRest(i int, st qstate) bool {
	cur, err := h.q.quantize(h.game.Object(i))
	if err != nil || !cur.rest || st.rest || cur.pos != st.pos || cur.rot != st.rot {
		return false
	}
	v := h.q.body(st)
	return v.LinearVelocity.LengthSq() <= settleSpeed*settleSpeed && v.AngularVelocity.LengthSq() <= 4*settleSpeed*settleSpeed
}

// Update runs the steps due by now and sends every guest a packet.
func (h *Host) Update(now time.Time, send func(slot int, datagram []byte)) error {
	steps, err := h.advance(now)
	if err != nil || steps == 0 {
		return err
	}
	var ownBuf [1]avatarSample
	own := ownBuf[:0] // a game without avatars sends none
	if h.av != nil {
		own = append(own, h.sample())
	}
	d, due := h.digest()
	present := uint8(1)
	for p, l := range h.links {
		if l != nil {
			present |= 1 << p
		}
	}
	for p, l := range h.links {
		if l == nil {
			continue
		}
		h.avatars = append(h.avatars[:0], own...)
		shown := present
		for q := range l.gone {
			if l.gone[q] {
				shown &^= 1 << q
				if !l.goneSent[q] {
					l.goneSeq[q], l.goneSent[q] = l.ep.NextSequence(), true
				}
			}
		}
		for q := range h.relay {
			r := &h.relay[q]
			if q == p || !h.relayed[q] || h.links[q] == nil || l.gone[q] || (l.sentRelay[q] && int32(r.time-l.relayedAt[q]) <= 0) {
				continue
			}
			h.avatars = append(h.avatars, *r)
			h.grantHolds(&h.avatars[len(h.avatars)-1])
			l.sentRelay[q], l.relayedAt[q] = true, r.time
		}
		slot := p - 1
		if err := l.send(now, Player(p), shown, h.avatars, func(d []byte) { send(slot, d) }); err != nil {
			return err
		}
		if due {
			send(slot, d)
		}
	}
	return nil
}

// grantHolds keeps in a, a guest's newest avatar as relayed, the holds
// the host grants now, with their versions.
func (h *Host) grantHolds(a *avatarSample) {
	q := a.player
	for k := range a.avatar.Parts {
		held := &a.avatar.Parts[k].Held
		if held.Holding && h.objs[held.Object].holder != OwnerOf(q) {
			*held = Held{}
		}
		if held.Holding {
			a.held[k] = h.objs[held.Object].ver
		}
	}
}
