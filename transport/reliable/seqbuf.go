package reliable

// emptyEntry marks a slot of a sequenceBuffer that holds no sequence. It
// cannot collide with a real sequence because slots store 32 bits.
const emptyEntry = 0xFFFFFFFF

// sequenceBuffer is a fixed-size ring of per-sequence records indexed by
// sequence % len, as reliable.c's reliable_sequence_buffer_t. The length
// is a power of two (Config checks it): then 65536 is a multiple of it, so
// sequences on either side of the 65535→0 wrap never share a slot, and the
// index is a mask rather than a division. next is one
// past the newest sequence inserted or advanced to; a slot is valid only
// when its stored sequence matches the one looked up, so stale slots left
// behind by wraparound are never mistaken for live ones.
type sequenceBuffer[T any] struct {
	next Sequence
	mask int      // len-1
	seqs []uint32 // per slot: the sequence it holds, or emptyEntry
	data []T      // per slot: its record; nil until the first insert
}

// newSequenceBuffer returns a buffer of n entries, n a power of two. The
// records are allocated at the first insert: an endpoint whose peer never
// fragments never pays for its reassembly slots (64 of about 100 bytes,
// a quarter of an endpoint's memory).
func newSequenceBuffer[T any](n int) *sequenceBuffer[T] {
	b := &sequenceBuffer[T]{mask: n - 1, seqs: make([]uint32, n)}
	b.reset()
	return b
}

// reset forgets every entry; the records' memory is kept for reuse.
func (b *sequenceBuffer[T]) reset() {
	b.next = 0
	for i := range b.seqs {
		b.seqs[i] = emptyEntry
	}
}

func (b *sequenceBuffer[T]) index(s Sequence) int { return int(s) & b.mask }

// stale reports whether s is too old to be stored: older than the oldest
// sequence the ring can still hold.
func (b *sequenceBuffer[T]) stale(s Sequence) bool {
	return SequenceLessThan(s, b.next-Sequence(len(b.seqs)))
}

// advance moves next past s if s is newer, emptying the slots of the
// sequences skipped over so that they do not read as present.
func (b *sequenceBuffer[T]) advance(s Sequence) {
	if !SequenceGreaterThan(s+1, b.next) {
		return
	}
	start, finish := int(b.next), int(s)
	if finish < start {
		finish += 65536
	}
	if finish-start < len(b.seqs) {
		for q := start; q <= finish; q++ {
			b.seqs[q&b.mask] = emptyEntry
		}
	} else {
		for i := range b.seqs {
			b.seqs[i] = emptyEntry
		}
	}
	b.next = s + 1
}

// insert claims the slot of s and returns its record, or nil when s is
// stale. The record keeps whatever the slot held before: callers
// initialise every field they read. The advance-before-stale-check order
// is reliable_sequence_buffer_insert_with_cleanup's; the other insert of
// reliable.c differs only for a sequence both ~32k ahead and stale, which
// the endpoint screens out before inserting.
func (b *sequenceBuffer[T]) insert(s Sequence) *T {
	if SequenceGreaterThan(s+1, b.next) {
		b.advance(s)
	} else if b.stale(s) {
		return nil
	}
	if b.data == nil {
		b.data = make([]T, len(b.seqs))
	}
	i := b.index(s)
	b.seqs[i] = uint32(s)
	return &b.data[i]
}

// remove forgets s; a slot holding another sequence is left alone.
func (b *sequenceBuffer[T]) remove(s Sequence) {
	if i := b.index(s); b.seqs[i] == uint32(s) {
		b.seqs[i] = emptyEntry
	}
}

func (b *sequenceBuffer[T]) exists(s Sequence) bool { return b.seqs[b.index(s)] == uint32(s) }

// find returns the record of s, or nil when s is not stored.
func (b *sequenceBuffer[T]) find(s Sequence) *T {
	i := b.index(s)
	if b.seqs[i] != uint32(s) {
		return nil
	}
	return &b.data[i]
}

// ackBits returns the newest sequence seen and a mask whose bit i is set
// when ack-i is stored: the ack and ack bits of the next packet header.
func (b *sequenceBuffer[T]) ackBits() (ack Sequence, bits uint32) {
	ack = b.next - 1
	for i := range 32 {
		if b.exists(ack - Sequence(i)) {
			bits |= 1 << i
		}
	}
	return ack, bits
}
