package replay

import (
	"fmt"
	"io"
	"math"

	"github.com/netphys/netphys/netmodel/internal/replayfile"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/wire"
)

// Recorder writes a replay: the header, then every tick's inputs and
// checksums in chunks of ChunkTicks, as they become final. It is a plain
// value stepped by its caller: no goroutine, no clock. Writes go to w
// from Record (or the wrapped game's Step) once per chunk, ~4 s of a
// 60 Hz match; the first write error stops the recording and is returned
// by Err and Close.
//
// Two ways to feed it:
//   - Wrap the game the session steps (the server's referee, or a
//     client's game): every Step is recorded, with its checksum.
//   - Call Record once per confirmed tick with the inputs and checksum.
type Recorder[I comparable, P lockstep.Input[I]] struct {
	w      *replayfile.Writer
	h      Header
	hold   int           // ticks kept unwritten: a rollback may undo them
	first  lockstep.Tick // the first tick not yet written
	next   lockstep.Tick // the next tick to record
	inputs []I           // ticks [first, next), players each
	sums   []uint32      // the checksums of the multiples of SumEvery among them
	err    error
	closed bool
}

// NewRecorder writes h to w and returns the recorder of its ticks. The
// first tick recorded is tick 0.
func NewRecorder[I comparable, P lockstep.Input[I]](w io.Writer, h Header) (*Recorder[I, P], error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	fw, err := replayfile.Create(w, format, h.Serialize)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRecord, err)
	}
	return &Recorder[I, P]{w: fw, h: h, hold: h.Rollback}, nil
}

// Header returns the recording's header.
func (r *Recorder[I, P]) Header() Header { return r.h }

// Ticks is the number of ticks recorded so far (some perhaps not yet
// written).
func (r *Recorder[I, P]) Ticks() lockstep.Tick { return r.next }

// Bytes is the number of bytes written so far.
func (r *Recorder[I, P]) Bytes() int64 { return r.w.Written() }

// Err returns the error that stopped the recording, if any.
func (r *Recorder[I, P]) Err() error { return r.err }

// Record appends tick Ticks(): inputs[p] is player p's input, sum the
// game's checksum after the tick (only its low 32 bits are kept, and
// only when the tick is a multiple of Header.SumEvery; pass anything
// otherwise).
func (r *Recorder[I, P]) Record(inputs []I, sum uint64) {
	if r.err != nil || r.closed {
		return
	}
	if len(inputs) != r.h.Players {
		r.err = fmt.Errorf("%w: tick %d has %d inputs, the header %d players", ErrRecord, r.next, len(inputs), r.h.Players)
		return
	}
	if r.next == math.MaxInt32 {
		r.err = fmt.Errorf("%w: the recording is full at tick %d", ErrRecord, r.next)
		return
	}
	r.inputs = append(r.inputs, inputs...)
	if r.next%r.h.SumEvery == 0 {
		r.sums = append(r.sums, uint32(sum))
	}
	r.next++
	for r.err == nil && int(r.next-r.first)-r.hold >= ChunkTicks {
		r.err = r.writeTicks(ChunkTicks)
	}
}

// NeedsSum reports whether the next tick recorded keeps a checksum.
func (r *Recorder[I, P]) NeedsSum() bool { return r.next%r.h.SumEvery == 0 }

// rewind forgets the ticks from t on: a rollback to the state before t.
func (r *Recorder[I, P]) rewind(t lockstep.Tick) {
	if r.err != nil || t >= r.next {
		return
	}
	if t < r.first {
		r.err = fmt.Errorf("%w: a rollback to tick %d, before the %d ticks already written: Header.Rollback (%d) must be at least the session's Config.Rollback", ErrRecord, t, r.first, r.h.Rollback)
		return
	}
	r.inputs = r.inputs[:int(t-r.first)*r.h.Players]
	r.sums = r.sums[:multiples(r.first, t, r.h.SumEvery)]
	r.next = t
}

// multiples counts the multiples of e in [a, b), 0 ≤ a ≤ b.
func multiples(a, b, e lockstep.Tick) int {
	return int((b+e-1)/e - (a+e-1)/e)
}

// writeTicks writes the first n unwritten ticks as one chunk.
func (r *Recorder[I, P]) writeTicks(n int) error {
	last := r.first + lockstep.Tick(n)
	m := multiples(r.first, last, r.h.SumEvery)
	c := ticks[I, P]{first: r.first, players: r.h.Players, inputs: r.inputs[:n*r.h.Players], sums: r.sums[:m]}
	err := r.writeStream(func(s wire.Stream) error {
		kind := uint8(kindTicks)
		if err := wire.SerializeBits(s, &kind, 2); err != nil {
			return err
		}
		return c.serialize(s, r.h.SumEvery, math.MaxInt32)
	})
	if err != nil {
		return err
	}
	r.inputs = r.inputs[:copy(r.inputs, r.inputs[n*r.h.Players:])]
	r.sums = r.sums[:copy(r.sums, r.sums[m:])]
	r.first = last
	return nil
}

// WriteState writes a state into the replay, such as the one a desync
// names. The ticks recorded before it are written first, so a reader
// has the inputs that led to it.
func (r *Recorder[I, P]) WriteState(st *State) error {
	if r.err != nil {
		return r.err
	}
	if err := r.flush(r.next); err != nil {
		r.err = err
		return err
	}
	return r.writeStream(func(s wire.Stream) error {
		kind := uint8(kindState)
		if err := wire.SerializeBits(s, &kind, 2); err != nil {
			return err
		}
		return st.Serialize(s)
	})
}

// flush writes every recorded tick before end.
func (r *Recorder[I, P]) flush(end lockstep.Tick) error {
	for r.first < end {
		if err := r.writeTicks(int(min(end-r.first, ChunkTicks))); err != nil {
			return err
		}
	}
	return nil
}

// Close writes every tick recorded and stops; it does not close w. Use
// CloseAt for a rollback client whose newest ticks may be predicted.
func (r *Recorder[I, P]) Close() error { return r.CloseAt(r.next) }

// CloseAt forgets the ticks from end on (a rollback client's predicted
// ticks: end is the number of ticks whose inputs are all known), writes
// the others and stops.
func (r *Recorder[I, P]) CloseAt(end lockstep.Tick) error {
	if r.closed {
		return r.err
	}
	r.rewind(max(end, r.first))
	if r.err == nil {
		r.err = r.flush(r.next)
	}
	r.closed = true
	return r.err
}

// writeStream writes one block holding what f serializes.
func (r *Recorder[I, P]) writeStream(f func(wire.Stream) error) error {
	if err := r.w.Block(f); err != nil {
		return fmt.Errorf("%w: %w", ErrRecord, err)
	}
	return nil
}
