package netcode

import "math/bits"

// slotSet is a set of slots as a bitmap, so that finding the lowest free
// slot or walking the connected ones costs a word per 64 slots, not a
// visit to every slot's state.
type slotSet struct {
	words []uint64
	n     int
}

func newSlotSet(n int) slotSet { return slotSet{words: make([]uint64, (n+63)/64), n: n} }

func (s *slotSet) set(i ClientIndex)   { s.words[i/64] |= 1 << (i % 64) }
func (s *slotSet) clear(i ClientIndex) { s.words[i/64] &^= 1 << (i % 64) }

// next returns the lowest slot in the set at or after from, or -1.
func (s *slotSet) next(from ClientIndex) ClientIndex {
	if from < 0 {
		from = 0
	}
	for w := int(from / 64); w < len(s.words); w++ {
		word := s.words[w]
		if w == int(from/64) {
			word &^= 1<<(from%64) - 1
		}
		if word != 0 {
			return ClientIndex(w*64 + bits.TrailingZeros64(word))
		}
	}
	return -1
}

// firstClear returns the lowest slot not in the set, or -1.
func (s *slotSet) firstClear() ClientIndex {
	for w, word := range s.words {
		if word != ^uint64(0) {
			if i := w*64 + bits.TrailingZeros64(^word); i < s.n {
				return ClientIndex(i)
			}
			return -1
		}
	}
	return -1
}
