package replay

import (
	"fmt"
	"io"

	"github.com/netphys/netphys/netmodel/internal/replayfile"
	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/transport/reliable"
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
	w     *replayfile.Writer
	h     Header
	enc   *interp.Encoder
	base  interp.Baselines
	truth snapshot.Snapshot
	pkt   []byte
	last  interp.Number // the last snapshot recorded, -1 before
	key   interp.Number // the last keyframe
	count int
	err   error
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
	fw, err := replayfile.Create(w, format, h.Serialize)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRecord, err)
	}
	return &Recorder{w: fw, h: h, enc: enc, last: -1, pkt: make([]byte, MaxPacket),
		truth: snapshot.Snapshot{Cubes: make([]snapshot.Cube, h.Objects)}}, nil
}

// Header returns the recording's header.
func (r *Recorder) Header() Header { return r.h }

// Snapshots is the number of snapshots recorded.
func (r *Recorder) Snapshots() int { return r.count }

// Bytes is the number of bytes written.
func (r *Recorder) Bytes() int64 { return r.w.Written() }

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
	if err := r.w.Block(rec.serialize); err != nil {
		r.err = fmt.Errorf("%w: snapshot %d: %w", ErrRecord, n, err)
		return r.err
	}
	r.last = n
	r.count++
	return nil
}

// reset records that object jumped at tick (interp.Resetter): the
// snapshots after it tell the player not to interpolate across.
func (r *Recorder) reset(object int, tick int64) { r.enc.Reset(object, tick) }

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
