package compression

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// ring is how many ticks of snapshots each side keeps to code against. A
// baseline older than that is not used: the snapshot goes out whole.
const ring = 64

// headerBytes frames every snapshot packet: the ages of the baselines it
// was coded against (0: none) and, as a check, the low bits of the tick
// it was taken at. The tick itself travels as the reliable.io packet
// sequence: the sender sends exactly one packet per tick from tick 0, so
// tick ≡ sequence (mod 2¹⁶), and the receiver restores the rest from the
// newest tick it has seen (unwrapTick). The header is part of every row of
// the table; a 3-byte one that carried 12 bits of tick cost every row
// 0.48 kbps more.
//
//	+----------------+----------------+----------------------+
//	| base age (6)   | prev age (6)   | tick mod 16 (4 bits) |
//	+----------------+----------------+----------------------+
const headerBytes = 2

// tickBits is how much of the tick the packet sequence carries. A packet
// is placed right as long as it is less than 2^(tickBits-1) ticks (9 min)
// from the newest one seen, far beyond the ring of baselines it could be
// decoded against.
const tickBits = 16

// checkBits is how much of the tick the header repeats: a packet whose
// sequence does not match its tick is rejected instead of being decoded
// against the wrong baselines.
const checkBits = 4

var (
	errNoBaseline = errors.New("compression: baseline not held by the receiver")
	errTickCheck  = errors.New("compression: packet sequence does not match the tick")
)

type header struct {
	baseAge, prevAge int
	check            uint32 // tick mod 2^checkBits
}

func (h *header) serialize(s wire.Stream) error {
	if err := wire.SerializeInt(s, &h.baseAge, 0, ring-1); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &h.prevAge, 0, ring-1); err != nil {
		return err
	}
	return wire.SerializeBits(s, &h.check, checkBits)
}

// tickCheck returns the header's check bits for tick.
func tickCheck(tick int) uint32 { return uint32(tick) & (1<<checkBits - 1) }

// unwrapTick returns the tick congruent to low modulo 2^tickBits nearest
// to near.
func unwrapTick(low uint32, near int) int {
	const span = 1 << tickBits
	d := (int(low) - near) & (span - 1) // in [0, span)
	if d >= span/2 {
		d -= span
	}
	return near + d
}

// seqRing remembers the ticks of the last packets sent, for their acks.
const seqRing = 1024

type sentSeq struct {
	seq   reliable.Sequence
	tick  int
	valid bool
}

// slot is one tick's snapshot in a ring.
type slot struct {
	tick  int
	valid bool
	acked bool // sender side: the receiver acknowledged it
	snap  snapshot.Snapshot
}

// snapRing holds the last ring ticks' snapshots, indexed by tick.
type snapRing [ring]slot

func (r *snapRing) at(tick int) *snapshot.Snapshot {
	if tick < 0 {
		return nil
	}
	s := &r[tick%ring]
	if !s.valid || s.tick != tick {
		return nil
	}
	return &s.snap
}

// pipeline is one stage of the table: a sender and a receiver, each with a
// reliable endpoint, joined by their own simulated network.
type pipeline struct {
	codec     snapshot.Codec // the sender's
	recvCodec snapshot.Codec // the receiver's: the same but for its own Simulator
	net       *netsim.Sim

	sendEnd, recvEnd *reliable.Endpoint
	sent             snapRing         // quantized snapshots, as the receiver decodes them
	sentSeqs         [seqRing]sentSeq // which tick each recent packet carried
	ackedNewest      int              // newest tick whose snapshot was acked, -1 none
	ackedPrev        int              // the acked tick before it, -1 none

	received   snapRing
	newestSeen int // newest tick the receiver got a packet for

	buf, pkt []byte
	stats    stageStats
}

// The two ends' addresses on the simulated network.
var (
	senderAddr   = netip.MustParseAddrPort("127.0.0.1:1")
	receiverAddr = netip.MustParseAddrPort("127.0.0.1:2")
)

func newPipeline(stage snapshot.Stage, cfg Config, cubes int, start time.Time) (*pipeline, error) {
	sim, err := netsim.New(netsim.Config{Seed: cfg.Seed, Conditions: cfg.Conditions})
	if err != nil {
		return nil, err
	}
	rcfg := reliable.DefaultConfig()
	rcfg.MaxPacketSize = maxPacket
	rcfg.MaxFragments = maxPacket / rcfg.FragmentSize
	p := &pipeline{
		codec:       snapshot.Codec{Stage: stage, Config: cfg.Snapshot},
		recvCodec:   snapshot.Codec{Stage: stage, Config: cfg.Snapshot},
		net:         sim,
		ackedNewest: -1,
		buf:         make([]byte, maxPacket), pkt: make([]byte, maxPacket),
	}
	if stage == snapshot.RangeCoded {
		for _, c := range []*snapshot.Codec{&p.codec, &p.recvCodec} {
			if c.Simulator, err = scene.NewPredictor(scene.Cubes900, scene.DefaultConfig()); err != nil {
				return nil, err
			}
		}
	}
	if p.sendEnd, err = reliable.NewEndpoint(rcfg, start); err != nil {
		return nil, err
	}
	if p.recvEnd, err = reliable.NewEndpoint(rcfg, start); err != nil {
		return nil, err
	}
	for i := range p.received {
		p.received[i].snap.Cubes = make([]snapshot.Cube, cubes)
	}
	return p, nil
}

// maxPacket bounds one snapshot packet: the uncompressed stage needs
// 321 bits × 901 cubes ≈ 36 KB, sent in fragments.
const maxPacket = 48 * 1024

// reference returns what the receiver is known to hold to code truth, the
// snapshot of tick, against, and the header that names it. Base is the
// newest acknowledged snapshot. Prev, which stage 9 extrapolates from, is
// the acknowledged one that codes truth smallest among the newest ones at
// least each of prevSpans ticks behind Base; the codec measures each
// candidate (Codec.Size) and the header names the one chosen, so the
// receiver needs no rule of its own. For stages that ignore Prev
// (Codec.UsesPrev), and for stage 9 with its simulation, which predicts
// best from the freshest velocities, the first candidate is kept without
// measuring.
func (p *pipeline) reference(tick int, truth *snapshot.Snapshot) (snapshot.Reference, header, error) {
	h := header{check: tickCheck(tick)}
	var ref snapshot.Reference
	baseTick := p.ackedNewest
	base := p.sent.at(baseTick)
	if base == nil || tick-baseTick >= ring {
		return ref, h, nil
	}
	ref.Base, ref.BaseAge, h.baseAge = base, tick-baseTick, tick-baseTick
	spans := prevSpans[:]
	if p.codec.Simulator != nil {
		spans = spans[:1] // the freshest velocities simulate best
	}
	best := -1
	cand := ref
	for _, span := range spans {
		prevTick := baseTick - span
		for ; tick-prevTick < ring && prevTick >= 0; prevTick-- {
			if s := &p.sent[prevTick%ring]; s.valid && s.acked && s.tick == prevTick {
				break
			}
		}
		if tick-prevTick >= ring || prevTick < 0 || baseTick-prevTick == cand.PrevAge {
			continue // none, or the candidate just measured
		}
		cand.Prev, cand.PrevAge = &p.sent[prevTick%ring].snap, baseTick-prevTick
		if !p.codec.UsesPrev() || len(spans) == 1 {
			h.prevAge = cand.PrevAge
			return cand, h, nil
		}
		n, err := p.codec.Size(truth, cand)
		if err != nil {
			return ref, h, fmt.Errorf("compression: %v: %w", p.codec.Stage, err)
		}
		if best < 0 || n < best {
			best, ref, h.prevAge = n, cand, cand.PrevAge
		}
	}
	return ref, h, nil
}

// prevSpans are the shortest spans, in ticks, stage 9 tries extrapolating
// from in straight lines (with the simulation: 1 only). Two snapshots close together carry a fresh velocity but amplify
// their quantization error when extrapolated far; which wins changes from
// packet to packet. On the scripted minute (BaseAge 6) a fixed span of 2
// ticks coded 116.4 bytes per snapshot (4: +1 byte, 6: +2.5, 1: worse
// than 2); the best of 1, 2, 3, 4 and 6 codes 114.5.
var prevSpans = [...]int{1, 2, 3, 4, 6}

// send codes the true snapshot of tick and puts it on the network.
func (p *pipeline) send(now time.Time, tick int, truth *snapshot.Snapshot, inputs *[ring]uint32) error {
	ref, h, err := p.reference(tick, truth)
	if err != nil {
		return err
	}
	truth.Inputs = truth.Inputs[:0]
	for t := tick - ref.BaseAge + 1; t <= tick && ref.Base != nil; t++ {
		truth.Inputs = append(truth.Inputs, inputs[t%ring])
	}
	w := wire.NewWriter(p.pkt)
	if err := h.serialize(w); err != nil {
		return err
	}
	body, err := p.codec.Encode(p.buf, truth, ref)
	if err != nil {
		return fmt.Errorf("compression: %v: %w", p.codec.Stage, err)
	}
	packet := append(w.Bytes(), body...)
	q, err := p.codec.Quantize(truth)
	if err != nil {
		return err
	}
	p.sent[tick%ring] = slot{tick: tick, valid: true, snap: q}
	seq, datagrams, err := p.sendEnd.SendPacket(now, packet)
	if err != nil {
		return err
	}
	if uint32(seq) != uint32(tick)&(1<<tickBits-1) {
		return fmt.Errorf("%w: sequence %d sent at tick %d", errTickCheck, seq, tick)
	}
	p.sentSeqs[int(seq)%seqRing] = sentSeq{seq: seq, tick: tick, valid: true}
	bytes := 0
	for _, d := range datagrams {
		bytes += len(d) + udpIPv4Header
		p.net.Send(now, senderAddr, receiverAddr, d)
	}
	p.stats.addPacket(len(packet), bytes)
	return nil
}

// deliver runs the network up to now: snapshots into the receiver, acks
// back to the sender, and the receiver's ack packet for this tick.
func (p *pipeline) deliver(now time.Time, truth *snapRing) error {
	for _, pk := range p.net.Receive(now) {
		if pk.To == receiverAddr {
			seq, payload, err := p.recvEnd.ReceivePacket(now, pk.Data)
			if err == nil && payload != nil {
				if err := p.decode(seq, payload, truth); err != nil {
					return err
				}
			}
			continue
		}
		if _, _, err := p.sendEnd.ReceivePacket(now, pk.Data); err != nil {
			continue
		}
		for _, seq := range p.sendEnd.Acks() {
			if e := &p.sentSeqs[int(seq)%seqRing]; e.valid && e.seq == seq {
				p.acked(e.tick)
				e.valid = false
			}
		}
		p.sendEnd.ClearAcks()
	}
	_, datagrams, err := p.recvEnd.SendPacket(now, nil)
	if err != nil {
		return err
	}
	for _, d := range datagrams {
		p.net.Send(now, receiverAddr, senderAddr, d)
	}
	p.recvEnd.ClearAcks()
	p.sendEnd.Update(now)
	p.recvEnd.Update(now)
	return nil
}

func (p *pipeline) acked(tick int) {
	if s := &p.sent[tick%ring]; s.valid && s.tick == tick {
		s.acked = true
	}
	p.ackedNewest = max(p.ackedNewest, tick)
}

// decode decodes a snapshot packet, sent as packet sequence seq, against the receiver's own snapshots and
// measures it against the sender's true state at that tick.
func (p *pipeline) decode(seq reliable.Sequence, packet []byte, truth *snapRing) error {
	var h header
	r := wire.NewReader(packet[:min(len(packet), headerBytes)])
	if err := h.serialize(r); err != nil {
		return err
	}
	tick := unwrapTick(uint32(seq), p.newestSeen)
	if tick < 0 {
		return nil // from before the stream began: corrupt or stale
	}
	if h.check != tickCheck(tick) {
		return fmt.Errorf("%w: sequence %d, check bits %d", errTickCheck, seq, h.check)
	}
	p.newestSeen = max(p.newestSeen, tick)
	var ref snapshot.Reference
	if h.baseAge > 0 {
		ref.Base, ref.BaseAge = p.received.at(tick-h.baseAge), h.baseAge
		if ref.Base == nil {
			return fmt.Errorf("%w: tick %d", errNoBaseline, tick-h.baseAge)
		}
		if h.prevAge > 0 {
			ref.Prev, ref.PrevAge = p.received.at(tick-h.baseAge-h.prevAge), h.prevAge
			if ref.Prev == nil {
				return fmt.Errorf("%w: tick %d", errNoBaseline, tick-h.baseAge-h.prevAge)
			}
		}
	}
	s := &p.received[tick%ring]
	if s.valid && s.tick > tick {
		return nil // older than what this slot holds: stale
	}
	// Decode into a slot that may be a baseline of this very packet only
	// when the ring wrapped, which the ring bound on ages rules out.
	s.valid = false
	if err := p.recvCodec.Decode(packet[headerBytes:], &s.snap, ref); err != nil {
		return fmt.Errorf("compression: %v: tick %d: %w", p.codec.Stage, tick, err)
	}
	s.tick, s.valid = tick, true
	if t := truth.at(tick); t != nil {
		p.stats.addError(t, &s.snap)
	}
	return nil
}
