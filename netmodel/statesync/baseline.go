package statesync

import (
	"fmt"

	"github.com/netphys/netphys/transport/reliable"
)

// Delta compression needs a baseline per object, because the priority
// accumulator puts a different subset of objects in every packet: there is
// no "last acknowledged snapshot" to code against. The receiver keeps, per
// object, the states of the last ringSize packets that carried it
// (receivedRing); the sender remembers what every packet carried
// (sentLog) and, when an ack arrives, makes those states the objects'
// baselines (acked). A sender only codes against a baseline younger than
// ringSize packets, which the receiver is sure to still hold.

// ring is the receiver's side: ids × ringSize slots of what the packets
// carried, indexed by packet sequence. A receivedRing keeps object states,
// an avatarRing the players' avatars.
type ring[T any] struct {
	slots []ringSlot[T]
}

type ringSlot[T any] struct {
	valid bool
	seq   reliable.Sequence
	v     T
}

type (
	receivedRing = ring[baseline]
	avatarRing   = ring[avatarBaseline]
)

func newRing[T any](ids int) ring[T] { return ring[T]{slots: make([]ringSlot[T], ids*ringSize)} }

func newReceivedRing(objects int) receivedRing { return newRing[baseline](objects) }

func (r *ring[T]) slot(id int, seq reliable.Sequence) *ringSlot[T] {
	return &r.slots[id*ringSize+int(seq)%ringSize]
}

// store keeps what packet seq carried for id. A late packet never
// overwrites a newer one's slot.
func (r *ring[T]) store(id int, seq reliable.Sequence, v T) {
	s := r.slot(id, seq)
	if s.valid && int16(s.seq-seq) > 0 {
		return
	}
	*s = ringSlot[T]{valid: true, seq: seq, v: v}
}

// find returns what the packet age packets before seq carried for id.
func (r *ring[T]) find(id int, seq reliable.Sequence, age int) (*T, error) {
	want := seq - reliable.Sequence(age)
	s := r.slot(id, want)
	if !s.valid || s.seq != want {
		return nil, fmt.Errorf("%w: %d, packet %d", ErrBaseline, id, want)
	}
	return &s.v, nil
}

// sentLog is the sender's side: what each of the last ringSize packets
// carried, and the newest acked state per object and avatar per player.
// An ack of an older packet is ignored: its states could never be a
// baseline, since the next packet is ringSize or more after it.
type sentLog struct {
	packets []sentPacket // indexed by sequence modulo len
	acked   []ackedRef   // per object
	avatars [MaxPlayers]ringSlot[avatarBaseline]
}

// ackedRef points at an object's newest acked state where its packet's
// entry keeps it, rather than a copy: an ack costs a pointer per object
// it carried, not its state (some 12 KB an ack for 110 objects). The
// entry is written over when its packet's slot takes a packet ringSize
// later, by when it is too old to be a baseline anyway; seq tells.
type ackedRef struct {
	seq reliable.Sequence
	b   *baseline // nil: none acked
}

type sentPacket struct {
	seq     reliable.Sequence
	live    bool
	tick    Tick
	entries []update // the packet's updates, their seq and tick its own
	// ids are the entries' objects, in their order: an ack reads these
	// two bytes an update, not the update's cache line, which the packet
	// wrote ringSize packets' worth of memory ago.
	ids     []uint16
	avatars []avatarSample
}

func newSentLog(objects int) sentLog {
	return sentLog{packets: make([]sentPacket, ringSize), acked: make([]ackedRef, objects)}
}

// record notes what packet seq carries. It keeps the packet's avatars and
// updates as they are (the caller set the updates' seq and tick to the
// packet's) and hands back in *avatars and *updates the slices of the
// packet ringSize before, emptied, for the next packet to fill: no copy
// of some 13 KB a packet at 110 objects and three avatars, written to
// memory the cache no longer holds. A slot's slice takes room
// for every object the first time, so that the log does not grow packet
// by packet as the updates per packet vary.
func (l *sentLog) record(seq reliable.Sequence, tick Tick, avatars *[]avatarSample, updates *[]update) {
	p := &l.packets[int(seq)%len(l.packets)]
	p.seq, p.live, p.tick = seq, true, tick
	freeAvatars, free := p.avatars[:0], p.entries[:0]
	if free == nil {
		freeAvatars, free = make([]avatarSample, 0, MaxPlayers), make([]update, 0, max(len(l.acked), len(*updates)))
	}
	p.avatars, *avatars = *avatars, freeAvatars
	p.entries, *updates = *updates, free
	p.ids = p.ids[:0]
	for k := range p.entries {
		p.ids = append(p.ids, uint16(p.entries[k].id)) // a node has at most 1<<16 objects
	}
}

// ack makes the states packet seq carried the baselines of their objects,
// unless a newer packet's state already is.
func (l *sentLog) ack(seq reliable.Sequence) {
	p := &l.packets[int(seq)%len(l.packets)]
	if !p.live || p.seq != seq {
		return
	}
	p.live = false
	for _, a := range p.avatars {
		b := &l.avatars[a.player]
		if !b.valid || int16(b.seq-seq) < 0 {
			*b = ringSlot[avatarBaseline]{valid: true, seq: seq, v: avatarBaseline{sample: a, tick: p.tick}}
		}
	}
	for k, id := range p.ids {
		a := &l.acked[id]
		if a.b != nil && int16(a.seq-seq) > 0 {
			continue
		}
		*a = ackedRef{seq: seq, b: &p.entries[k].baseline}
	}
}

// base returns object id's baseline for packet seq, or nil when there is
// none young enough; age is how many packets back it is.
func (l *sentLog) base(id int, seq reliable.Sequence) (*baseline, int) {
	a := &l.acked[id]
	b := a.b
	if b == nil || b.seq != a.seq { // its packet's slot holds a newer packet
		return nil, 0
	}
	age := int(uint16(seq - b.seq))
	if age < 1 || age >= ringSize {
		return nil, 0
	}
	return b, age
}

// avatarBase returns player p's acked avatar for packet seq, or nil when
// there is none young enough; age is how many packets back it is.
func (l *sentLog) avatarBase(p Player, seq reliable.Sequence) (*avatarBaseline, int) {
	b := &l.avatars[p]
	age := int(uint16(seq - b.seq))
	if !b.valid || age < 1 || age >= ringSize {
		return nil, 0
	}
	return &b.v, age
}

// lookup finds the baselines of a packet received as seq, when reading.
type lookup struct {
	objects *receivedRing
	avatars *avatarRing
	seq     reliable.Sequence
}

func (l *lookup) object(id, age int) (*baseline, error) {
	if l == nil {
		return nil, fmt.Errorf("%w: no baselines", ErrBaseline)
	}
	return l.objects.find(id, l.seq, age)
}

func (l *lookup) avatar(p Player, age int) (*avatarBaseline, error) {
	if l == nil {
		return nil, fmt.Errorf("%w: no baselines", ErrBaseline)
	}
	return l.avatars.find(int(p), l.seq, age)
}
