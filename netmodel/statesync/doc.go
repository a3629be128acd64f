// Package statesync is a network model for co-op physics games: state
// synchronization with distributed authority, after the VR
// networked-physics sample. A host and up to three guests each simulate
// the whole world; a player who interacts with an object takes authority
// over it and simulates it with no latency, sending its state to the
// others; stacks at rest stand still on every machine because every
// machine quantizes every object before every step exactly as the network
// does; and the final resting state reaches everyone, even under heavy
// loss, because a guest keeps authority over what it moved until the host
// confirms the rest.
//
// Host implements netmodel.Server and Guest netmodel.Client. Each wraps a
// Game, the small interface the model needs from a world: its objects'
// states, a step in which the local player acts, and the contacts of that
// step (which objects touch, which objects a player touches). Optional
// interfaces add a per-player body: Avatars, a body of parts whose shape
// the game declares (AvatarShape: how many parts, which hold objects, how
// far from the root each is coded short, how fast they move), which the
// model codes, sends to the others and judges, so that no code of the
// game runs on a peer's bytes (package scene's VR table, scene.VR, is
// one: a head and two hands that hold; a paddle that pushes is another,
// of one part), or Bodies, players that each drive an object of their
// own (a cube pushing towers). A game without either has
// players who touch objects but no body the others see; the Example is
// such a game.
//
//	host, _ := statesync.NewHost(cfg, world)   // cfg.Player == 0
//	guest, _ := statesync.NewGuest(gcfg, world2, now) // gcfg.Player == slot+1
//	host.Join(now, slot)
//	every frame: Receive what arrived, then Update(now, send)
//
// Update runs the fixed steps due by now (at most MaxStepsPerUpdate) and
// sends one packet per peer; a guest's packets go only to the host, which
// relays.
//
// # Authority and ownership
//
// Every object has an authority (Nobody, the default that the host
// simulates, or a player), a holder (Nobody or a player) and a Version of
// two 16-bit sequences that travel with every update: Own increments on
// every grab, Auth when a player takes authority and when an object under
// a player's authority comes to rest. Versions compare by Own first,
// because holding beats touching.
//
//   - A player takes authority over what it touches (its avatar, or
//     whatever Game.Touches says it pushes with), unless someone holds
//     it, and a moving object under its authority takes the
//     default-authority objects it touches (a thrown cube takes the tower
//     it hits). Objects under another player's authority are not taken by
//     contact between objects, so two machines never fight over a pile.
//   - In a game with Avatars, a player grabs only what nobody holds as
//     far as its machine knows;
//     the grab takes ownership and authority. A held object travels inside
//     its holder's avatar (id, pose in the part, version) and is left out
//     of the object updates (priority -1); when it is released it stays
//     under the thrower's authority with a high priority, and the holder
//     is cleared on every machine when regular updates for it resume.
//   - An object under a player's authority that comes to rest returns to
//     the default: on the host at once; on a guest the guest bumps Auth,
//     keeps authority and sends the rest state until the host, having
//     applied it, answers with the same version and authority Nobody.
//   - The host judges every guest claim: it applies an update whose
//     version is newer than its own, or as new from the player it already
//     gives authority to; it grants a hold when nobody else holds the
//     object and the claim is newer. Claims for another player, with
//     sequences more than MaxSequenceLead ahead, beyond the second's
//     version budget, or with states outside the arena are counted as
//     forged; claims on an object another player holds are counted apart;
//     claims that are physically impossible from the host's state (too
//     fast, too far, out of reach, never touched: see Limits) are
//     overruled and counted as implausible. Nothing of any of them is
//     applied.
//   - A guest applies a host update that is newer than what it knows, or
//     as new but naming another authority (the host decided a race, or
//     confirmed a rest) — also for objects it thinks it owns, letting go
//     of them — and, as new and naming the same authority, when that
//     authority is not the guest itself (plain synchronization).
//   - When a guest leaves, everything it had authority over or held
//     returns to the host with a newer version, and the seat starts
//     afresh on every link: the host forgets what it relayed of it, and
//     shows the seat empty to each other guest until that guest acks it,
//     so that whoever takes the seat next (its clock starting from 0) is
//     relayed from its first packet.
//   - A guest keeps an object that the host says rests at the host's
//     resting state before every step, while it only creeps there (slower
//     than SpreadSpeed) and everything it touches rests on the host too:
//     otherwise the host's rest updates, a few objects per packet, would
//     each be undone by the awake neighbours of the object they put to
//     rest, and a pile would creep on the guest for ever.
//   - The host's rest is final. A guest's update that only settles
//     (slower than 1 cm/s) at the pose where the host's object rests is
//     answered with the host's rest: authority back to nobody, a newer
//     version, which the guest follows; and an object under a guest's
//     authority that moves slower than SpreadSpeed on the host for
//     YieldTicks steps in a row is taken back the same way. A guest's
//     copy that neither side brought to rest (its pile kept awake by the
//     corrections of its neighbours, its rest updates lost or late) then
//     yields within YieldTicks: see docs/statesync.md, Convergence.
//   - No machine applies a state that differs from its own only in the
//     rest bit (the same pose, and the one not at rest creeping slower
//     than SpreadSpeed): woken by it, a resting stack restarts its rest
//     window; put to rest by it, a cube is woken again by its awake
//     neighbours. A stack resting on the host with its top cube under a
//     guest's authority would otherwise be woken by every update of the
//     guest, and the guest's copy by the host's, and rest on neither.
//     Each machine's physics puts it to rest at those bits instead, and
//     the guest's rest is confirmed as any other.
//   - A guest keeps a woken pile whole under its authority: when part
//     of it moves again before the host confirmed its rest, every awake
//     object of it still waiting for the confirmation is taken afresh, or
//     the host would take those over and simulate them a round trip late
//     between the guest's moving ones.
//
// # Order, versions and trust
//
// Every update is judged against the newest packet of the same sender
// that carried the same object: an older one (the network held it back,
// or copied it) is never applied (Counters.Late, Counters.Duplicates). A
// guest plays the host's updates back at the host's pace, a delay behind
// the newest packet's tick, and the host each guest's (its claims judged
// on arrival, its states applied at playback time), so that a moving
// object does not jump back and forth with the network's jitter on either
// leg. The delay follows the link: 0 on a clean one, up to
// Config.JitterDelay for jitter and gaps of loss. Across a gap between
// two states of an object, playback steers it towards the next one (it
// keeps its position and takes the velocity that brings it there), so
// that the state after a burst of loss is not a jump. Versions
// compare within half their 16-bit range; the guests' claims move the
// host's version of an object on by at most MaxSequenceLead a second, so
// that one guest cannot carry it half the range away from the others;
// a guest whose version leads the host's by more than that, or that the
// host has been answering with older versions for Config.Resync, takes
// the host's. What a guest can and cannot do to the others is in
// docs/statesync.md, Trust model.
//
// # Bandwidth
//
// Each packet is filled by a priority accumulator up to Config.PacketBytes
// (BudgetFor converts kbps), measured with the same Serialize that writes,
// on a copy of the coder's own state, so the measure is exact for the
// adaptive range coder too. Updates are delta coded against per-object
// baselines learnt from packet acks: a "not changed" bit, small offsets,
// and a ballistic prediction in fixed point with a "perfect prediction"
// bit. Avatars, for a game that has them, are delta coded the same way
// against acked avatars, the parts without a base from the root's
// position when within their reach; an avatar without a base carries its
// shape, and a peer whose game declares another (or has avatars where
// this one has none) is refused on both sides with ErrAvatarShape, which
// names the difference. Every packet carries the sender's layout (its
// object count and a digest of the state spec, step and ballistics) until
// the peer acks one, and a peer whose world has another is refused on
// both sides with ErrLayout, naming the counts. Config.Coder picks the bit packer or the
// adaptive range coder (the default), which codes the flags and magnitude
// classes under models that learn within the packet; a receiver decodes
// either; docs/statesync.md has the figures.
//
// # Avatars and smoothing
//
// A game without Avatars sends none: its packets carry object updates
// only. Remote avatars are played back through a jitter buffer, the
// delay of the link they come by behind the newest sample, interpolated
// at each step; corrections of
// objects are hidden by a smoother that Render applies (the simulation is
// never smoothed).
package statesync
