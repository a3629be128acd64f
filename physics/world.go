package physics

import (
	"fmt"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// Tick counts the steps a World has taken since it was created.
type Tick uint64

// World is a deterministic rigid-body simulation. It is not safe for
// concurrent use; one goroutine owns it.
//
// Storage is data-oriented in the manner of Box2D v3: bodies live in
// parallel slices indexed by their slot (BodyID.index), the fields the
// step touches every time (poses, velocities) apart from the bookkeeping,
// and the solver works on compact per-step arrays of awake bodies and
// contact constraints. Nothing holds a pointer to a body.
type World struct {
	cfg  Config
	tick Tick
	// cosHalfSleepAngle is cos(SleepAngularTolerance/2): two unit
	// quaternions closer than the tolerance have |q·r| above it.
	cosHalfSleepAngle float64

	// Per-slot body storage (body.go): the state the step touches first,
	// then the bookkeeping.
	pos    []vecmath.Vec3
	rot    []vecmath.Quat
	linVel []vecmath.Vec3
	angVel []vecmath.Vec3
	force  []vecmath.Vec3 // accumulated for the next step, N
	torque []vecmath.Vec3 // accumulated for the next step, N·m
	info   []bodyInfo
	free   []int32 // free slots, reused last in first out

	// Rest detection (rest.go): SleepFrames poses per slot, written at
	// position tick % SleepFrames; restCount[i] counts poses since slot i
	// last woke.
	restRing  []pose
	restCount []uint8

	broad broadphase
	// Contacts (contact.go): active ones have an awake body, resting ones
	// do not; both sorted by key. woken says that bodies woke since the
	// lists were last partitioned.
	contacts        []contact
	restingContacts []contact
	apart           []apartPair // candidate pairs without points, sorted by key
	woken           bool
	narrow          narrowScratch
	scratch         stepScratch
	reserved        int // bodies the per-step arrays are reserved for
	history         history
	preStep         func(w *World)
	team            *team // the parallel step's workers (team.go)
}

// pose is where a body is: position and orientation.
type pose struct {
	P vecmath.Vec3
	Q vecmath.Quat
}

// NewWorld returns an empty world, or an error wrapping ErrConfig.
func NewWorld(cfg Config) (*World, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	w := &World{cfg: cfg}
	w.cosHalfSleepAngle = vecmath.Cos(cfg.SleepAngularTolerance / 2)
	w.broad.init(cfg.CellSize)
	w.history.init(cfg.HistoryTicks)
	w.team = newTeam(max(cfg.Workers, 1))
	return w, nil
}

// Config returns the configuration the world was created with.
func (w *World) Config() Config { return w.cfg }

// Tick returns the number of steps taken since the world was created (or
// the tick of the snapshot it was last restored from).
func (w *World) Tick() Tick { return w.tick }

// SetPreStep installs fn to be called at the start of every Step, before
// anything else: the network layer quantizes body states there, on both
// sides, so that they simulate from identical bits. nil removes it.
func (w *World) SetPreStep(fn func(w *World)) { w.preStep = fn }

// Touching calls fn for every pair of bodies whose contact manifold had
// points in the last step, in a deterministic order (by body slot).
// Resting pairs are included.
func (w *World) Touching(fn func(a, b BodyID)) {
	w.eachContact(func(c *contact) {
		a, b := pairSlots(c.key)
		fn(w.id(a), w.id(b))
	})
}

// validShape reports why a shape cannot be simulated, or nil.
func validShape(s collide.Shape) error {
	fin := func(v float64) bool { return v > 0 && v < 1e9 }
	switch s.Kind {
	case collide.Sphere:
		if !fin(s.Radius) {
			return fmt.Errorf("%w: sphere radius %v", ErrBodyDef, s.Radius)
		}
	case collide.Box:
		h := s.HalfExtents
		if !fin(h.X) || !fin(h.Y) || !fin(h.Z) {
			return fmt.Errorf("%w: box half extents %v", ErrBodyDef, h)
		}
	case collide.Capsule:
		if !fin(s.Radius) || !(s.HalfHeight >= 0 && s.HalfHeight < 1e9) {
			return fmt.Errorf("%w: capsule radius %v half height %v", ErrBodyDef, s.Radius, s.HalfHeight)
		}
	case collide.Plane:
	default:
		return fmt.Errorf("%w: unknown shape kind %d", ErrBodyDef, s.Kind)
	}
	return nil
}
