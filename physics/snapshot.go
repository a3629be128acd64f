package physics

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/vecmath"
)

// Snapshot is a copy of everything in a World that influences its next
// step: bodies, free slots, the rest rings of awake bodies, contacts with
// their warm-start impulses and pair caches, the apart pairs' caches, and
// the tick. Each slice is copied as one block (the rest rings as one per
// awake body): contacts hold nothing that can be derived (contact.go), so
// scene C's 5,400 touching pairs are 1 MB. Its buffers are reused: once a
// Snapshot has grown to a world's size, taking another costs copies and no
// allocation. It does not hold the pre-step hook or the pose history; it
// records the configuration only to refuse a world with another one. The
// zero Snapshot holds nothing and cannot be restored.
type Snapshot struct {
	cfg       Config
	tick      Tick
	pos       []vecmath.Vec3
	rot       []vecmath.Quat
	linVel    []vecmath.Vec3
	angVel    []vecmath.Vec3
	force     []vecmath.Vec3
	torque    []vecmath.Vec3
	info      []bodyInfo
	free      []int32
	restRing  []pose
	restCount []uint8
	contacts  []contact // the active list
	resting   []contact
	apart     []apartPair
}

// Tick returns the tick at which the snapshot was taken.
func (s *Snapshot) Tick() Tick { return s.tick }

// Snapshot copies the world's state into dst.
func (w *World) Snapshot(dst *Snapshot) {
	dst.cfg = w.cfg
	dst.tick = w.tick
	dst.pos = append(dst.pos[:0], w.pos...)
	dst.rot = append(dst.rot[:0], w.rot...)
	dst.linVel = append(dst.linVel[:0], w.linVel...)
	dst.angVel = append(dst.angVel[:0], w.angVel...)
	dst.force = append(dst.force[:0], w.force...)
	dst.torque = append(dst.torque[:0], w.torque...)
	dst.info = append(dst.info[:0], w.info...)
	dst.free = append(dst.free[:0], w.free...)
	dst.restRing = copyRings(dst.restRing, w.restRing, w.info, w.restCount, w.cfg.SleepFrames)
	dst.restCount = append(dst.restCount[:0], w.restCount...)
	dst.contacts = append(dst.contacts[:0], w.contacts...)
	dst.resting = append(dst.resting[:0], w.restingContacts...)
	dst.apart = append(dst.apart[:0], w.apart...)
}

// Restore replaces the world's state with src, taken from this world or
// from another with the same Config. Restore followed by Step reproduces
// the original run bit for bit. The pose history is cleared but for the
// restored tick: queries further into the past miss until the world has
// stepped far enough again. A zero Snapshot, or one taken from a world
// with another Config (whose rest rings, for one, have another length),
// returns an error wrapping ErrSnapshot and leaves the world unchanged.
func (w *World) Restore(src *Snapshot) error {
	if src.cfg != w.cfg {
		if src.cfg == (Config{}) {
			return fmt.Errorf("%w: zero snapshot", ErrSnapshot)
		}
		return fmt.Errorf("%w: taken from a world with another Config", ErrSnapshot)
	}
	w.tick = src.tick
	w.pos = append(w.pos[:0], src.pos...)
	w.rot = append(w.rot[:0], src.rot...)
	w.linVel = append(w.linVel[:0], src.linVel...)
	w.angVel = append(w.angVel[:0], src.angVel...)
	w.force = append(w.force[:0], src.force...)
	w.torque = append(w.torque[:0], src.torque...)
	w.info = append(w.info[:0], src.info...)
	w.free = append(w.free[:0], src.free...)
	w.restRing = copyRings(w.restRing, src.restRing, src.info, src.restCount, w.cfg.SleepFrames)
	w.restCount = append(w.restCount[:0], src.restCount...)
	w.contacts = append(w.contacts[:0], src.contacts...)
	w.restingContacts = append(w.restingContacts[:0], src.resting...)
	w.apart = append(w.apart[:0], src.apart...)
	w.woken = true // partitioning again is harmless and covers a pending wake
	w.broad.restDirty = true
	w.history.clear()
	w.history.record(w)
	return nil
}

// Checksum returns a 64-bit hash of everything that influences the next
// step, over the raw bits of every float: two worlds with equal checksums
// step identically (barring a hash collision). Dead slots contribute only
// their generation, so destroyed bodies' leftovers do not matter, and of
// the rest rings only the poses a later step reads count (copyRings).
func (w *World) Checksum() uint64 {
	h := hasher{acc: hashSeed}
	h.u64(uint64(w.tick))
	h.u64(uint64(len(w.info)))
	frames := w.cfg.SleepFrames
	for i := range w.info {
		in := &w.info[i]
		h.u64(uint64(in.gen))
		if !in.live {
			continue
		}
		h.vec(w.pos[i])
		h.quat(w.rot[i])
		h.vec(w.linVel[i])
		h.vec(w.angVel[i])
		h.vec(w.force[i])
		h.vec(w.torque[i])
		h.u64(uint64(in.typ) | boolBit(in.asleep)<<8 | uint64(uint32(in.sleepNext))<<16)
		h.u64(uint64(in.layers) | uint64(in.mask)<<32)
		h.u64(in.userData)
		h.u64(uint64(in.shape.Kind))
		h.vec(in.shape.HalfExtents)
		h.f64(in.shape.Radius)
		h.f64(in.shape.HalfHeight)
		h.f64(in.invMass)
		h.vec(in.invI)
		h.f64(in.friction)
		h.f64(in.restitution)
		h.f64(in.linDamping)
		h.f64(in.angDamping)
		n := w.restCount[i]
		h.u64(uint64(n))
		if !ringLive(in, n) {
			continue
		}
		ring, last := w.restRing[i*frames:(i+1)*frames], int(w.tick%Tick(frames))
		for k := range int(n) {
			p := &ring[(last-k+frames)%frames]
			h.vec(p.P)
			h.quat(p.Q)
		}
	}
	for _, f := range w.free {
		h.u64(uint64(f))
	}
	w.eachContact(func(c *contact) {
		h.u64(c.key)
		h.u64(uint64(c.count))
		for p := range int(c.count) {
			h.u64(uint64(c.ids[p]) | uint64(math.Float32bits(c.imp[p]))<<32)
			h.f32s(c.anchorA[p][:])
			h.f32s(c.anchorB[p][:])
		}
		h.f32s(c.patch[:])
		h.poseCache(&c.poseCache)
		h.f32s(c.normal[:])
	})
	for k := range w.apart {
		h.u64(w.apart[k].key)
		h.poseCache(&w.apart[k].poseCache)
	}
	return h.sum()
}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// hasher is the xxHash64 accumulator round over 64-bit words: a multiply,
// a rotate and a multiply per word, with the xxHash64 avalanche at the end.
// Written here rather than imported so that the hash of a world is a
// fixed part of netphys's determinism contract.
type hasher struct{ acc uint64 }

const (
	hashPrime1 = 11400714785074694791
	hashPrime2 = 14029467366897019727
	hashPrime3 = 1609587929392839161
	hashSeed   = 0x6e657470687973 // "netphys"
)

func (h *hasher) u64(v uint64) {
	v *= hashPrime2
	v = v<<31 | v>>33
	v *= hashPrime1
	h.acc ^= v
	h.acc = (h.acc<<27|h.acc>>37)*hashPrime1 + hashPrime3
}

func (h *hasher) f64(f float64) { h.u64(math.Float64bits(f)) }

func (h *hasher) f32s(v []float32) {
	for _, f := range v {
		h.u64(uint64(math.Float32bits(f)))
	}
}

func (h *hasher) poseCache(p *poseCache) {
	h.u64(uint64(math.Float32bits(p.margin)))
	h.f32s(p.relPos[:])
	h.f32s(p.relRot[:])
}

func (h *hasher) vec(v vecmath.Vec3) { h.f64(v.X); h.f64(v.Y); h.f64(v.Z) }

func (h *hasher) quat(q vecmath.Quat) { h.f64(q.X); h.f64(q.Y); h.f64(q.Z); h.f64(q.W) }

func (h *hasher) sum() uint64 {
	a := h.acc
	a ^= a >> 33
	a *= hashPrime2
	a ^= a >> 29
	a *= hashPrime3
	a ^= a >> 32
	return a
}
