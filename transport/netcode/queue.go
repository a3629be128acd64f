package netcode

import (
	"crypto/rand"
	"fmt"
	"io"
)

// payloadQueue is a bounded FIFO of received payloads.
type payloadQueue struct {
	items      [][]byte // made at the first push: a slot never used costs nothing
	limit      int      // len(items) once made
	head, size int
	// chunk is where copies are carved from, so a payload costs no
	// allocation of its own: one chunk holds many. The queue only ever
	// appends to a chunk, and each copy's capacity ends where it ends, so
	// a popped slice is the caller's to keep or modify.
	chunk []byte
}

// payloadChunkBytes is the size of the chunks copies are carved from: at
// least 13 full-size payloads, or about 160 of 100 bytes, per allocation.
const payloadChunkBytes = 16 << 10

func newPayloadQueue(n int) payloadQueue { return payloadQueue{limit: n} }

// push copies b into the queue; false if the queue is full.
func (q *payloadQueue) push(b []byte) bool {
	if q.items == nil {
		q.items = make([][]byte, q.limit)
	}
	if q.size == len(q.items) {
		return false
	}
	if cap(q.chunk)-len(q.chunk) < len(b) {
		q.chunk = make([]byte, 0, max(payloadChunkBytes, len(b)))
	}
	start := len(q.chunk)
	q.chunk = append(q.chunk, b...)
	q.items[(q.head+q.size)%len(q.items)] = q.chunk[start:len(q.chunk):len(q.chunk)]
	q.size++
	return true
}

func (q *payloadQueue) pop() ([]byte, bool) {
	if q.size == 0 {
		return nil, false
	}
	b := q.items[q.head]
	q.items[q.head] = nil
	q.head = (q.head + 1) % len(q.items)
	q.size--
	return b, true
}

func (q *payloadQueue) clear() {
	clear(q.items)
	q.head, q.size = 0, 0
}

// randomKey reads a key from random, or crypto/rand if random is nil.
func randomKey(random io.Reader) (Key, error) {
	if random == nil {
		random = rand.Reader
	}
	var k Key
	if _, err := io.ReadFull(random, k[:]); err != nil {
		return k, fmt.Errorf("netcode: reading a random key: %w", err)
	}
	return k, nil
}
