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

// receivedRing is the receiver's side: objects × ringSize slots, indexed
// by packet sequence.
type receivedRing struct {
	slots []ringSlot
}

type ringSlot struct {
	valid bool
	b     baseline
}

func newReceivedRing(objects int) receivedRing {
	return receivedRing{slots: make([]ringSlot, objects*ringSize)}
}

func (r *receivedRing) slot(id int, seq reliable.Sequence) *ringSlot {
	return &r.slots[id*ringSize+int(seq)%ringSize]
}

// store keeps what packet seq carried for object id. A late packet never
// overwrites a newer one's slot.
func (r *receivedRing) store(id int, b baseline) {
	s := r.slot(id, b.seq)
	if s.valid && int16(s.b.seq-b.seq) > 0 {
		return
	}
	*s = ringSlot{valid: true, b: b}
}

// find returns the state of object id from the packet age packets before
// seq.
func (r *receivedRing) find(id int, seq reliable.Sequence, age int) (*baseline, error) {
	want := seq - reliable.Sequence(age)
	s := r.slot(id, want)
	if !s.valid || s.b.seq != want {
		return nil, fmt.Errorf("%w: object %d, packet %d", ErrBaseline, id, want)
	}
	return &s.b, nil
}

// sentLog is the sender's side: what each packet carried, for the
// endpoint's sent-packet window, and the newest acked state per object.
type sentLog struct {
	packets []sentPacket // indexed by sequence modulo len
	acked   []baseline
	valid   []bool
}

type sentPacket struct {
	seq     reliable.Sequence
	live    bool
	tick    Tick
	entries []sentEntry
}

type sentEntry struct {
	id    int
	auth  Owner
	ver   Version
	state qstate
}

func newSentLog(objects, window int) sentLog {
	return sentLog{packets: make([]sentPacket, window), acked: make([]baseline, objects), valid: make([]bool, objects)}
}

// record notes what packet seq carries.
func (l *sentLog) record(seq reliable.Sequence, tick Tick, updates []update) {
	p := &l.packets[int(seq)%len(l.packets)]
	p.seq, p.live, p.tick = seq, true, tick
	p.entries = p.entries[:0]
	for i := range updates {
		u := &updates[i]
		p.entries = append(p.entries, sentEntry{id: u.id, auth: u.auth, ver: u.ver, state: u.state})
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
	for _, e := range p.entries {
		if l.valid[e.id] && int16(l.acked[e.id].seq-seq) > 0 {
			continue
		}
		l.valid[e.id] = true
		l.acked[e.id] = baseline{seq: seq, tick: p.tick, state: e.state, auth: e.auth, ver: e.ver}
	}
}

// base returns object id's baseline for packet seq, or nil when there is
// none young enough; age is how many packets back it is.
func (l *sentLog) base(id int, seq reliable.Sequence) (*baseline, int) {
	if !l.valid[id] {
		return nil, 0
	}
	b := &l.acked[id]
	age := int(uint16(seq - b.seq))
	if age < 1 || age >= ringSize {
		return nil, 0
	}
	return b, age
}
