package physics

import (
	"fmt"

	"github.com/netphys/netphys/vecmath"
)

// BodyState is the part of a body that changes as the world steps: what a
// network model sends, quantizes and applies.
type BodyState struct {
	Position        vecmath.Vec3 // m
	Rotation        vecmath.Quat // unit
	LinearVelocity  vecmath.Vec3 // m/s
	AngularVelocity vecmath.Vec3 // rad/s, world frame
	// AtRest is true while the body sleeps (always for static bodies).
	AtRest bool
}

// State returns the body's state, or an error wrapping ErrInvalidBody for
// a stale or zero handle.
func (w *World) State(id BodyID) (BodyState, error) {
	i, ok := w.slot(id)
	if !ok {
		return BodyState{}, fmt.Errorf("%w: %v", ErrInvalidBody, id)
	}
	return BodyState{w.pos[i], w.rot[i], w.linVel[i], w.angVel[i], w.info[i].asleep}, nil
}

// SetState overwrites the body's state. It returns an error wrapping
// ErrNotFinite for NaN or infinite values and ErrInvalidBody for a stale
// handle; the rotation is normalized.
//
// Waking rules for dynamic bodies: a state with AtRest set and zero
// velocities puts the body to rest (alone, if it was awake) and never wakes
// it or its neighbours: the network applies resting states this way every
// step. Such a body keeps its resting contacts even if the pose moves it
// away from them; to move a body that should then fall, give it AtRest
// false. Any other state wakes the body and its island. Static bodies take
// the pose only and must be given zero velocities.
func (w *World) SetState(id BodyID, s BodyState) error {
	i, ok := w.slot(id)
	if !ok {
		return fmt.Errorf("%w: %v", ErrInvalidBody, id)
	}
	if !s.Position.IsFinite() || !s.LinearVelocity.IsFinite() || !s.AngularVelocity.IsFinite() || !s.Rotation.IsFinite() {
		return fmt.Errorf("%w: state of %v", ErrNotFinite, id)
	}
	if s.Rotation.Dot(s.Rotation) == 0 {
		return fmt.Errorf("%w: zero rotation for %v", ErrNotFinite, id)
	}
	q := s.Rotation.Normalize()
	still := s.LinearVelocity == vecmath.Vec3{} && s.AngularVelocity == vecmath.Vec3{}
	in := &w.info[i]
	switch {
	case in.typ == Static:
		if !still {
			return fmt.Errorf("%w: a static body cannot move", ErrBodyDef)
		}
	case in.typ == Kinematic:
	case s.AtRest && still:
		if !in.asleep {
			in.asleep, in.sleepNext = true, i
			w.broad.restDirty = true
		}
	default:
		w.wakeIsland(i)
	}
	if in.asleep && (w.pos[i] != s.Position || w.rot[i] != q) {
		w.broad.restDirty = true
	}
	w.pos[i], w.rot[i] = s.Position, q
	w.linVel[i], w.angVel[i] = s.LinearVelocity, s.AngularVelocity
	return nil
}

// The Apply functions push a dynamic body and wake its island. They return
// an error wrapping ErrInvalidBody for a stale handle and ErrNotFinite for
// a NaN or infinite argument; a push on a static or kinematic body, and a
// zero push, do nothing.

// ApplyForce adds a force (N) at the body's centre for the next step.
func (w *World) ApplyForce(id BodyID, f vecmath.Vec3) error {
	i, ok, err := w.pushable(id, f)
	if ok {
		w.force[i] = w.force[i].Add(f)
	}
	return err
}

// ApplyForceAtPoint adds a force (N) acting at a world point (m) for the
// next step: a force at the centre plus the torque of its lever arm.
func (w *World) ApplyForceAtPoint(id BodyID, f, worldPoint vecmath.Vec3) error {
	if !worldPoint.IsFinite() {
		return fmt.Errorf("%w: point %v", ErrNotFinite, worldPoint)
	}
	i, ok, err := w.pushable(id, f)
	if ok {
		w.force[i] = w.force[i].Add(f)
		w.torque[i] = w.torque[i].Add(worldPoint.Sub(w.pos[i]).Cross(f))
	}
	return err
}

// ApplyImpulse changes the body's linear velocity by j/m at once (j in
// N·s).
func (w *World) ApplyImpulse(id BodyID, j vecmath.Vec3) error {
	i, ok, err := w.pushable(id, j)
	if ok {
		w.linVel[i] = w.linVel[i].MulAdd(w.info[i].invMass, j)
	}
	return err
}

// ApplyTorque adds a torque (N·m, world frame) for the next step.
func (w *World) ApplyTorque(id BodyID, t vecmath.Vec3) error {
	i, ok, err := w.pushable(id, t)
	if ok {
		w.torque[i] = w.torque[i].Add(t)
	}
	return err
}

// pushable returns the slot of the dynamic body that v, a non-zero finite
// push, applies to, after waking it; ok is false when there is nothing to
// do, with an error if the handle or v is invalid.
func (w *World) pushable(id BodyID, v vecmath.Vec3) (i int32, ok bool, err error) {
	i, ok = w.slot(id)
	switch {
	case !ok:
		return 0, false, fmt.Errorf("%w: %v", ErrInvalidBody, id)
	case !v.IsFinite():
		return 0, false, fmt.Errorf("%w: push %v on %v", ErrNotFinite, v, id)
	case w.info[i].typ != Dynamic || (v == vecmath.Vec3{}):
		return 0, false, nil
	}
	w.wakeIsland(i)
	return i, true, nil
}

// wakeIsland wakes the sleeping dynamic body in slot i and every body of
// its island.
func (w *World) wakeIsland(i int32) {
	if w.info[i].typ != Dynamic || !w.info[i].asleep {
		return
	}
	for j := i; ; {
		in := &w.info[j]
		next := in.sleepNext
		in.asleep, in.sleepNext = false, -1
		w.restCount[j] = 0
		w.woken = true
		if next == i || next < 0 {
			break
		}
		j = next
	}
	w.broad.restDirty = true
}

// unlinkSleeper takes slot i out of its sleeping island's list.
func (w *World) unlinkSleeper(i int32) {
	next := w.info[i].sleepNext
	if next < 0 {
		return
	}
	if next != i {
		p := next
		for w.info[p].sleepNext != i {
			p = w.info[p].sleepNext
		}
		w.info[p].sleepNext = next
	}
	w.info[i].sleepNext = -1
}

// wakeTouching wakes the island of slot i and of every body in contact
// with it, before i goes away.
func (w *World) wakeTouching(i int32) {
	w.wakeIsland(i)
	w.eachContact(func(c *contact) {
		if a, b := pairSlots(c.key); a == i {
			w.wakeIsland(b)
		} else if b == i {
			w.wakeIsland(a)
		}
	})
}
