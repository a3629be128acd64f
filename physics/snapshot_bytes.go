package physics

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// The byte form of a world's state, for a late joiner's snapshot: the
// same fields as a Snapshot, little-endian, every float as its raw bits
// (so that restoring reproduces the run bit for bit):
//
//	magic "NPW1", the Config's fingerprint (8 bytes), tick (8)
//	bodies n (4), then per body: pos, rot, linear and angular velocity,
//	  force, torque, its description (bodyInfo) and its rest count
//	the rest ring of every body whose ring a later step reads
//	free slots: count (4), slots (4 each)
//	active contacts, resting contacts: count (4), contacts
//	apart pairs: count (4), pairs
//
// Decoding never allocates more than the input's size and checks every
// index and count against the world it restores into.

const stateMagic = "NPW1"

// Record sizes, bytes.
const (
	bodyBytes    = 5*24 + 32 + 4 + 3 + 4 + 24 + 2*8 + 8 + 24 + 5*8 + 2*4 + 8 + 1
	poseBytes    = 24 + 32
	cacheBytes   = 4 + 12 + 16
	contactBytes = 8 + 2*collide.MaxManifoldPoints + 1 + 4*collide.MaxManifoldPoints + 12 + cacheBytes + 12 + 2*12*collide.MaxManifoldPoints
	apartBytes   = 8 + cacheBytes
)

// fingerprint hashes a Config, so that a state is only restored into a
// world that steps the same way.
func (c Config) fingerprint() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%#v", c)
	return h.Sum64()
}

type stateWriter struct{ b []byte }

func (w *stateWriter) u8(v uint8)   { w.b = append(w.b, v) }
func (w *stateWriter) u16(v uint16) { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *stateWriter) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *stateWriter) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *stateWriter) f64(v float64) {
	w.u64(math.Float64bits(v))
}
func (w *stateWriter) f32s(v []float32) {
	for _, f := range v {
		w.u32(math.Float32bits(f))
	}
}
func (w *stateWriter) vec(v vecmath.Vec3)  { w.f64(v.X); w.f64(v.Y); w.f64(v.Z) }
func (w *stateWriter) quat(q vecmath.Quat) { w.f64(q.X); w.f64(q.Y); w.f64(q.Z); w.f64(q.W) }
func (w *stateWriter) cache(p *poseCache) {
	w.u32(math.Float32bits(p.margin))
	w.f32s(p.relPos[:])
	w.f32s(p.relRot[:])
}
func (w *stateWriter) contact(c *contact) {
	w.u64(c.key)
	for _, id := range c.ids {
		w.u16(id)
	}
	w.u8(c.count)
	w.f32s(c.imp[:])
	w.f32s(c.patch[:])
	w.cache(&c.poseCache)
	w.f32s(c.normal[:])
	for p := range c.anchorA {
		w.f32s(c.anchorA[p][:])
	}
	for p := range c.anchorB {
		w.f32s(c.anchorB[p][:])
	}
}

// AppendState appends the world's state in byte form to dst: everything
// a Snapshot holds, which UnmarshalState restores into a world of the
// same Config and body count. It allocates only to grow dst.
func (w *World) AppendState(dst []byte) []byte {
	out := stateWriter{b: append(dst, stateMagic...)}
	out.u64(w.cfg.fingerprint())
	out.u64(uint64(w.tick))
	n := len(w.info)
	out.u32(uint32(n))
	for i := range n {
		out.vec(w.pos[i])
		out.quat(w.rot[i])
		out.vec(w.linVel[i])
		out.vec(w.angVel[i])
		out.vec(w.force[i])
		out.vec(w.torque[i])
		in := &w.info[i]
		out.u32(in.gen)
		out.u8(uint8(boolBit(in.live) | boolBit(in.asleep)<<1))
		out.u8(uint8(in.typ))
		out.u8(uint8(in.shape.Kind))
		out.u32(uint32(in.sleepNext))
		out.vec(in.shape.HalfExtents)
		out.f64(in.shape.Radius)
		out.f64(in.shape.HalfHeight)
		out.f64(in.invMass)
		out.vec(in.invI)
		out.f64(in.radius)
		out.f64(in.friction)
		out.f64(in.restitution)
		out.f64(in.linDamping)
		out.f64(in.angDamping)
		out.u32(in.layers)
		out.u32(in.mask)
		out.u64(in.userData)
		out.u8(w.restCount[i])
	}
	frames := w.cfg.SleepFrames
	for i := range n {
		if ringLive(&w.info[i], w.restCount[i]) {
			for _, p := range w.restRing[i*frames : (i+1)*frames] {
				out.vec(p.P)
				out.quat(p.Q)
			}
		}
	}
	out.u32(uint32(len(w.free)))
	for _, f := range w.free {
		out.u32(uint32(f))
	}
	for _, list := range [][]contact{w.contacts, w.restingContacts} {
		out.u32(uint32(len(list)))
		for k := range list {
			out.contact(&list[k])
		}
	}
	out.u32(uint32(len(w.apart)))
	for k := range w.apart {
		out.u64(w.apart[k].key)
		out.cache(&w.apart[k].poseCache)
	}
	return out.b
}

type stateReader struct {
	b   []byte
	err error
}

func (r *stateReader) take(n int) []byte {
	if r.err != nil || len(r.b) < n {
		if r.err == nil {
			r.err = fmt.Errorf("%w: state truncated", ErrSnapshot)
		}
		return make([]byte, n) // zeros; the error stands
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}
func (r *stateReader) u8() uint8   { return r.take(1)[0] }
func (r *stateReader) u16() uint16 { return binary.LittleEndian.Uint16(r.take(2)) }
func (r *stateReader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *stateReader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *stateReader) f32() float32 {
	return math.Float32frombits(r.u32())
}
func (r *stateReader) f64() float64 { return math.Float64frombits(r.u64()) }
func (r *stateReader) f32s(v []float32) {
	for i := range v {
		v[i] = r.f32()
	}
}
func (r *stateReader) vec() vecmath.Vec3 {
	return vecmath.Vec3{X: r.f64(), Y: r.f64(), Z: r.f64()}
}
func (r *stateReader) quat() vecmath.Quat {
	return vecmath.Quat{X: r.f64(), Y: r.f64(), Z: r.f64(), W: r.f64()}
}
func (r *stateReader) cache(p *poseCache) {
	p.margin = r.f32()
	r.f32s(p.relPos[:])
	r.f32s(p.relRot[:])
}

// count reads a count of records of size bytes each, at most what the
// rest of the input can hold.
func (r *stateReader) count(size int) int {
	n := int(r.u32())
	if r.err == nil && n > len(r.b)/size {
		r.err = fmt.Errorf("%w: %d records of %d bytes, %d bytes left", ErrSnapshot, n, size, len(r.b))
	}
	if r.err != nil {
		return 0
	}
	return n
}

func (r *stateReader) contact(c *contact) {
	c.key = r.u64()
	for p := range c.ids {
		c.ids[p] = r.u16()
	}
	c.count = r.u8()
	r.f32s(c.imp[:])
	r.f32s(c.patch[:])
	r.cache(&c.poseCache)
	r.f32s(c.normal[:])
	for p := range c.anchorA {
		r.f32s(c.anchorA[p][:])
	}
	for p := range c.anchorB {
		r.f32s(c.anchorB[p][:])
	}
}

// UnmarshalState restores a state AppendState wrote, from a world of the
// same Config with as many body slots as this one: Restore of that
// world's Snapshot. Bytes that are not such a state (truncated, another
// Config, another body count, an index or count out of range, a value
// that is not finite) return an error wrapping ErrSnapshot and leave the
// world unchanged. The buffers of into are reused (nil: a new Snapshot).
func (w *World) UnmarshalState(b []byte, into *Snapshot) error {
	if into == nil {
		into = &Snapshot{}
	}
	if err := decodeState(w, b, into); err != nil {
		return err
	}
	return w.Restore(into)
}

func decodeState(w *World, b []byte, s *Snapshot) error {
	if len(b) < len(stateMagic) || string(b[:len(stateMagic)]) != stateMagic {
		return fmt.Errorf("%w: not a world state", ErrSnapshot)
	}
	r := stateReader{b: b[len(stateMagic):]}
	if fp := r.u64(); r.err == nil && fp != w.cfg.fingerprint() {
		return fmt.Errorf("%w: state of a world with another Config", ErrSnapshot)
	}
	s.cfg = w.cfg
	s.tick = Tick(r.u64())
	n := r.count(bodyBytes)
	if r.err == nil && n != len(w.info) {
		return fmt.Errorf("%w: state of %d bodies, the world has %d", ErrSnapshot, n, len(w.info))
	}
	s.pos, s.rot = resize(s.pos, n), resize(s.rot, n)
	s.linVel, s.angVel = resize(s.linVel, n), resize(s.angVel, n)
	s.force, s.torque = resize(s.force, n), resize(s.torque, n)
	s.info, s.restCount = resize(s.info, n), resize(s.restCount, n)
	frames := w.cfg.SleepFrames
	finite := true
	for i := range n {
		s.pos[i], s.rot[i] = r.vec(), r.quat()
		s.linVel[i], s.angVel[i] = r.vec(), r.vec()
		s.force[i], s.torque[i] = r.vec(), r.vec()
		in := &s.info[i]
		in.gen = r.u32()
		flags := r.u8()
		in.live, in.asleep = flags&1 != 0, flags&2 != 0
		in.typ = BodyType(r.u8())
		in.shape.Kind = collide.Kind(r.u8())
		in.sleepNext = int32(r.u32())
		in.shape.HalfExtents = r.vec()
		in.shape.Radius, in.shape.HalfHeight = r.f64(), r.f64()
		in.invMass, in.invI, in.radius = r.f64(), r.vec(), r.f64()
		in.friction, in.restitution = r.f64(), r.f64()
		in.linDamping, in.angDamping = r.f64(), r.f64()
		in.layers, in.mask, in.userData = r.u32(), r.u32(), r.u64()
		s.restCount[i] = r.u8()
		if r.err != nil {
			return r.err
		}
		switch {
		case flags > 3 || in.typ > Dynamic || in.shape.Kind > collide.Plane:
			return fmt.Errorf("%w: body %d: flags %d, type %d, shape %d", ErrSnapshot, i, flags, in.typ, in.shape.Kind)
		case in.sleepNext < -1 || int(in.sleepNext) >= n:
			return fmt.Errorf("%w: body %d: sleep link %d of %d bodies", ErrSnapshot, i, in.sleepNext, n)
		case int(s.restCount[i]) > frames:
			return fmt.Errorf("%w: body %d: rest count %d of %d frames", ErrSnapshot, i, s.restCount[i], frames)
		}
		for _, v := range []vecmath.Vec3{s.pos[i], s.linVel[i], s.angVel[i], s.force[i], s.torque[i], in.shape.HalfExtents, in.invI} {
			finite = finite && v.IsFinite()
		}
		for _, f := range []float64{s.rot[i].X, s.rot[i].Y, s.rot[i].Z, s.rot[i].W, in.shape.Radius, in.shape.HalfHeight,
			in.invMass, in.radius, in.friction, in.restitution, in.linDamping, in.angDamping} {
			finite = finite && !math.IsNaN(f) && !math.IsInf(f, 0)
		}
		if !finite {
			return fmt.Errorf("%w: body %d: a value that is not finite", ErrSnapshot, i)
		}
	}
	s.restRing = resize(s.restRing, n*frames)
	for i := range n {
		if !ringLive(&s.info[i], s.restCount[i]) {
			continue
		}
		if len(r.b) < frames*poseBytes {
			return fmt.Errorf("%w: state truncated in the rest rings", ErrSnapshot)
		}
		for k := range frames {
			s.restRing[i*frames+k] = pose{r.vec(), r.quat()}
		}
	}
	nf := r.count(4)
	s.free = resize(s.free, nf)
	for k := range nf {
		s.free[k] = int32(r.u32())
		if f := s.free[k]; f < 0 || int(f) >= n || s.info[f].live {
			return fmt.Errorf("%w: free slot %d of %d bodies", ErrSnapshot, f, n)
		}
	}
	for list := range 2 {
		nc := r.count(contactBytes)
		dst := &s.contacts
		if list == 1 {
			dst = &s.resting
		}
		*dst = resize(*dst, nc)
		for k := range nc {
			c := &(*dst)[k]
			r.contact(c)
			a, b := pairSlots(c.key)
			switch {
			case r.err != nil:
				return r.err
			case c.count < 1 || c.count > collide.MaxManifoldPoints:
				return fmt.Errorf("%w: contact of %d points", ErrSnapshot, c.count)
			case a < 0 || a >= b || int(b) >= n || !s.info[a].live || !s.info[b].live:
				return fmt.Errorf("%w: contact between bodies %d and %d of %d", ErrSnapshot, a, b, n)
			case k > 0 && c.key < (*dst)[k-1].key: // a pair met twice (broadphase copies) has two contacts
				return fmt.Errorf("%w: contacts out of order", ErrSnapshot)
			}
		}
	}
	// Like contacts, an apart pair met twice by the broadphase is kept twice.
	na := r.count(apartBytes)
	s.apart = resize(s.apart, na)
	for k := range na {
		p := &s.apart[k]
		p.key = r.u64()
		r.cache(&p.poseCache)
		if a, b := pairSlots(p.key); r.err == nil && (a < 0 || a >= b || int(b) >= n || k > 0 && p.key < s.apart[k-1].key) {
			return fmt.Errorf("%w: apart pair of bodies %d and %d of %d, or out of order", ErrSnapshot, a, b, n)
		}
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%w: %d bytes after the state", ErrSnapshot, len(r.b))
	}
	return nil
}
