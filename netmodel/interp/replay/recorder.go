package replay

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// Recorder writes a snapshot replay: the header, then each snapshot as
// it is taken, coded by an interp.Encoder against the snapshots before it
// as a peer that acknowledged every one of them would get it (a file
// loses nothing), a keyframe every Header.KeyEvery. It is a plain value
// stepped by its caller; the first write error stops the recording and
// is returned by Err and Close. Give it a buffered writer: it writes
// each snapshot as one block.
type Recorder struct {
	w       io.Writer
	h       Header
	enc     *interp.Encoder
	base    interp.Baselines
	truth   snapshot.Snapshot
	pkt     []byte
	buf     []byte
	last    interp.Number // the last snapshot recorded, -1 before
	key     interp.Number // the last keyframe
	count   int
	written int64
	err     error
}

// NewRecorder writes h to w and returns the recorder of its snapshots.
func NewRecorder(w io.Writer, h Header) (*Recorder, error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	enc, err := interp.NewEncoder(h.SnapshotCodec(), h.Interval, MaxPacket)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrHeader, err)
	}
	r := &Recorder{w: w, h: h, enc: enc, last: -1, pkt: make([]byte, MaxPacket),
		truth: snapshot.Snapshot{Cubes: make([]snapshot.Cube, h.Objects)}}
	if err := r.write(append([]byte(Magic), Version)); err != nil {
		return nil, err
	}
	if err := r.writeBlock(h.Serialize); err != nil {
		return nil, err
	}
	return r, nil
}

// Header returns the recording's header.
func (r *Recorder) Header() Header { return r.h }

// Snapshots is the number of snapshots recorded.
func (r *Recorder) Snapshots() int { return r.count }

// Bytes is the number of bytes written.
func (r *Recorder) Bytes() int64 { return r.written }

// Err returns the error that stopped the recording, if any.
func (r *Recorder) Err() error { return r.err }

// Close ends the recording and returns its error, if any. The file ends
// after its last snapshot; Close writes nothing more.
func (r *Recorder) Close() error { return r.err }

// Record appends snapshot n, the state after tick n·Interval (numbers
// increase; a gap is a snapshot the server did not take). Positions
// outside the codec's bounds are clamped to them, as the server sends
// them.
func (r *Recorder) Record(n interp.Number, s *snapshot.Snapshot) error {
	if r.err != nil {
		return r.err
	}
	if len(s.Cubes) != r.h.Objects || n <= r.last || n >= maxNumber {
		r.err = fmt.Errorf("%w: snapshot %d of %d objects after %d, the header's %d objects", ErrRecord, n, len(s.Cubes), r.last, r.h.Objects)
		return r.err
	}
	b := r.h.Codec.Position
	for i, c := range s.Cubes {
		c.Position = b.Clamp(c.Position)
		r.truth.Cubes[i] = c
	}
	if err := r.enc.Begin(n, &r.truth); err != nil {
		r.err = fmt.Errorf("%w: snapshot %d: %w", ErrRecord, n, err)
		return r.err
	}
	if r.last < 0 || n-r.key >= interp.Number(r.h.KeyEvery) {
		r.base.Reset() // a keyframe: coded whole
		r.key = n
	}
	pkt, err := r.enc.Encode(&r.base, r.pkt)
	if err != nil {
		r.err = fmt.Errorf("%w: snapshot %d: %w", ErrRecord, n, err)
		return r.err
	}
	seq := reliable.Sequence(n)
	r.base.Sent(seq, n)
	r.base.Acked(seq)
	rec := record{n: n, sum: Checksum(r.enc.Sent(n)), packet: pkt}
	if err := r.writeBlock(rec.serialize); err != nil {
		return err
	}
	r.last = n
	r.count++
	return nil
}

// reset records that object jumped at tick (interp.Resetter): the
// snapshots after it tell the player not to interpolate across.
func (r *Recorder) reset(object int, tick int64) { r.enc.Reset(object, tick) }

func (r *Recorder) writeBlock(f func(wire.Stream) error) error {
	var m wire.Measurer
	if err := f(&m); err != nil {
		r.err = fmt.Errorf("%w: %w", ErrRecord, err)
		return r.err
	}
	n := m.Bytes()
	if n > MaxBlock {
		r.err = fmt.Errorf("%w: a block of %d bytes, beyond %d", ErrRecord, n, MaxBlock)
		return r.err
	}
	if cap(r.buf) < n+binary.MaxVarintLen64 {
		r.buf = make([]byte, 0, n+binary.MaxVarintLen64)
	}
	b := binary.AppendUvarint(r.buf[:0], uint64(n))
	wr := wire.NewWriter(b[len(b) : len(b)+n])
	if err := f(wr); err != nil {
		r.err = fmt.Errorf("%w: %w", ErrRecord, err)
		return r.err
	}
	return r.write(b[:len(b)+n])
}

func (r *Recorder) write(b []byte) error {
	n, err := r.w.Write(b)
	r.written += int64(n)
	if err != nil {
		r.err = fmt.Errorf("%w: %w", ErrRecord, err)
	}
	return r.err
}

// Wrap returns g recording every snapshot a Server (or a Tap) captures
// of it: its Steps are counted as ticks, and a Capture at a multiple of
// the header's Interval is snapshot tick/Interval. A Resetter stays one,
// its resets recorded too. A failed recording does not stop the game:
// see Err.
func (r *Recorder) Wrap(g interp.Game) interp.Game {
	w := &recorded{g: g, r: r}
	if rs, ok := g.(interp.Resetter); ok {
		return &recordedResets{w, rs}
	}
	return w
}

type recorded struct {
	g    interp.Game
	r    *Recorder
	tick int64
}

func (w *recorded) Objects() int { return w.g.Objects() }

func (w *recorded) Step() uint32 {
	w.tick++
	return w.g.Step()
}

func (w *recorded) Capture(dst []snapshot.Cube) {
	w.g.Capture(dst)
	if iv := int64(w.r.h.Interval); w.tick%iv == 0 {
		w.r.Record(interp.Number(w.tick/iv), &snapshot.Snapshot{Cubes: dst})
	}
}

type recordedResets struct {
	*recorded
	rs interp.Resetter
}

func (w *recordedResets) Resets(dst []bool) {
	w.rs.Resets(dst)
	for i, m := range dst {
		if m {
			w.r.reset(i, w.tick)
		}
	}
}
