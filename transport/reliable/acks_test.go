package reliable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// link carries datagrams between two endpoints in the tests, losing each
// with probability loss and delaying each by a random number of steps.
type link struct {
	rng      *rand.Rand
	loss     float64
	maxDelay int
	queue    []queued
}

type queued struct {
	at int
	d  []byte
}

func (l *link) send(step int, d []byte) {
	if l.rng.Float64() < l.loss {
		return
	}
	l.queue = append(l.queue, queued{at: step + l.rng.IntN(l.maxDelay+1), d: bytes.Clone(d)})
}

// due removes and returns the datagrams due at step, in queue order.
func (l *link) due(step int) [][]byte {
	var out [][]byte
	kept := l.queue[:0]
	for _, q := range l.queue {
		if q.at <= step {
			out = append(out, q.d)
		} else {
			kept = append(kept, q)
		}
	}
	l.queue = kept
	return out
}

// side is one endpoint of the ack property test with the naive reference
// model: which packets (by a global index carried in the payload) the
// peer delivered, and which the endpoint reported acked.
type side struct {
	e       *Endpoint
	out     *link
	next    uint64        // global index of the next packet
	bySeq   [65536]uint64 // newest global index sent with each sequence, plus one
	acked   []bool        // by global index: reported by Acks
	arrived []bool        // by the peer's global index: delivered here
}

func (s *side) send(t *testing.T, rng *rand.Rand, now time.Time, step int) {
	payload := binary.LittleEndian.AppendUint64(nil, s.next)
	if rng.IntN(20) == 0 { // some packets need fragments
		payload = append(payload, make([]byte, 1024+rng.IntN(3000))...)
	}
	seq, dgs, err := s.e.SendPacket(now, payload)
	if err != nil {
		t.Fatal(err)
	}
	s.bySeq[seq] = s.next + 1
	s.next++
	for _, d := range dgs {
		s.out.send(step, d)
	}
}

func (s *side) receive(t *testing.T, now time.Time, d []byte, peer *side) {
	_, payload, err := s.e.ReceivePacket(now, d)
	if err != nil && !errors.Is(err, ErrStale) {
		t.Fatalf("receive: %v", err)
	}
	if payload != nil {
		idx := binary.LittleEndian.Uint64(payload)
		if s.arrived[idx] {
			t.Fatalf("packet %d delivered twice", idx)
		}
		s.arrived[idx] = true
	}
	for _, seq := range s.e.Acks() {
		idx := s.bySeq[seq] - 1
		if s.bySeq[seq] == 0 {
			t.Fatalf("ack of sequence %d never sent", seq)
		}
		if s.acked[idx] {
			t.Fatalf("packet %d (sequence %d) acked twice", idx, seq)
		}
		if !peer.arrived[idx] {
			t.Fatalf("packet %d (sequence %d) acked but never delivered", idx, seq)
		}
		s.acked[idx] = true
	}
	s.e.ClearAcks()
}

// TestAcksMatchArrivals is the property test: under random loss and
// reordering, over more than 65536 packets each way (so sequences
// wrap), every ack names a packet the peer delivered, each once, and
// once the network heals, every delivered packet is acked.
func TestAcksMatchArrivals(t *testing.T) {
	// 46000 steps of 1.5 packets on average each way: sequences wrap.
	const lossySteps, healSteps = 46000, 200
	const maxPackets = 2 * (lossySteps + healSteps)
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func() *side {
		return &side{
			e:       newEndpoint(t, DefaultConfig()),
			out:     &link{rng: rng, loss: 0.25, maxDelay: 3},
			acked:   make([]bool, maxPackets),
			arrived: make([]bool, maxPackets),
		}
	}
	a, b := mk(), mk()
	now := t0
	var aSettled, bSettled uint64
	for step := range lossySteps + healSteps {
		if step == lossySteps {
			a.out.loss, b.out.loss = 0, 0
		}
		if step == lossySteps+healSteps-10 {
			aSettled, bSettled = a.next, b.next
		}
		now = now.Add(16 * time.Millisecond)
		// Mostly one packet each per step, at times two: the ack window
		// of 32 still spans many of the peer's packets.
		for range 1 + rng.IntN(2) {
			a.send(t, rng, now, step)
		}
		for range 1 + rng.IntN(2) {
			b.send(t, rng, now, step)
		}
		for _, d := range a.out.due(step) {
			b.receive(t, now, d, a)
		}
		for _, d := range b.out.due(step) {
			a.receive(t, now, d, b)
		}
		if step%16 == 0 {
			a.e.Update(now)
			b.e.Update(now)
		}
	}
	for _, s := range []struct {
		name        string
		sender, rcv *side
		settled     uint64
	}{{"a->b", a, b, aSettled}, {"b->a", b, a, bSettled}} {
		if s.sender.next < 65536+1000 {
			t.Fatalf("%s: only %d packets sent", s.name, s.sender.next)
		}
		// The packets of the last steps may be delivered with their ack
		// still on the way; every earlier one is settled.
		for idx := range s.settled {
			if s.rcv.arrived[idx] != s.sender.acked[idx] {
				t.Fatalf("%s: packet %d of %d delivered %v, acked %v",
					s.name, idx, s.settled, s.rcv.arrived[idx], s.sender.acked[idx])
			}
		}
		delivered := 0
		for _, ok := range s.rcv.arrived {
			if ok {
				delivered++
			}
		}
		lost := 1 - float64(delivered)/float64(s.sender.next)
		if lost < 0.2 || lost > 0.35 {
			t.Fatalf("%s: %.3f of packets lost, the link loses 0.25 of datagrams", s.name, lost)
		}
		st := s.sender.e.Stats()
		if st.RTT < 16*time.Millisecond || st.RTT > 200*time.Millisecond {
			t.Errorf("%s: smoothed RTT %v outside the link's range", s.name, st.RTT)
		}
		if st.SentKbps <= 0 || st.ReceivedKbps <= 0 || st.AckedKbps <= 0 {
			t.Errorf("%s: bandwidth stats %+v", s.name, st)
		}
	}
}
