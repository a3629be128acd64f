package statesync

import (
	"encoding/binary"
	"fmt"
)

// Agreement: twice a second each machine tells its peers (a guest the
// host, the host every guest) a digest of its world: a hash of every
// object's quantized state, bit for bit, with its tick and how long its
// world has not changed. The receiver compares it with its own world as
// it is when the digest arrives. While objects move the two never match
// (each machine is a link's delay ahead of the other for what it has
// authority over); once the world rests they match exactly when every
// object is the same, so a run of matching digests is convergence
// computed, not asserted: "bit for bit with the host since its tick N,
// so many seconds after the host's world came to rest".
//
// A digest travels as a datagram of its own beside the packets, outside
// their sequence, acks and format: its first byte, digestPrefix, has the
// top bit set, which no reliable.Endpoint datagram has (its prefix byte
// keeps its top two bits clear) and no driver message (0xFF) has either.
// It is a peer's word on its own world and fills only that peer's line of
// the figure: a guest that lies in it fools nobody's world.
//
//	+--------+------------+------------+--------------+
//	| 0xD5   | tick LE32  | sum LE64   | still LE32   |
//	+--------+------------+------------+--------------+
//
// tick is the sender's step, sum its worldSum after that step, still
// how many steps its world had then gone unchanged (at most tick).

// digestPrefix is a digest datagram's first byte.
const digestPrefix = 0xD5

// digestBytes is a digest datagram's size.
const digestBytes = 1 + 4 + 8 + 4

// digestEvery is how often, in steps, a machine sends its digest.
const digestEvery = 30

type digest struct {
	tick  Tick
	sum   uint64
	still Tick
}

// isDigest reports whether a datagram is a digest rather than a packet.
func isDigest(b []byte) bool { return len(b) > 0 && b[0] == digestPrefix }

// appendDigest appends d's datagram to b.
func appendDigest(b []byte, d digest) []byte {
	b = append(b, digestPrefix)
	b = binary.LittleEndian.AppendUint32(b, uint32(d.tick))
	b = binary.LittleEndian.AppendUint64(b, d.sum)
	return binary.LittleEndian.AppendUint32(b, uint32(d.still))
}

// parseDigest reads a digest datagram: exactly digestBytes, the prefix
// first, still no more than tick.
func parseDigest(b []byte) (digest, error) {
	if len(b) != digestBytes || b[0] != digestPrefix {
		return digest{}, fmt.Errorf("%w: a digest is %d bytes starting %#02x, got %d", ErrMalformed, digestBytes, digestPrefix, len(b))
	}
	d := digest{
		tick:  Tick(binary.LittleEndian.Uint32(b[1:])),
		sum:   binary.LittleEndian.Uint64(b[5:]),
		still: Tick(binary.LittleEndian.Uint32(b[13:])),
	}
	if d.still > d.tick {
		return digest{}, fmt.Errorf("%w: a digest of tick %d unchanged for %d steps", ErrMalformed, d.tick, d.still)
	}
	return d, nil
}

// worldSum hashes every object's quantized state as of the last step:
// two machines with equal sums hold the same bits (barring a collision).
// Authority and versions are not part of it: the bits are what a player
// sees and what the next step starts from.
func (n *node) worldSum() uint64 {
	h := uint64(14695981039346656037) // FNV-1a's offset basis, word by word
	mix := func(v uint64) { h = (h ^ v) * 1099511628211 }
	for i := range n.cur {
		s := &n.cur[i]
		for k := range 3 {
			mix(uint64(s.pos[k]))
			mix(uint64(s.lin[k]))
			mix(uint64(s.ang[k]))
			mix(uint64(uint32(s.rot.C[k])))
		}
		rest := uint64(0)
		if s.rest {
			rest = 1
		}
		mix(uint64(s.rot.Largest)<<1 | rest)
	}
	return h
}

// watcher follows a machine's world for its digests.
type watcher struct {
	sum     uint64 // the world's sum after the last Update's steps
	changed Tick   // the step it last changed at
	sentAt  Tick   // the step of the last digest sent, 0 before the first
	buf     [digestBytes]byte
}

// digest notes, after the steps of an Update, the world's sum and since
// when it has not changed, and returns the digest datagram to send, if
// one is due.
func (n *node) digest() ([]byte, bool) {
	w := &n.watch
	if sum := n.worldSum(); sum != w.sum {
		w.sum, w.changed = sum, n.tick
	}
	if n.tick-w.sentAt < digestEvery {
		return nil, false
	}
	w.sentAt = n.tick
	return appendDigest(w.buf[:0], digest{tick: n.tick, sum: w.sum, still: n.tick - w.changed}), true
}

// Agreement is how far a peer's world agreed with this machine's, bit for
// bit, by the digests the peer sent. Ticks are the host's: on the host
// its own when a guest's digest arrived, on a guest the host's digest's.
type Agreement struct {
	// Reports counts the peer's digests compared with this machine's
	// world, Agreed those that matched it bit for bit.
	Reports, Agreed uint64
	// Agrees: the newest digest matched.
	Agrees bool
	// Since is the host's tick from which the digests have matched
	// without a break (when Agrees), and Rested how many steps the
	// host's world had gone unchanged by then: the bits agreed at most
	// Rested steps after the host's world came to rest.
	Since, Rested Tick
	// Last is the host's tick of the newest digest.
	Last Tick
}

// note counts one digest: same says whether it matched, at the host's
// tick at, whose world had then gone unchanged for still steps.
func (a *Agreement) note(same bool, at, still Tick) {
	a.Reports++
	a.Last = at
	if !same {
		a.Agrees = false
		return
	}
	a.Agreed++
	if !a.Agrees {
		a.Agrees, a.Since, a.Rested = true, at, still
	}
}

// hearDigest compares a guest's digest with the host's world as its last
// Update left it (the sum digest keeps): a peer's datagram costs no hash
// of the world, however many it sends.
func (h *Host) hearDigest(p Player, datagram []byte) error {
	d, err := parseDigest(datagram)
	if err != nil {
		h.stats.Malformed++
		return err
	}
	h.agree[p].note(d.sum == h.watch.sum, h.tick, h.tick-h.watch.changed)
	return nil
}

// Agreement is how far the world of the guest in slot agreed with the
// host's, from its digests, in its latest stay in the seat (the last
// match's, after it left).
func (h *Host) Agreement(slot int) Agreement {
	p, ok := seat(slot)
	if !ok {
		return Agreement{}
	}
	return h.agree[p]
}

// hearDigest compares the host's digest with this guest's world as its
// last Update left it.
func (g *Guest) hearDigest(datagram []byte) error {
	d, err := parseDigest(datagram)
	if err != nil {
		g.stats.Malformed++
		return err
	}
	g.agree.note(d.sum == g.watch.sum, d.tick, d.still)
	return nil
}

// Agreement is how far this guest's world agreed with the host's, from
// the host's digests.
func (g *Guest) Agreement() Agreement { return g.agree }
