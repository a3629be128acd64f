package snapshot

import (
	"fmt"
	"slices"
	"sync"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// qcube is a cube of stages 3–9 in integer form: what those stages send.
// Comparing two qcubes is exact, which is what "not changed" must mean.
type quantizedCube struct {
	pos         [3]int64 // quantized position indices, [0, steps] per axis
	rot         wire.SmallestThree
	vel         [3]int64 // quantized velocity indices when the config sends them, else 0
	interacting bool
}

// quantize returns the integer form of c.
func (cfg Config) quantize(c Cube) (quantizedCube, error) {
	idx, err := cfg.Position.Index(c.Position)
	if err != nil {
		return quantizedCube{}, fmt.Errorf("snapshot: position: %w", err)
	}
	rot, err := wire.QuantizeQuat(c.Rotation, cfg.OrientationBits)
	if err != nil {
		return quantizedCube{}, fmt.Errorf("snapshot: orientation: %w", err)
	}
	q := quantizedCube{pos: [3]int64{int64(idx[0]), int64(idx[1]), int64(idx[2])}, rot: rot, interacting: c.Interacting}
	if cfg.sendsVelocity() {
		v, err := cfg.Velocity.Index(cfg.Velocity.Clamp(c.LinearVelocity))
		if err != nil {
			return quantizedCube{}, fmt.Errorf("snapshot: velocity: %w", err)
		}
		q.vel = [3]int64{int64(v[0]), int64(v[1]), int64(v[2])}
	}
	return q, nil
}

// cube returns the visual state q decodes to.
func (cfg Config) cube(q quantizedCube) Cube {
	c := Cube{
		Position:    cfg.Position.Value([3]uint64{uint64(q.pos[0]), uint64(q.pos[1]), uint64(q.pos[2])}),
		Rotation:    q.rot.Quat(cfg.OrientationBits),
		Interacting: q.interacting,
	}
	if cfg.sendsVelocity() {
		c.LinearVelocity = cfg.Velocity.Value([3]uint64{uint64(q.vel[0]), uint64(q.vel[1]), uint64(q.vel[2])})
	}
	return c
}

// memo remembers the integer form of a snapshot's cubes.
type memo struct {
	cfg   Config
	cubes []Cube // copy of the cubes q was computed from
	q     []quantizedCube
}

// remember records q as the integer form of snap's cubes under cfg.
func (snap *Snapshot) remember(cfg Config, q []quantizedCube) {
	snap.memo = &memo{cfg: cfg, cubes: append([]Cube(nil), snap.Cubes...), q: q}
}

// referenceInts returns the integer form of a reference snapshot, from
// its memo when the memo is still valid; the result must not be modified.
// Nil for a nil snapshot.
func (cfg Config) referenceInts(snap *Snapshot) ([]quantizedCube, error) {
	if snap == nil {
		return nil, nil
	}
	if q := cfg.memoInts(snap); q != nil {
		return q, nil
	}
	return cfg.quantizeAll(snap)
}

// memoInts returns the integer form of snap from its memo, nil when the
// memo is not of cfg or the cubes changed since it was made.
func (cfg Config) memoInts(snap *Snapshot) []quantizedCube {
	m := snap.memo
	if m == nil || m.cfg != cfg || len(m.cubes) != len(snap.Cubes) {
		return nil
	}
	for i := range m.cubes {
		if m.cubes[i] != snap.Cubes[i] {
			return nil
		}
	}
	return m.q
}

// quantizeAll returns the integer form of every cube of snap.
func (cfg Config) quantizeAll(snap *Snapshot) ([]quantizedCube, error) {
	q := make([]quantizedCube, len(snap.Cubes))
	return q, cfg.quantizeInto(q, snap)
}

// quantizeInto writes the integer form of every cube of snap into q
// (len(snap.Cubes) long).
func (cfg Config) quantizeInto(q []quantizedCube, snap *Snapshot) error {
	for i, c := range snap.Cubes {
		var err error
		if q[i], err = cfg.quantize(c); err != nil {
			return fmt.Errorf("snapshot: cube %d: %w", i, err)
		}
	}
	return nil
}

// targets recycles the integer forms that encodings code from: a sender
// encodes the same snapshot for many receivers, and a fresh one per
// encoding was 65 KB of garbage for the 901 cubes of the cube world. A
// pool, rather than a buffer in the Snapshot or its memo, keeps a
// Snapshot safe to encode from several goroutines at once.
var targets = sync.Pool{New: func() any { return new([]quantizedCube) }}

// codingTarget returns the integer form of snap when s writes or
// measures (from snap's memo when it is valid: Quantize and Decode leave
// one), and zeroed cubes to decode into when s reads. The caller hands
// it to releaseTarget once the coding is done; when reading, it may keep
// the slice instead (the decoded snapshot's memo).
func (cfg Config) codingTarget(s wire.Stream, snap *Snapshot) (*[]quantizedCube, error) {
	n := len(snap.Cubes)
	if s.Mode() == wire.Reading {
		q := make([]quantizedCube, n)
		return &q, nil
	}
	p := targets.Get().(*[]quantizedCube)
	*p = slices.Grow((*p)[:0], n)[:n]
	if m := cfg.memoInts(snap); m != nil {
		copy(*p, m)
		return p, nil
	}
	if err := cfg.quantizeInto(*p, snap); err != nil {
		targets.Put(p)
		return nil, err
	}
	return p, nil
}

// releaseTarget returns a target codingTarget made for writing or
// measuring to the pool.
func releaseTarget(s wire.Stream, p *[]quantizedCube) {
	if s.Mode() != wire.Reading {
		targets.Put(p)
	}
}

// maxIndex returns the largest position index of each axis.
func (cfg Config) maxIndex() [3]int64 {
	var m [3]int64
	for i := range m {
		m[i] = int64(cfg.Position.Axis(i).Steps())
	}
	return m
}

// serializeCube codes q in full: position indices, smallest three,
// interacting bit (the 80 bits of stage 4).
func (cfg Config) serializeCube(s wire.Stream, q *quantizedCube) error {
	top := cfg.maxIndex()
	for i := range q.pos {
		if err := wire.SerializeInt(s, &q.pos[i], 0, top[i]); err != nil {
			return err
		}
	}
	if err := wire.SerializeSmallestThree(s, &q.rot, cfg.OrientationBits); err != nil {
		return err
	}
	return wire.SerializeBool(s, &q.interacting)
}

// Quantize returns the snapshot a receiver decodes from snap at this
// stage: the reference the sender keeps as a baseline, and the values to
// measure errors against.
func (c Codec) Quantize(snap *Snapshot) (Snapshot, error) {
	out := Snapshot{Cubes: make([]Cube, len(snap.Cubes))}
	var ints []quantizedCube
	if c.Stage > SmallestThreeOrientation && c.Stage <= numStages {
		ints = make([]quantizedCube, len(snap.Cubes))
	}
	for i, cube := range snap.Cubes {
		switch c.Stage {
		case Uncompressed, SmallestThreeOrientation:
			var err error
			if out.Cubes[i], err = c.quantizeFloats(cube); err != nil {
				return out, fmt.Errorf("snapshot: cube %d: %w", i, err)
			}
		default:
			if c.Stage < 1 || c.Stage > numStages {
				return out, fmt.Errorf("snapshot: stage %d: %w", c.Stage, ErrStage)
			}
			q, err := c.stageConfig().quantize(cube)
			if err != nil {
				return out, fmt.Errorf("snapshot: cube %d: %w", i, err)
			}
			out.Cubes[i] = c.stageConfig().cube(q)
			ints[i] = q
			if c.Stage == QuantizedPosition {
				out.Cubes[i].LinearVelocity = f32Vec(cube.LinearVelocity)
			}
		}
	}
	if ints != nil {
		out.remember(c.stageConfig(), ints)
	}
	return out, nil
}

func f32Vec(v vecmath.Vec3) vecmath.Vec3 {
	return vecmath.Vec3{X: float64(float32(v.X)), Y: float64(float32(v.Y)), Z: float64(float32(v.Z))}
}
