package interp

import (
	"fmt"

	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// Encoder codes a server's snapshots for each of its peers, against the
// baselines that peer acknowledged. Every peer decodes the same quantized
// snapshot n, so the Encoder keeps one history of them for all peers, and
// peers with the same baselines (most of them, on similar links) share one
// encoding: the body is coded once per distinct (Base, Prev) pair and
// snapshot. The Prev candidates are coded in full rather than measured,
// so the one kept costs nothing more.
//
//	e.Begin(n, &truth)                     // once per snapshot
//	for each peer p {
//		pkt, _ := e.Encode(&p.baselines, buf)  // header + body
//		seq, datagrams, _ := p.endpoint.SendPacket(now, pkt)
//		p.baselines.Sent(seq, n)
//	}
//	... on the peer's acks: p.baselines.Acked(seq)
type Encoder struct {
	codec    snapshot.Codec
	interval int
	hist     [Ring]histEntry
	inputs   []uint32 // by tick modulo len: the input each tick applied
	spans    []int

	n     Number
	truth *snapshot.Snapshot // the snapshot of Begin, its Inputs set per reference
	codes map[pairKey][]byte
	buf   []byte

	resets resetLog
	sec    ResetSection

	counters EncoderCounters
}

// EncoderCounters count the Encoder's work, to show what sharing saves.
type EncoderCounters struct {
	Snapshots uint64 // Begin calls
	Packets   uint64 // Encode calls
	Encodings uint64 // bodies coded, Prev candidates included (the rest were shared)
}

type histEntry struct {
	n     Number
	valid bool
	snap  snapshot.Snapshot
}

// pairKey names a reference: its Base and Prev numbers (-1: none).
type pairKey struct{ base, prev Number }

// PrevSpans are the shortest spans, in ticks, from Base back to the Prev
// candidates of a codec that reads Prev (stage 9): the acknowledged
// snapshot nearest to each span behind Base is measured (Codec.Size) and
// the smallest encoding kept, its age named in the header, so the receiver
// needs no rule of its own. Two snapshots close together carry a fresh
// velocity but amplify their quantization error when extrapolated far;
// which wins changes from packet to packet. On the compression report's
// minute at 60 pps (BaseAge 6), a fixed span of 2 ticks coded 116.4 bytes
// per snapshot, the best of these 114.5. A codec with a Simulator, which
// predicts best from the freshest velocities, takes the first only.
var PrevSpans = []int{1, 2, 3, 4, 6}

// NewEncoder returns an encoder for codec's snapshots, one every interval
// ticks.
func NewEncoder(codec snapshot.Codec, interval int, maxPacket int) (*Encoder, error) {
	if interval < 1 || interval > 60 {
		return nil, fmt.Errorf("interp: %d ticks per snapshot: %w", interval, ErrConfig)
	}
	spans := PrevSpans
	if !codec.UsesPrev() || codec.Simulator != nil {
		spans = spans[:1]
	}
	return &Encoder{
		codec:    codec,
		interval: interval,
		inputs:   make([]uint32, Ring*interval),
		spans:    spans,
		n:        -1,
		codes:    map[pairKey][]byte{},
		buf:      make([]byte, maxPacket),
	}, nil
}

// SetInput records the input the game applied at tick (for a codec whose
// Simulator replays them).
func (e *Encoder) SetInput(tick int64, in uint32) {
	e.inputs[int(uint64(tick)%uint64(len(e.inputs)))] = in
}

// Reset records that object jumped (Resetter) at tick, at or before the
// next snapshot's: packets tell receivers not to interpolate it across.
func (e *Encoder) Reset(object int, tick int64) { e.resets.add(object, tick) }

// Begin starts snapshot n, the state after tick n·interval: it keeps the
// quantized snapshot (what every peer decodes) as a future baseline. truth
// must stay unchanged until the next Begin. Numbers must increase.
func (e *Encoder) Begin(n Number, truth *snapshot.Snapshot) error {
	if n <= e.n {
		return fmt.Errorf("interp: snapshot %d after %d: %w", n, e.n, ErrConfig)
	}
	q, err := e.codec.Quantize(truth)
	if err != nil {
		return err
	}
	e.hist[ringIndex(n)] = histEntry{n: n, valid: true, snap: q}
	e.n, e.truth = n, truth
	e.resets.prune(e.tick(n) - int64(Ring*e.interval))
	clear(e.codes)
	e.counters.Snapshots++
	return nil
}

// Sent returns the quantized snapshot n as every peer decodes it, if the
// history still holds it: the sender's side of the bit-exact check.
func (e *Encoder) Sent(n Number) *snapshot.Snapshot { return e.at(n) }

func (e *Encoder) at(n Number) *snapshot.Snapshot {
	h := &e.hist[ringIndex(n)]
	if !h.valid || h.n != n {
		return nil
	}
	return &h.snap
}

// Counters returns the encoder's work counts.
func (e *Encoder) Counters() EncoderCounters { return e.counters }

// Encode codes the current snapshot for the peer whose acknowledgements b
// holds and returns the packet (header and body), written into buf. A
// buffer too small is wire.ErrOverflow.
func (e *Encoder) Encode(b *Baselines, buf []byte) ([]byte, error) {
	if e.truth == nil {
		return nil, fmt.Errorf("interp: Encode before Begin: %w", ErrConfig)
	}
	e.counters.Packets++
	key, err := e.choose(b)
	if err != nil {
		return nil, err
	}
	body, err := e.body(key)
	if err != nil {
		return nil, err
	}
	h := Header{Seq: Seq(e.n)}
	since, maxAge := e.tick(e.n)-int64(Ring*e.interval), Ring*e.interval-1
	if key.base >= 0 {
		h.BaseAge = int(e.n - key.base)
		if key.prev >= 0 {
			h.PrevAge = int(key.base - key.prev)
		}
		since, maxAge = e.tick(key.base), h.BaseAge*e.interval-1
	}
	e.resets.since(&e.sec, since, e.tick(e.n))
	h.Resets = len(e.sec.Resets) > 0
	w := wire.NewWriter(buf)
	if err := h.Serialize(w); err != nil {
		return nil, err
	}
	if h.Resets {
		if err := e.sec.Serialize(w, len(e.truth.Cubes), maxAge); err != nil {
			return nil, err
		}
	}
	out := w.Bytes()
	if len(out)+len(body) > len(buf) {
		return nil, fmt.Errorf("interp: %d-byte packet: %w", len(out)+len(body), wire.ErrOverflow)
	}
	return append(out, body...), nil
}

// reference returns the codec reference key names, and sets the
// snapshot's Inputs to those of the ticks after its Base.
func (e *Encoder) reference(key pairKey) snapshot.Reference {
	var ref snapshot.Reference
	e.truth.Inputs = e.truth.Inputs[:0]
	if key.base < 0 {
		return ref
	}
	ref.Base, ref.BaseAge = e.at(key.base), int(e.n-key.base)*e.interval
	if key.prev >= 0 {
		ref.Prev, ref.PrevAge = e.at(key.prev), int(key.base-key.prev)*e.interval
	}
	for t := int64(key.base)*int64(e.interval) + 1; t <= int64(e.n)*int64(e.interval); t++ {
		e.truth.Inputs = append(e.truth.Inputs, e.inputs[int(uint64(t)%uint64(len(e.inputs)))])
	}
	return ref
}

// choose picks the reference for the peer: Base is its newest
// acknowledged snapshot, Prev the candidate that codes smallest.
func (e *Encoder) choose(b *Baselines) (pairKey, error) {
	none := pairKey{-1, -1}
	base, ok := b.newest()
	if !ok || e.n-base >= Ring || e.at(base) == nil {
		return none, nil
	}
	best, bestSize, last := pairKey{base, -1}, -1, Number(-1)
	for _, span := range e.spans {
		prev := base - Number((span+e.interval-1)/e.interval)
		for e.n-prev < Ring && !(b.acked(prev) && e.at(prev) != nil) {
			prev--
		}
		if e.n-prev >= Ring || prev == last {
			continue // none, or the candidate just measured
		}
		last = prev
		key := pairKey{base, prev}
		if len(e.spans) == 1 {
			return key, nil
		}
		body, err := e.body(key)
		if err != nil {
			return none, err
		}
		if bestSize < 0 || len(body) < bestSize {
			best, bestSize = key, len(body)
		}
	}
	return best, nil
}

// body returns the current snapshot coded against key, from the cache
// when a peer with the same baselines already had it coded.
func (e *Encoder) body(key pairKey) ([]byte, error) {
	if b, ok := e.codes[key]; ok {
		return b, nil
	}
	b, err := e.codec.Encode(e.buf, e.truth, e.reference(key))
	if err != nil {
		return nil, fmt.Errorf("interp: %v: %w", e.codec.Stage, err)
	}
	b = append([]byte(nil), b...)
	e.codes[key] = b
	e.counters.Encodings++
	return b, nil
}

// sentRing remembers the snapshot each of a peer's recent packets carried,
// for its acks: reliable.io acks reach 33 packets back, and the endpoint
// reports a sequence only once and only while its own 256-entry buffer
// remembers it.
const sentRing = 1024

// Baselines are what one peer is known to hold: the snapshots its acks
// confirmed. Only snapshots recorded with Sent can become baselines, so
// no ack, forged or stale, makes the sender code against a snapshot it
// did not send to this peer.
type Baselines struct {
	sent    [sentRing]sentPacket
	ack     [Ring]Number // ack[ringIndex(n)] == n+1: snapshot n acknowledged
	newestN Number       // newest acknowledged, valid when has
	has     bool
}

type sentPacket struct {
	seq   reliable.Sequence
	n     Number
	valid bool
}

// Sent records that the packet of sequence seq carried snapshot n.
func (b *Baselines) Sent(seq reliable.Sequence, n Number) {
	b.sent[int(seq)%sentRing] = sentPacket{seq: seq, n: n, valid: true}
}

// Acked takes one of the endpoint's acks (reliable.Endpoint.Acks) and
// reports the snapshot it confirms, if the packet carried one.
func (b *Baselines) Acked(seq reliable.Sequence) (Number, bool) {
	p := &b.sent[int(seq)%sentRing]
	if !p.valid || p.seq != seq {
		return 0, false
	}
	p.valid = false
	b.ack[ringIndex(p.n)] = p.n + 1
	if !b.has || p.n > b.newestN {
		b.newestN, b.has = p.n, true
	}
	return p.n, true
}

func (b *Baselines) acked(n Number) bool { return b.ack[ringIndex(n)] == n+1 }

func (b *Baselines) newest() (Number, bool) { return b.newestN, b.has }

// Reset forgets everything: a new peer in the slot.
func (b *Baselines) Reset() { *b = Baselines{} }

func (e *Encoder) tick(n Number) int64 { return int64(n) * int64(e.interval) }

// Stage returns the codec's stage.
func (e *Encoder) Stage() snapshot.Stage { return e.codec.Stage }
