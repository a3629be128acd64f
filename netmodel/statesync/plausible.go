package statesync

import (
	"errors"
	"time"

	"github.com/netphys/netphys/vecmath"
)

// The host judges a guest's claims as physics would. Versions tell which
// of two claims is newer; they do not tell whether a claim could have
// happened. A guest that writes its own packets (a valid token, its own
// client) could otherwise teleport a tower, launch cubes at 60 m/s, take
// cubes under other players' authority or hold every cube on the table.
// So an update or a hold is taken only if it is physically possible from
// the host's last state of the object:
//
//   - speed: linear and angular velocities within Limits;
//   - displacement: the claimed position lies within MaxSpeed × elapsed +
//     Slack of the host's copy, elapsed being the time since the host last
//     took a state of the object from this guest (a new claim: the round
//     trip, since the guest's copy runs ahead of the host's); and a new
//     claim, consistent with its velocity: within the faster of the
//     claimed and the host's speeds × elapsed + Slack, unless something
//     of the guest's (its avatar, its body, a cube the host credits it
//     with) is within contact of the claimed position: a cube pushed or
//     carried there, not one set down far away at rest (teleport);
//   - taking: a guest takes authority only over an object within
//     ContactRange of its avatar (a part of it touched it), of the
//     object it drives (a game's Bodies; its own body it may always
//     take), or of an
//     object it has authority over or holds (one of its cubes touched
//     it), the distance allowed growing by the speed of what touched it
//     over the round trip; an object under another player's authority
//     only by its avatar;
//   - holds: a part holds only an object within HoldReach of it;
//   - travel: the states a guest sends of one object cover, one after
//     the other, no more than MaxSpeed × the host's time since (a second
//     of it saved at most) + Slack: each alone may lie a step and the
//     playback delay ahead of the host's copy, but a run of them, each
//     that far ahead of the one before, would carry a cube at zero speed
//     across the table at hundreds of m/s (travel);
//   - avatars: every part moves no faster than its AvatarShape's Speed
//     between two samples.
//
// An implausible claim is not applied: the host's state stands, and goes
// to everybody, the claimant included, with the host's version. Each is
// counted per guest (Host.Implausible); a guest past
// Config.MaxImplausible is dropped from the match (Host.Receive returns
// ErrDropped).

// Limits are the physical bounds of a game's objects and players.
type Limits struct {
	// MaxSpeed bounds, m/s, an object's speed: a throw's hand speed and
	// what a fall adds (an avatar's parts are bounded by their
	// AvatarShape's Speed). MaxAngularSpeed bounds spins, rad/s.
	MaxSpeed, MaxAngularSpeed float64
	// HoldReach is how far, m, a held object's centre may be from the
	// part that holds it.
	HoldReach float64
	// ContactRange is how far apart, m, the centres of two things that
	// touch can be: an object and an avatar's part or another object.
	ContactRange float64
	// Slack, m, absorbs the quantization and the soft contacts.
	Slack float64
}

// Plausibility is an optional interface of a Game: the bounds the host
// judges guests' claims by. A Game that does not implement it is judged
// by DefaultLimits, the VR table's.
type Plausibility interface {
	Limits() Limits
}

// DefaultLimits are the VR table's bounds: 1 m cubes, hands that move at
// most 20 m/s and grab within 0.9 m.
func DefaultLimits() Limits {
	return Limits{MaxSpeed: 30, MaxAngularSpeed: 40, HoldReach: 1.5, ContactRange: 2, Slack: 0.25}
}

// ErrDropped is returned for a packet from a guest the host dropped from
// the match for implausible claims.
var ErrDropped = errors.New("statesync: guest dropped for implausible claims")

// limits returns the game's bounds.
func limitsOf(g Game) Limits {
	if p, ok := g.(Plausibility); ok {
		return p.Limits()
	}
	return DefaultLimits()
}

// rtt is the round trip of a guest's link, the longest of the last few
// seconds' (a round trip that jumps up must not make honest claims look
// too far), at least two steps and at most a second, in seconds.
func (h *Host) rtt(l *link) float64 {
	r := l.ep.Stats().RTTMax.Seconds()
	return min(max(r, 2*h.cfg.TimeStep.Seconds()), 1)
}

// contact is how long before the packet being judged, s, the contacts
// behind its new claims can have begun: the guest claims what it touches
// in its next packet, so at most the host's time since it heard the
// guest's previous packet (the packets between were lost), plus
// JitterDelay and a step for the jitter, and at most the round trip. It
// is the host's own measure: a guest that acks late, a round trip of a
// second, does not widen it; one that falls silent does, as far as its
// hands could have moved meanwhile.
func (h *Host) contact(l *link) float64 {
	r := h.rtt(l)
	if l.heardBefore.IsZero() {
		return r
	}
	return min(r, l.heardAt.Sub(l.heardBefore).Seconds()+h.cfg.JitterDelay.Seconds()+h.cfg.TimeStep.Seconds())
}

// plausibleUpdate reports whether guest p's update u of an object whose
// version it moves on by c (Compare's result) is physically possible,
// and whether, if not, it is only that nothing of p's touched the object
// (yet: a claim later in the packet may vouch for it, Host.Receive).
func (h *Host) plausibleUpdate(l *link, p Player, u *update, c int) (ok, untouched bool) {
	lim := &h.limits
	st := h.q.body(u.state)
	if st.LinearVelocity.LengthSq() > lim.MaxSpeed*lim.MaxSpeed || st.AngularVelocity.LengthSq() > lim.MaxAngularSpeed*lim.MaxAngularSpeed {
		return false, false
	}
	o, cur := &h.objs[u.id], h.game.Object(u.id)
	// A new claim: the guest has moved the object since the contact, and
	// its copy saw the host's a round trip ago, which has moved on by its
	// own speed since (drift).
	elapsed, drift := h.contact(l), cur.LinearVelocity.Length()*h.rtt(l)
	going := o.auth == OwnerOf(p) && c == 0 && l.took[u.id] != 0
	if going { // its own, as it goes on: since the last state taken
		elapsed, drift = float64(h.tick-l.took[u.id]+1)*h.cfg.TimeStep.Seconds(), 0
	}
	elapsed += h.cfg.JitterDelay.Seconds() // the host's copy is played back that late
	moved := st.Position.Sub(cur.Position).LengthSq()
	if reach := float64(lim.MaxSpeed*elapsed) + drift + lim.Slack; moved > reach*reach {
		return false, false
	}
	if !going {
		// A new claim: along a flight an object is never faster than at
		// one of its ends (under gravity alone |v|² is convex in time), so
		// it lies within the faster end's speed × elapsed of the host's
		// copy, unless a contact sped it up and stopped it again in
		// between: then what sped it up is still at it (the guest's
		// avatar, its body or a cube the host credits it with: pushed,
		// carried). A claim far from both, at low speed, is a teleport.
		fast := max(st.LinearVelocity.Length(), cur.LinearVelocity.Length())
		if reach := float64(fast*elapsed) + drift + lim.Slack; moved > reach*reach && !h.near(l, p, u.id, st.Position, 0, true, false) {
			return false, false
		}
	}
	if _, ok := h.travel(l, p, u.id, st.Position); !ok {
		return false, false
	}
	if o.auth == OwnerOf(p) || h.touchedBy(l, p, u.id, o.auth == Nobody) {
		return true, false
	}
	return false, true
}

// travel is the distance the states of one object that a guest sends
// may still cover, on the host's clock: it grows at MaxSpeed with the
// host's time, up to maxTravelCredit's worth, and every state taken
// spends its distance from the one before. Each update is judged
// against the host's copy, which playback holds back by the delay, so
// each may lie MaxSpeed × (a step + JitterDelay) + Slack ahead of it;
// without this bound a guest sending, frame after frame, a cube's state
// 2 m on from its last one, at zero speed, carried it 90 m in 0.75 s
// (TestSmallStepsDoNotSumToATeleport).
type travel struct {
	from   vecmath.Vec3 // the position of the newest state taken
	credit float64      // m, as of the host's tick at, if spent
	at     Tick
	spent  bool // a state was taken: before, the credit is whole
}

// maxTravelCredit bounds, s, the host's time a guest's states of one
// object may save up to travel at once, as maxAvatarCredit does for its
// avatar: a guest that falls silent for a second (a burst of loss) may
// then send a state MaxSpeed × 1 s from its last one, no further.
const maxTravelCredit = 1.0

// travel returns how far guest p's state of object i at position to
// lies from where the object was, and whether that is within what its
// states may still travel. Where it was is the newest state taken from
// p while p keeps authority over it, else the host's copy.
func (h *Host) travel(l *link, p Player, i int, to vecmath.Vec3) (float64, bool) {
	from := h.game.Object(i).Position
	if h.objs[i].auth == OwnerOf(p) && l.took[i] != 0 {
		from = l.path[i].from
	}
	d := to.Sub(from).Length()
	return d, d <= h.travelCredit(&l.path[i])+h.limits.Slack
}

// travelCredit is what tr may travel now, m.
func (h *Host) travelCredit(tr *travel) float64 {
	most := h.limits.MaxSpeed * maxTravelCredit
	if !tr.spent {
		return most
	}
	return min(tr.credit+float64(h.limits.MaxSpeed*float64(h.tick-tr.at)*h.cfg.TimeStep.Seconds()), most)
}

// travelled spends the distance to position to, where guest p's state of
// object i taken now lies, from what its states may travel.
func (h *Host) travelled(l *link, p Player, i int, to vecmath.Vec3) {
	d, _ := h.travel(l, p, i, to)
	tr := &l.path[i]
	tr.credit, tr.at, tr.from, tr.spent = h.travelCredit(tr)-d, h.tick, to, true
}

// touchedBy reports whether guest p could have touched object i: its
// avatar is within reach of it, or (byObjects) an object p has authority
// over or holds is.
func (h *Host) touchedBy(l *link, p Player, i int, byObjects bool) bool {
	return h.near(l, p, i, h.game.Object(i).Position, h.contact(l), byObjects, byObjects)
}

// near reports whether something of guest p comes within contact of
// position at (object i's) when each moves on at its speed for rtt
// seconds: a part of its avatar, the object it drives (a game's Bodies;
// its own body, i, always), or (objects) an object p has authority over
// or holds, or (claims) one the packet being judged claims for it that
// vouches (a chain of contacts is taken in one step, and its claims
// arrive together, in priority order).
func (h *Host) near(l *link, p Player, i int, at vecmath.Vec3, rtt float64, objects, claims bool) bool {
	lim := &h.limits
	if h.relayed[p] {
		a := &h.relay[p].avatar
		reach := lim.ContactRange + float64(h.wc.shape.Speed*rtt)
		for k := range h.wc.shape.Parts {
			if a.Parts[k].Pose.Pos.Sub(at).LengthSq() <= reach*reach {
				return true
			}
		}
	}
	within := func(s vecmath.Vec3, speed float64) bool {
		reach := lim.ContactRange + lim.Slack + float64(speed*rtt)
		return s.Sub(at).LengthSq() <= reach*reach
	}
	if b, ok := h.game.(Bodies); ok {
		if j := b.Body(p); j == i {
			return true // the player drives its own body
		} else if j >= 0 && j < len(h.objs) {
			if s := h.game.Object(j); within(s.Position, s.LinearVelocity.Length()) {
				return true
			}
		}
	}
	me := OwnerOf(p)
	if claims {
		for k := range h.in.updates {
			if u := &h.in.updates[k]; u.id != i && u.auth == me && h.vouches(l, p, u) {
				if s := h.q.body(u.state); within(s.Position, s.LinearVelocity.Length()) {
					return true
				}
			}
		}
	}
	if !objects {
		return false
	}
	for j := range h.objs {
		if o := &h.objs[j]; j != i && (o.auth == me || o.holder == me) {
			if s := h.game.Object(j); within(s.Position, s.LinearVelocity.Length()) {
				return true
			}
		}
	}
	return false
}

// vouches reports whether guest p's claim u, in the packet being judged,
// counts as something of p's that another of its claims may have
// touched (near): the host credits p with its object (it held it, or
// took it, before or by this packet: the claim is taken), and its state
// lies where the object's states may travel. A claim the host refuses
// (stale, or out of reach) vouched too before: a stale claim beside a
// cube 11 m from the guest's hands had the host launch that cube at
// 25 m/s, nothing counted (TestAClaimNobodyTakesTouchesNothing); and two
// claims beside each other vouched for each other.
func (h *Host) vouches(l *link, p Player, u *update) bool {
	o, me := &h.objs[u.id], OwnerOf(p)
	if (o.auth != me && o.holder != me) || u.ver.Compare(o.ver) < 0 {
		return false
	}
	_, ok := h.travel(l, p, u.id, h.q.body(u.state).Position)
	return ok
}

// plausibleAvatar reports whether guest p's avatar sample a, heard at
// now on link l, could follow its previous one: each of its parts moved
// no faster than the shape's Speed between the two. The time between them
// is the samples' own (the guest's clock), but at most the host's time
// the guest has not spent yet (avatarCredit): a guest that says its clock
// jumped 10 s moves its hands no further than the host's clock lets.
func (h *Host) plausibleAvatar(now time.Time, l *link, p Player, a *avatarSample) bool {
	if !l.avatarAt.IsZero() {
		l.avatarCredit = min(l.avatarCredit+max(now.Sub(l.avatarAt).Seconds(), 0), maxAvatarCredit)
	}
	l.avatarAt = now
	if !h.relayed[p] {
		return true
	}
	prev := &h.relay[p]
	dt := min(float64(int32(a.time-prev.time))*h.cfg.TimeStep.Seconds(), l.avatarCredit)
	reach := float64(h.wc.shape.Speed*dt) + h.limits.Slack
	for k := range h.wc.shape.Parts {
		if a.avatar.Parts[k].Pose.Pos.Sub(prev.avatar.Parts[k].Pose.Pos).LengthSq() > reach*reach {
			return false
		}
	}
	l.avatarCredit -= dt
	return true
}

// maxAvatarCredit bounds, s, the host's time a guest's avatar may spend
// at once: after a second of silence (a burst of loss) its parts may be
// Speed × 1 s from where they were, no further.
const maxAvatarCredit = 1.0

// holdInReach reports whether object i lies within HoldReach of the part
// at hand, allowing for its motion over the round trip.
func (h *Host) holdInReach(l *link, hand vecmath.Vec3, i int) bool {
	s := h.game.Object(i)
	reach := h.limits.HoldReach + h.limits.Slack + float64(s.LinearVelocity.Length()*h.rtt(l))
	return s.Position.Sub(hand).LengthSq() <= reach*reach
}

// implausible counts an implausible claim of guest p and drops the guest
// past Config.MaxImplausible.
func (h *Host) implausible(now time.Time, p Player) {
	h.stats.Implausible++
	h.implausibleBy[p]++
	if h.cfg.MaxImplausible > 0 && h.implausibleBy[p] > uint64(h.cfg.MaxImplausible) && !h.dropped[p] {
		h.Leave(now, int(p)-1)
		h.dropped[p] = true
		// The seat is not held for it, and its client id may not come
		// back (JoinClient): a new connection would start its count afresh.
		if hold := h.holds[p]; hold.known {
			h.banned[h.nbanned%len(h.banned)] = hold.id
			h.nbanned++
		}
		h.holds[p] = seatHold{}
	}
}

// isBanned reports whether the guest of client id was dropped from the
// match for implausible claims (one of the last len(Host.banned)).
func (h *Host) isBanned(id uint64) bool {
	for k := range min(h.nbanned, len(h.banned)) {
		if h.banned[k] == id {
			return true
		}
	}
	return false
}

// Implausible returns how many of the claims of the guest in slot the
// host found physically impossible and overruled.
func (h *Host) Implausible(slot int) uint64 {
	p, ok := seat(slot)
	if !ok {
		return 0
	}
	return h.implausibleBy[p]
}
