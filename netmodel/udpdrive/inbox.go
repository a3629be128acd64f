package udpdrive

import (
	"sync"
	"time"
)

// eventKind says what an event reports.
type eventKind uint8

const (
	evPayload eventKind = iota
	evJoin
	evLeave
)

// event is something a transport goroutine saw, queued for the model's
// goroutine: a payload with the time it arrived, or a client taking or
// leaving a slot.
type event struct {
	kind eventKind
	slot int
	at   time.Time
	data []byte
	id   uint64 // evJoin: netcode's client id
}

// maxQueuedPayloads bounds the payloads an inbox holds between two Steps:
// a model goroutine that stalls (a slow frame, a debugger) must not let a
// flood of datagrams grow memory without bound. At 60 frames per second it
// is far above what a match of 64 clients sends in one frame; Rooms, whose
// one inbox serves every match, hold roomsQueuedPerClient per netcode slot
// if that is more.
// maxQueuedPerSlot bounds one client's share at the server, so that a
// client flooding it cannot fill the queue and have the others' payloads
// dropped. A client's inbox has one slot, whose share is the whole queue.
const (
	maxQueuedPayloads    = 4096
	maxQueuedPerSlot     = 256
	roomsQueuedPerClient = 8
)

// inbox hands events from the transport's goroutine to the model's, in the
// order they happened, so a Join always precedes that slot's payloads.
type inbox struct {
	now      func() time.Time // the transport's clock
	mu       sync.Mutex
	q        []event
	limit    int    // the most payload events in q
	payloads int    // payload events in q
	perSlot  []int  // payload events in q by slot
	share    int    // the most payload events of one slot in q
	dropped  uint64 // payloads refused because q or the slot's share was full
}

// init makes the inbox stamp events with now (the transport's clock), or
// with time.Now when now is nil, and hold at most limit payloads
// (maxQueuedPayloads if less), share of them from one slot.
func (b *inbox) init(now func() time.Time, share, limit int) {
	if now == nil {
		now = time.Now
	}
	b.now, b.share, b.limit = now, share, max(limit, maxQueuedPayloads)
}

// push queues an event stamped with the time it arrived; payloads beyond
// the inbox's limit, or beyond the share of one slot, are dropped
// and counted, slot changes never. Slots are the transport's client
// indexes, small and never a peer's choice.
func (b *inbox) push(kind eventKind, slot int, data []byte) { b.pushID(kind, slot, data, 0) }

// pushID is push with the client id an evJoin carries.
func (b *inbox) pushID(kind eventKind, slot int, data []byte, id uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if kind == evPayload {
		for len(b.perSlot) <= slot {
			b.perSlot = append(b.perSlot, 0)
		}
		if b.payloads == b.limit || b.perSlot[slot] == b.share {
			b.dropped++
			return
		}
		b.payloads++
		b.perSlot[slot]++
	}
	// The time is read under the lock, so queue order is time order.
	b.q = append(b.q, event{kind: kind, slot: slot, at: b.now(), data: data, id: id})
}

// swap returns the queued events and takes spare, emptied, as the new
// queue, so two slices alternate and steady state allocates nothing.
func (b *inbox) swap(spare []event) ([]event, uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.q
	b.q, b.payloads = spare[:0], 0
	clear(b.perSlot)
	return q, b.dropped
}

// clock hands the model a time that never goes backwards: an event's
// arrival stamp may precede the previous Step's time by the microseconds
// between stamping and queueing it.
type clock struct{ last time.Time }

func (c *clock) at(t time.Time) time.Time {
	if t.Before(c.last) {
		return c.last
	}
	c.last = t
	return t
}
