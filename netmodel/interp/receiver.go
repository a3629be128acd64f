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
	ring      [Ring]recvEntry
	newest    Number
	any       bool
}

type recvEntry struct {
	n     Number
	valid bool
	snap  snapshot.Snapshot
}

// NewReceiver returns a receiver of snapshots of cubes objects, one every
// interval ticks, coded by codec (its Simulator, if any, this end's own)
// in packets of at most maxPacket bytes.
func NewReceiver(codec snapshot.Codec, interval, cubes, maxPacket int) (*Receiver, error) {
	if interval < 1 || interval > 60 || cubes < 1 || maxPacket < HeaderBytes {
		return nil, fmt.Errorf("interp: receiver of %d cubes every %d ticks in %d bytes: %w", cubes, interval, maxPacket, ErrConfig)
	}
	r := &Receiver{codec: codec, interval: interval, maxPacket: maxPacket}
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
	var ref snapshot.Reference
	if h.BaseAge > 0 {
		base := n - Number(h.BaseAge)
		if ref.Base = r.At(base); ref.Base == nil {
			return n, nil, fmt.Errorf("%w: snapshot %d", ErrNoBaseline, base)
		}
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
	if err := r.codec.Decode(packet[HeaderBytes:], &e.snap, ref); err != nil {
		return n, nil, fmt.Errorf("interp: snapshot %d: %w", n, err)
	}
	e.n, e.valid = n, true
	if !r.any || n > r.newest {
		r.newest, r.any = n, true
	}
	return n, &e.snap, nil
}
