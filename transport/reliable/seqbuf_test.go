package reliable

import (
	"math/rand/v2"
	"testing"
)

// TestSequenceBufferAgainstModel drives a sequenceBuffer and a naive
// model with the same random inserts, advances and removes, including
// jumps and wraparound, and compares every lookup. The model: a set of
// sequences, of which only those in the window of the newest n are
// visible.
func TestSequenceBufferAgainstModel(t *testing.T) {
	for _, n := range []int{32, 256} {
		testSequenceBufferAgainstModel(t, n)
	}
}

func testSequenceBufferAgainstModel(t *testing.T, n int) {
	rng := rand.New(rand.NewPCG(3, uint64(n)))
	b := newSequenceBuffer[int](n)
	set := map[Sequence]int{}
	next := Sequence(0)
	inWindow := func(s Sequence) bool { return int(next-1-s) < n } // next-n <= s <= next-1, circularly
	prune := func() {
		for s := range set {
			if !inWindow(s) {
				delete(set, s)
			}
		}
	}
	for range 30_000 {
		// Mostly small steps around next, sometimes far jumps.
		s := next + Sequence(rng.IntN(2*n)) - Sequence(n)
		if rng.IntN(50) == 0 {
			s = Sequence(rng.Uint32())
		}
		switch rng.IntN(4) {
		case 0, 1:
			p := b.insert(s)
			if SequenceGreaterThan(s+1, next) {
				next = s + 1
				prune()
			}
			if stale := !inWindow(s); stale != (p == nil) {
				t.Fatalf("insert(%d) with next %d: stale %v, got nil %v", s, next, stale, p == nil)
			}
			if p != nil {
				*p = int(s) + 1
				set[s] = int(s) + 1
			}
		case 2:
			b.advance(s)
			if SequenceGreaterThan(s+1, next) {
				next = s + 1
				prune()
			}
		case 3:
			b.remove(s)
			delete(set, s)
		}
		if b.next != next {
			t.Fatalf("next %d, model %d", b.next, next)
		}
		for q := next - Sequence(n) - 2; q != next+2; q++ {
			want, ok := set[q]
			got := b.find(q)
			if ok != (got != nil) || b.exists(q) != ok || (ok && *got != want) {
				t.Fatalf("sequence %d (next %d): model %v %d, buffer %v", q, next, ok, want, got)
			}
		}
		ack, bits := b.ackBits()
		for i := range 32 {
			_, ok := set[ack-Sequence(i)]
			if (bits>>i)&1 == 1 != ok {
				t.Fatalf("ack bits %032b of ack %d: bit %d wrong", bits, ack, i)
			}
		}
	}
}
