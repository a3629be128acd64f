package netcode

import (
	"crypto/rand"
	"fmt"
	"io"
)

// payloadQueue is a bounded FIFO of received payloads.
type payloadQueue struct {
	items      [][]byte
	head, size int
}

func newPayloadQueue(n int) payloadQueue { return payloadQueue{items: make([][]byte, n)} }

// push copies b into the queue; false if the queue is full.
func (q *payloadQueue) push(b []byte) bool {
	if q.size == len(q.items) {
		return false
	}
	q.items[(q.head+q.size)%len(q.items)] = append([]byte(nil), b...)
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
