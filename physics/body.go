package physics

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// BodyID is a handle to a body: a slot index and the generation of the
// slot, so that a handle to a destroyed body never reaches the body that
// reuses its slot. The zero value is invalid.
type BodyID struct {
	index uint32
	gen   uint32
}

// IsZero reports whether id is the zero (invalid) handle.
func (id BodyID) IsZero() bool { return id.gen == 0 }

// Index returns the body's slot, a small integer that is unique among live
// bodies; handy for per-body arrays in the layers above.
func (id BodyID) Index() int { return int(id.index) }

// String formats the handle as "body#index.gen".
func (id BodyID) String() string { return fmt.Sprintf("body#%d.%d", id.index, id.gen) }

// BodyType says how a body moves.
type BodyType uint8

const (
	// Static bodies never move; their velocities are zero.
	Static BodyType = iota
	// Kinematic bodies move at the velocity they are given, pushing dynamic
	// bodies without being pushed back.
	Kinematic
	// Dynamic bodies respond to gravity, forces and contacts.
	Dynamic
)

// BodyDef describes a body to create. Start from DefaultBodyDef.
type BodyDef struct {
	Type     BodyType
	Shape    collide.Shape
	Position vecmath.Vec3 // m
	Rotation vecmath.Quat // normalized by CreateBody; the zero quaternion is an error
	// LinearVelocity (m/s) and AngularVelocity (rad/s, world frame).
	LinearVelocity, AngularVelocity vecmath.Vec3
	// Mass in kg; 0 computes it from Density (kg/m³) and the shape.
	Mass    float64
	Density float64
	// Friction is the Coulomb coefficient (a pair uses the geometric mean);
	// Restitution the bounciness in [0, 1] (a pair uses the larger).
	Friction, Restitution float64
	// LinearDamping and AngularDamping slow the body down, 1/s.
	LinearDamping, AngularDamping float64
	// Layers are the collision layers the body is in; Mask the layers it
	// collides with. Two bodies collide when each one's Mask has a bit of
	// the other's Layers.
	Layers, Mask uint32
	UserData     uint64
}

// DefaultBodyDef returns a dynamic 1 m cube of water density (1000 kg),
// friction 0.6, no bounce, in layer 1 and colliding with every layer.
func DefaultBodyDef() BodyDef {
	return BodyDef{
		Type:     Dynamic,
		Shape:    collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(0.5, 0.5, 0.5)},
		Rotation: vecmath.QuatIdentity,
		Density:  1000,
		Friction: 0.6,
		Layers:   1,
		Mask:     math.MaxUint32,
	}
}

// bodyInfo is the bookkeeping of one slot.
type bodyInfo struct {
	gen    uint32 // generation of the live body, or of the last one
	live   bool
	typ    BodyType
	asleep bool
	// sleepNext links the bodies of a sleeping island in a circular list
	// (a lone sleeper points to itself); -1 while awake.
	sleepNext              int32
	shape                  collide.Shape
	invMass                float64      // 1/kg, 0 unless dynamic
	invI                   vecmath.Vec3 // inverse body-frame diagonal inertia, 1/(kg·m²)
	radius                 float64      // bounding radius about the origin, m (0 for planes)
	friction, restitution  float64
	linDamping, angDamping float64
	layers, mask           uint32
	userData               uint64
}

// CreateBody adds a body and returns its handle, or an error wrapping
// ErrBodyDef or ErrNotFinite. Static and kinematic bodies start awake only
// if they move; dynamic bodies start awake.
func (w *World) CreateBody(def BodyDef) (BodyID, error) {
	info, err := newBodyInfo(&def)
	if err != nil {
		return BodyID{}, err
	}
	for _, v := range []vecmath.Vec3{def.Position, def.LinearVelocity, def.AngularVelocity} {
		if !v.IsFinite() {
			return BodyID{}, fmt.Errorf("%w: %v", ErrNotFinite, v)
		}
	}
	if !def.Rotation.IsFinite() || def.Rotation.Dot(def.Rotation) == 0 {
		return BodyID{}, fmt.Errorf("%w: rotation %v", ErrBodyDef, def.Rotation)
	}
	if def.Type == Static && (def.LinearVelocity != vecmath.Vec3{} || def.AngularVelocity != vecmath.Vec3{}) {
		return BodyID{}, fmt.Errorf("%w: a static body cannot move", ErrBodyDef)
	}
	var i int32
	if n := len(w.free); n > 0 {
		i, w.free = w.free[n-1], w.free[:n-1]
		info.gen = w.info[i].gen + 1
	} else {
		i = int32(len(w.info))
		info.gen = 1
		w.pos = append(w.pos, vecmath.Vec3{})
		w.rot = append(w.rot, vecmath.Quat{})
		w.linVel = append(w.linVel, vecmath.Vec3{})
		w.angVel = append(w.angVel, vecmath.Vec3{})
		w.force = append(w.force, vecmath.Vec3{})
		w.torque = append(w.torque, vecmath.Vec3{})
		w.info = append(w.info, bodyInfo{})
		w.restCount = append(w.restCount, 0)
		w.restRing = append(w.restRing, make([]pose, w.cfg.SleepFrames)...)
		w.reserve()
	}
	w.info[i] = info
	w.pos[i], w.rot[i] = def.Position, def.Rotation.Normalize()
	w.linVel[i], w.angVel[i] = def.LinearVelocity, def.AngularVelocity
	w.force[i], w.torque[i] = vecmath.Vec3{}, vecmath.Vec3{}
	w.restCount[i] = 0
	if def.Type == Static {
		w.info[i].asleep = true
		w.info[i].sleepNext = i
	}
	w.broad.restDirty = true
	return BodyID{uint32(i), info.gen}, nil
}

func newBodyInfo(def *BodyDef) (bodyInfo, error) {
	if err := validShape(def.Shape); err != nil {
		return bodyInfo{}, err
	}
	for _, v := range []float64{def.Mass, def.Density, def.Friction, def.Restitution, def.LinearDamping, def.AngularDamping} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return bodyInfo{}, fmt.Errorf("%w: negative, NaN or infinite parameter %v", ErrBodyDef, v)
		}
	}
	if def.Restitution > 1 {
		return bodyInfo{}, fmt.Errorf("%w: restitution %v above 1", ErrBodyDef, def.Restitution)
	}
	if def.Type > Dynamic {
		return bodyInfo{}, fmt.Errorf("%w: body type %d", ErrBodyDef, def.Type)
	}
	if def.Shape.Kind == collide.Plane && def.Type != Static {
		return bodyInfo{}, fmt.Errorf("%w: a plane must be static", ErrBodyDef)
	}
	info := bodyInfo{
		live: true, typ: def.Type, sleepNext: -1, shape: def.Shape,
		friction: def.Friction, restitution: def.Restitution,
		linDamping: def.LinearDamping, angDamping: def.AngularDamping,
		layers: def.Layers, mask: def.Mask, userData: def.UserData,
	}
	if lo, hi, ok := def.Shape.Bounds(vecmath.TransformIdentity); ok {
		info.radius = hi.Sub(lo).Length() / 2
	}
	if def.Type != Dynamic {
		return info, nil
	}
	mass, inertia := def.Shape.MassProperties(1)
	density := def.Density
	if def.Mass > 0 {
		density = def.Mass / mass
	}
	mass, inertia = def.Shape.MassProperties(density)
	if !(mass > 0) || !(inertia.X > 0 && inertia.Y > 0 && inertia.Z > 0) || math.IsInf(mass, 0) {
		return bodyInfo{}, fmt.Errorf("%w: dynamic body needs a positive mass (mass %v, density %v)", ErrBodyDef, def.Mass, def.Density)
	}
	info.invMass = 1 / mass
	info.invI = vecmath.V3(1/inertia.X, 1/inertia.Y, 1/inertia.Z)
	return info, nil
}

// DestroyBody removes a body. Bodies resting on it wake up; its handle and
// every copy of it become invalid.
func (w *World) DestroyBody(id BodyID) error {
	i, ok := w.slot(id)
	if !ok {
		return fmt.Errorf("%w: %v", ErrInvalidBody, id)
	}
	w.wakeTouching(i)
	w.unlinkSleeper(i)
	w.dropContacts(i)
	w.info[i].live = false
	w.info[i].asleep = false
	w.free = append(w.free, i)
	w.broad.restDirty = true
	return nil
}

// slot returns the slot of a live body.
func (w *World) slot(id BodyID) (int32, bool) {
	if id.gen == 0 || int(id.index) >= len(w.info) {
		return 0, false
	}
	in := &w.info[id.index]
	return int32(id.index), in.live && in.gen == id.gen
}

// id returns the handle of the live body in slot i.
func (w *World) id(i int32) BodyID { return BodyID{uint32(i), w.info[i].gen} }

// Valid reports whether id names a live body.
func (w *World) Valid(id BodyID) bool { _, ok := w.slot(id); return ok }

// Bodies appends the live bodies to dst[:0] in slot order, which is
// deterministic, and returns it.
func (w *World) Bodies(dst []BodyID) []BodyID {
	dst = dst[:0]
	for i := range w.info {
		if w.info[i].live {
			dst = append(dst, w.id(int32(i)))
		}
	}
	return dst
}

// Shape returns the body's shape; the zero Shape for an invalid handle.
func (w *World) Shape(id BodyID) collide.Shape {
	i, ok := w.slot(id)
	if !ok {
		return collide.Shape{}
	}
	return w.info[i].shape
}

// Type returns the body's type; Static for an invalid handle.
func (w *World) Type(id BodyID) BodyType {
	i, ok := w.slot(id)
	if !ok {
		return Static
	}
	return w.info[i].typ
}

// UserData returns the value given in BodyDef.UserData; 0 for an invalid
// handle.
func (w *World) UserData(id BodyID) uint64 {
	i, ok := w.slot(id)
	if !ok {
		return 0
	}
	return w.info[i].userData
}

// Mass returns the body's mass in kg; 0 for static, kinematic and invalid
// bodies.
func (w *World) Mass(id BodyID) float64 {
	i, ok := w.slot(id)
	if !ok || w.info[i].invMass == 0 {
		return 0
	}
	return 1 / w.info[i].invMass
}
