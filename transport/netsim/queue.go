package netsim

import "time"

// deliveryQueue orders the packets in flight by due time, then by the
// order they were scheduled in, so equal due times deliver in send order.
//
// It is a binary min-heap of small pointer-free keys; the packets stay
// put in a slot table with a free list. Moving 24-byte keys instead of
// whole Packets (with their pointers, which cost GC write barriers) and
// avoiding container/heap's boxing makes Send+Receive several times
// cheaper with thousands of packets in flight.
type deliveryQueue struct {
	heap  []queueKey
	slots []Packet
	free  []int32
	epoch time.Time // due times are keyed as durations since the first packet
	order uint64
}

type queueKey struct {
	due   time.Duration // since epoch; monotonic when the times carry a monotonic reading
	order uint64
	slot  int32
}

func (a queueKey) less(b queueKey) bool {
	return a.due < b.due || (a.due == b.due && a.order < b.order)
}

func (q *deliveryQueue) len() int { return len(q.heap) }

// peek returns the next packet due; the queue must not be empty.
func (q *deliveryQueue) peek() *Packet { return &q.slots[q.heap[0].slot] }

func (q *deliveryQueue) push(p Packet) {
	if len(q.slots) == 0 {
		q.epoch = p.Due
	}
	var slot int32
	if n := len(q.free); n > 0 {
		slot, q.free = q.free[n-1], q.free[:n-1]
		q.slots[slot] = p
	} else {
		slot = int32(len(q.slots))
		q.slots = append(q.slots, p)
	}
	q.heap = append(q.heap, queueKey{due: p.Due.Sub(q.epoch), order: q.order, slot: slot})
	q.order++
	// Sift up.
	h := q.heap
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h[i].less(h[parent]) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

// pop removes and returns the next packet due; the queue must not be empty.
func (q *deliveryQueue) pop() Packet {
	h := q.heap
	slot := h[0].slot
	p := q.slots[slot]
	q.slots[slot] = Packet{} // drop the reference to Data
	q.free = append(q.free, slot)
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	q.heap = h
	// Sift down.
	for i := 0; ; {
		small, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].less(h[small]) {
			small = l
		}
		if r < len(h) && h[r].less(h[small]) {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	return p
}
