package predict

import (
	"fmt"

	"github.com/netphys/netphys/wire"
)

// bodyCodes holds the bits of each body of one frame, coded the first
// time a client's state packet needs them and copied into the others':
// every client of a tick is sent the same bodies, and coding one
// (quantizing its floats again, checking its rotation) costs several
// times more than writing its bits. A body's bits do not depend on where
// in the packet they go, so the copy is bit for bit what coding it again
// writes.
type bodyCodes struct {
	version uint64 // the frame's version the codes are of; 0: none
	done    []bool
	codes   []bitRecorder
}

func newBodyCodes(bodies int) bodyCodes {
	return bodyCodes{done: make([]bool, bodies), codes: make([]bitRecorder, bodies)}
}

// of makes the codes those of the frame of version v, forgetting any of
// another.
func (c *bodyCodes) of(v uint64) {
	if c.version != v {
		c.version = v
		clear(c.done)
	}
}

// write writes body i, whose state is b, to s: its recorded bits, or b
// coded (and recorded) if this frame's have not been yet.
func (c *bodyCodes) write(s wire.Stream, spec wire.StateSpec, i int, b *wire.BodyState) error {
	r := &c.codes[i]
	if !c.done[i] {
		r.chunks, r.open = r.chunks[:0], false
		if err := b.Serialize(r, spec); err != nil {
			return err
		}
		c.done[i] = true
	}
	return r.replay(s)
}

// bitRecorder is a writing Stream that keeps what it is given, in order,
// to be written again to another stream. Neighbouring values that fit
// together in 56 bits, the most a Writer stores at once, share a chunk:
// a Writer writes the low bits first, so v then w is v | w<<n.
type bitRecorder struct {
	chunks []bitChunk
	open   bool // the last chunk may take more bits
}

type bitChunk struct {
	v uint64
	n int
}

// maxChunk is the most bits a chunk gathers.
const maxChunk = 56

func (r *bitRecorder) Mode() wire.Mode { return wire.Writing }

func (r *bitRecorder) Bits(v uint64, n int) (uint64, error) {
	// A value that does not fit is recorded alone, so that the stream it
	// is written to refuses it as it would have.
	fits := n >= 1 && n <= maxChunk && v>>n == 0
	if k := len(r.chunks) - 1; fits && r.open && r.chunks[k].n+n <= maxChunk {
		r.chunks[k].v |= v << r.chunks[k].n
		r.chunks[k].n += n
		return v, nil
	}
	r.chunks = append(r.chunks, bitChunk{v, n})
	r.open = fits
	return v, nil
}

// Align is refused: where the next byte starts depends on what came
// before the recorded bits.
func (r *bitRecorder) Align() error {
	return fmt.Errorf("predict: a body's coding aligns to a byte: %w", wire.ErrConfig)
}

// replay writes the recorded values to s.
func (r *bitRecorder) replay(s wire.Stream) error {
	for _, c := range r.chunks {
		if _, err := s.Bits(c.v, c.n); err != nil {
			return err
		}
	}
	return nil
}
