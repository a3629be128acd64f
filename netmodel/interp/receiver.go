package interp

import (
	"fmt"

	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// Receiver decodes a peer's snapshot packets against the snapshots it
// decoded before, and keeps the last Ring of them: the baselines the
// sender may name, and the interpolation buffer's contents.
//
// Every packet the transport accepted is acknowledged, so every packet
// that decodes is kept as a baseline, also one older than the newest:
// the sender may code against it once the ack arrives.
type Receiver struct {
	codec     snapshot.Codec
	interval  int
	maxPacket int
	objects   int
	ring      [Ring]recvEntry
	newest    Number
	any       bool
	sec       ResetSection // the last packet's, storage for objects entries
}

type recvEntry struct {
	n     Number
	valid bool
	snap  snapshot.Snapshot
	// reset[i] is the tick of object i's last reset, noReset if none in
	// the last Ring snapshots; empty: no object's.
	reset []int64
}

// NewReceiver returns a receiver of snapshots of cubes objects, one every
// interval ticks, coded by codec (its Simulator, if any, this end's own)
// in packets of at most maxPacket bytes.
func NewReceiver(codec snapshot.Codec, interval, cubes, maxPacket int) (*Receiver, error) {
	if interval < 1 || interval > 60 || cubes < 1 || maxPacket < HeaderBytes {
		return nil, fmt.Errorf("interp: receiver of %d cubes every %d ticks in %d bytes: %w", cubes, interval, maxPacket, ErrConfig)
	}
	r := &Receiver{codec: codec, interval: interval, maxPacket: maxPacket, objects: cubes,
		sec: ResetSection{Resets: make([]Reset, 0, cubes)}}
	for i := range r.ring {
		r.ring[i].snap.Cubes = make([]snapshot.Cube, cubes)
	}
	return r, nil
}

// Newest returns the newest snapshot number decoded, if any.
func (r *Receiver) Newest() (Number, bool) { return r.newest, r.any }

// At returns snapshot n if the ring holds it. It stays valid until a
// packet Ring snapshots newer is decoded.
func (r *Receiver) At(n Number) *snapshot.Snapshot {
	e := &r.ring[ringIndex(n)]
	if !e.valid || e.n != n {
		return nil
	}
	return &e.snap
}

// Resets returns, for snapshot n if the ring holds it, the tick of each
// object's last reset (math.MinInt64: none in the last Ring snapshots),
// or an empty slice when no object of it reset. It stays valid as At's snapshot.
func (r *Receiver) Resets(n Number) []int64 {
	e := &r.ring[ringIndex(n)]
	if !e.valid || e.n != n {
		return nil
	}
	return e.reset
}

// Section returns the reset section of the last packet decoded (empty
// without one), valid until the next Decode.
func (r *Receiver) Section() *ResetSection { return &r.sec }

// Peek reads a packet's header and the snapshot number it restores to,
// without decoding: a caller can refuse a number before paying for it.
func (r *Receiver) Peek(packet []byte) (Header, Number, error) {
	var h Header
	if len(packet) > r.maxPacket {
		return h, 0, fmt.Errorf("%w: %d bytes", ErrTooLarge, len(packet))
	}
	if err := h.Serialize(wire.NewReader(packet[:min(len(packet), HeaderBytes)])); err != nil {
		return h, 0, err
	}
	if !r.any {
		return h, Number(h.Seq), nil
	}
	return h, unwrap(h.Seq, r.newest), nil
}

// Decode decodes a packet and returns its number and snapshot (owned by
// the receiver). The packet is dropped with an error if it names a
// baseline the receiver does not hold or its slot already holds a newer
// snapshot.
func (r *Receiver) Decode(packet []byte) (Number, *snapshot.Snapshot, error) {
	h, n, err := r.Peek(packet)
	if err != nil {
		return 0, nil, err
	}
	body := HeaderBytes
	r.sec.Resets = r.sec.Resets[:0]
	if h.Resets {
		// With a Base, the section holds the resets after it.
		maxAge := Ring*r.interval - 1
		if h.BaseAge > 0 {
			maxAge = h.BaseAge*r.interval - 1
		}
		rd := wire.NewReader(packet[HeaderBytes:])
		if err := r.sec.Serialize(rd, r.objects, maxAge); err != nil {
			r.sec.Resets = r.sec.Resets[:0]
			return n, nil, fmt.Errorf("interp: snapshot %d: %w", n, err)
		}
		body += rd.BitsRead() / 8
	}
	var ref snapshot.Reference
	var baseReset []int64
	if h.BaseAge > 0 {
		base := n - Number(h.BaseAge)
		if ref.Base = r.At(base); ref.Base == nil {
			return n, nil, fmt.Errorf("%w: snapshot %d", ErrNoBaseline, base)
		}
		baseReset = r.Resets(base)
		ref.BaseAge = h.BaseAge * r.interval
		if h.PrevAge > 0 {
			prev := base - Number(h.PrevAge)
			if ref.Prev = r.At(prev); ref.Prev == nil {
				return n, nil, fmt.Errorf("%w: snapshot %d", ErrNoBaseline, prev)
			}
			ref.PrevAge = h.PrevAge * r.interval
		}
	}
	e := &r.ring[ringIndex(n)]
	if e.valid && e.n >= n {
		return n, nil, fmt.Errorf("%w: snapshot %d, slot holds %d", ErrStale, n, e.n)
	}
	// The slot cannot be a baseline of this very packet: ages are below
	// Ring. A failed decode leaves it empty.
	e.valid = false
	if err := r.codec.Decode(packet[body:], &e.snap, ref); err != nil {
		return n, nil, fmt.Errorf("interp: snapshot %d: %w", n, err)
	}
	e.n, e.valid = n, true
	r.applyResets(e, n, baseReset)
	if !r.any || n > r.newest {
		r.newest, r.any = n, true
	}
	return n, &e.snap, nil
}

// applyResets sets e's reset ticks: its Base's (none without one) and the
// packet's section.
func (r *Receiver) applyResets(e *recvEntry, n Number, base []int64) {
	if len(base) == 0 && len(r.sec.Resets) == 0 {
		e.reset = e.reset[:0]
		return
	}
	if cap(e.reset) < r.objects {
		e.reset = make([]int64, r.objects) // once per slot, sized by the scene
	}
	e.reset = e.reset[:r.objects]
	if len(base) != 0 {
		copy(e.reset, base)
	} else {
		for i := range e.reset {
			e.reset[i] = noReset
		}
	}
	tick := int64(n) * int64(r.interval)
	for _, x := range r.sec.Resets {
		e.reset[x.Object] = tick - int64(x.Age)
	}
}
