package statesync

import (
	"errors"
	"fmt"
	"time"

	"github.com/netphys/netphys/transport/reliable"
)

// link is one machine's connection to a peer: the packet-ack endpoint, the
// baselines each way and the priority accumulator of what to send.
type link struct {
	n       *node
	peer    Player
	ep      *reliable.Endpoint
	sent    sentLog
	ring    receivedRing
	avatars avatarRing
	acc     accumulator
	factor  func(i int) float64
	// newest is the time of the newest avatar sample from the peer;
	// relayedAt is, per player, the time of the newest sample of theirs
	// this link has sent (the host's relay), if sentRelay.
	newest    Tick
	heard     bool
	sentRelay [MaxPlayers]bool
	relayedAt [MaxPlayers]Tick
	// gone[p]: player p left, and until the peer acks a packet that says
	// so (goneSeq[p] or later, once goneSent[p]), this link shows p
	// absent and relays nothing of p's: the peer then drops everything
	// of the player who left before it hears of whoever takes the seat.
	gone     [MaxPlayers]bool
	goneSent [MaxPlayers]bool
	goneSeq  [MaxPlayers]reliable.Sequence
	// ext is the newest packet sequence received from the peer, extended
	// to 32 bits, inExt that of the packet being decoded; objSeq[i] is
	// the extended sequence of the newest packet whose update of object
	// i was taken, 0 for none (extended sequences start at 1): an update
	// in an older packet is late, and never applied (inOrder).
	ext, inExt uint32
	objSeq     []uint32
	// took[i] is the host's tick when it last took a state of object i
	// from this guest, 0 for never (plausibleUpdate).
	took []Tick
	// path[i] is what the states of object i taken from this guest may
	// still travel (Host.travel).
	path []travel
	// pb plays the host's updates back on a guest, a guest's on the host
	// (playback.go).
	pb playback
	// sends counts the packets sent, to update the endpoint's figures
	// (the round trip plausibleUpdate reads) twice a second.
	sends int
	// avatarAt is when the host last heard an avatar sample of the peer,
	// avatarCredit how much of the host's time since its samples have
	// not spent, s (plausibleAvatar).
	avatarAt     time.Time
	avatarCredit float64
	// tokens is how many datagrams the host takes from the peer before
	// its next step (Host.Receive).
	tokens int
	// heardAt and heardBefore are when the host heard the peer's newest
	// packet and the one before (contact).
	heardAt, heardBefore time.Time
	// refused is why the peer's avatars have another shape than this
	// game's (ErrAvatarShape) or its world another layout (ErrLayout):
	// every packet of the peer is refused with
	// it, the first one's reason standing (the endpoint acked that
	// packet, and the peer codes the next ones against it).
	refused error
	// acked: the peer acked a packet; until then every packet carries
	// the layout (serializeLayout).
	acked   bool
	out     packet
	settled []avatarSample
	build   builder
	buf     []byte
}

func newLink(n *node, peer Player, now time.Time) (*link, error) {
	ep, err := reliable.NewEndpoint(n.cfg.Reliable, now)
	if err != nil {
		return nil, err
	}
	objects := len(n.objs)
	l := &link{n: n, peer: peer, ep: ep,
		sent: newSentLog(objects),
		ring: newReceivedRing(objects), avatars: newRing[avatarBaseline](MaxPlayers), acc: newAccumulator(objects),
		objSeq: make([]uint32, objects), took: make([]Tick, objects), path: make([]travel, objects), pb: newPlayback(objects, Tick(n.cfg.JitterDelay/n.cfg.TimeStep)),
		buf: make([]byte, n.cfg.PacketBytes+MaxPlayers*n.wc.maxAvatarBytes()), tokens: floodBurst}
	if n.host {
		l.factor = l.hostFactor
	} else {
		l.factor = l.guestFactor
	}
	return l, nil
}

// hostFactor: the host sends a guest every object but those the guest
// has authority over, which it knows better.
func (l *link) hostFactor(i int) float64 {
	if l.n.objs[i].auth == OwnerOf(l.peer) {
		return -1
	}
	return l.n.priority(i)
}

// guestFactor: a guest sends only the objects it has authority over.
func (l *link) guestFactor(i int) float64 {
	if l.n.objs[i].auth != l.n.me {
		return -1
	}
	return l.n.priority(i)
}

// send builds one packet: the avatars, then objects in accumulator order
// while they fit in the budget, each measured with the coder's state as
// it is written (builder).
func (l *link) send(now time.Time, seat Player, present uint8, avatars []avatarSample, out func([]byte)) error {
	n := l.n
	p := &l.out
	if l.sends%30 == 0 {
		l.ep.Update(now)
	}
	l.sends++
	seq := l.ep.NextSequence()
	l.settled, p.refs = l.settled[:0], [MaxPlayers]avatarRef{}
	for i := range avatars {
		s, err := n.wc.settle(&avatars[i])
		if err != nil {
			return fmt.Errorf("statesync: avatar of player %d: %w", avatars[i].player, err)
		}
		l.settled = append(l.settled, *s)
		p.refs[i].base, p.refs[i].age = l.sent.avatarBase(s.player, seq)
	}
	p.tick, p.player, p.present, p.avatars, p.updates = n.tick, seat, present, l.settled, p.updates[:0]
	p.layout = !l.acked
	b := &l.build
	if err := n.wc.begin(b, p, n.cfg.Coder, n.cfg.PacketBytes, l.buf); err != nil {
		return err
	}
	for _, i := range l.acc.candidates() {
		o, u := &n.objs[i], b.next()
		u.id, u.baseline = i, baseline{seq: seq, tick: n.tick, auth: o.auth, ver: o.ver, state: n.cur[i]}
		u.base, u.age = l.sent.base(i, seq)
		fits, err := b.add()
		if err != nil {
			return fmt.Errorf("statesync: measuring object %d: %w", i, err)
		}
		if fits {
			l.acc.sent(i)
		}
	}
	data, err := b.finish()
	if err != nil {
		return fmt.Errorf("statesync: writing a packet: %w", err)
	}
	sentSeq, datagrams, err := l.ep.SendPacket(now, data)
	if err != nil {
		return err
	}
	if sentSeq != seq {
		return fmt.Errorf("statesync: packet sent as %d, built as %d", sentSeq, seq)
	}
	n.stats.PacketsSent++
	n.stats.PayloadBytes += uint64(len(data))
	n.stats.AvatarBytes += uint64(b.avatarBytes)
	n.stats.UpdatesSent += uint64(len(p.updates))
	n.stats.UpdateBytes += uint64(len(data) - b.headBytes - b.avatarBytes)
	l.sent.record(seq, n.tick, &l.settled, &p.updates) // both the next packet's, empty
	for _, d := range datagrams {
		out(d)
	}
	return nil
}

// receive decodes one datagram into n.in. It returns false with a nil
// error for a fragment that completes nothing. Every state decoded is
// kept as a possible baseline (the endpoint acks the packet whether or not
// the rules accept its claims), and the peer's acks turn into baselines.
func (l *link) receive(now time.Time, datagram []byte) (bool, error) {
	n := l.n
	if l.refused != nil {
		n.stats.Malformed++
		return false, l.refused
	}
	seq, payload, err := l.ep.ReceivePacket(now, datagram)
	switch {
	case errors.Is(err, reliable.ErrDuplicate):
		n.stats.Duplicates++
		return false, err
	case errors.Is(err, reliable.ErrStale):
		n.stats.Late++
		return false, err
	case err != nil:
		n.stats.Malformed++
		return false, err
	}
	if payload == nil {
		return false, nil
	}
	for _, a := range l.ep.Acks() {
		l.acked = true
		l.sent.ack(a)
		for q := range l.gone {
			if l.gone[q] && l.goneSent[q] && !reliable.SequenceLessThan(a, l.goneSeq[q]) {
				l.gone[q] = false
			}
		}
	}
	l.ep.ClearAcks()
	p := &n.in
	if err := n.wc.decode(payload, p, &lookup{objects: &l.ring, avatars: &l.avatars, seq: seq}); err != nil {
		n.stats.Malformed++
		err = fmt.Errorf("%w: %w", ErrMalformed, err)
		if errors.Is(err, ErrAvatarShape) || errors.Is(err, ErrLayout) {
			l.refused = err
		}
		return false, err
	}
	l.extend(seq)
	for _, u := range p.updates {
		l.ring.store(u.id, seq, baseline{seq: seq, tick: p.tick, state: u.state, auth: u.auth, ver: u.ver})
	}
	for _, a := range p.avatars {
		l.avatars.store(int(a.player), seq, avatarBaseline{sample: a, tick: p.tick})
	}
	n.stats.PacketsReceived++
	return true, nil
}

// extend sets inExt to the 32-bit form of seq, the sequence of the packet
// being decoded (uint16(inExt-1) == seq; the first packet's is seq+1),
// and moves ext on if it is the newest. The endpoint drops packets far
// older than its newest, so seq lies within ±32767 of ext's.
func (l *link) extend(seq reliable.Sequence) {
	if l.ext == 0 {
		l.inExt = uint32(seq) + 1
	} else {
		l.inExt = uint32(max(int64(l.ext)+int64(int16(seq-reliable.Sequence(l.ext-1))), 1))
	}
	l.ext = max(l.ext, l.inExt)
}

// inOrder reports whether the packet being decoded is newer than every
// packet from the peer whose update of object i was taken, and if so
// notes it as the newest. A state older than one already applied (a
// packet held back by the network, a copy) is never applied: it would
// move the object back in time, and wake what had settled since.
func (l *link) inOrder(i int) bool {
	if l.inExt <= l.objSeq[i] {
		return false
	}
	l.objSeq[i] = l.inExt
	return true
}
