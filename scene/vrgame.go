package scene

import (
	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
)

// This file makes VR a statesync.Game with statesync.Avatars: the core
// (cubes, a step, touches) and the head-and-two-hands body.

// Objects implements statesync.Game: the cubes.
func (v *VR) Objects() int { return len(v.Cubes) }

// state returns a body's state; the VR world's handles are always valid.
func (v *VR) state(id physics.BodyID) physics.BodyState { return bodyState(v.World, id) }

// Object implements statesync.Game.
func (v *VR) Object(i int) physics.BodyState { return v.state(v.Cubes[i]) }

// SetObject implements statesync.Game.
func (v *VR) SetObject(i int, s physics.BodyState) error { return v.World.SetState(v.Cubes[i], s) }

// vrAvatarReach is how far, m, from the head a hand is coded short.
const vrAvatarReach = 2

// AvatarShape implements statesync.Avatars: a head (the root) and two
// hands that hold, coded from the head within vrAvatarReach, every part
// moving at most as fast as a hand may throw (Limits().MaxSpeed).
func (v *VR) AvatarShape() statesync.AvatarShape {
	return statesync.AvatarShape{
		Parts: 3,
		Reach: [statesync.MaxParts]float64{VRLeftHand: vrAvatarReach, VRRightHand: vrAvatarReach},
		Holds: [statesync.MaxParts]bool{VRLeftHand: true, VRRightHand: true},
		Speed: v.Limits().MaxSpeed,
	}
}

// Avatar implements statesync.Avatars.
func (v *VR) Avatar(p statesync.Player) statesync.Avatar { return v.avatars[p] }

// SetAvatar implements statesync.Avatars: the avatar moves there during the
// next step, carrying what it holds.
func (v *VR) SetAvatar(p statesync.Player, a statesync.Avatar) {
	v.avatars[p], v.present[p] = a, true
}

// ClearAvatar implements statesync.Avatars: the avatar goes back to its
// parking place outside the table, holding nothing.
func (v *VR) ClearAvatar(p statesync.Player) {
	v.present[p] = false
	v.avatars[p] = v.Rest(int(p))
}

// Drop implements statesync.Avatars: the local hands let go of cube i.
func (v *VR) Drop(i int) {
	for h := range 2 {
		if held := &v.avatars[v.local].Parts[VRHand(h)].Held; held.Holding && held.Object == i {
			*held = statesync.Held{}
		}
	}
}

// Step implements statesync.Game: the local player's controller acts (every
// player's in player order, offline), the avatars move to their poses
// (kinematic bodies, so they push cubes), held cubes follow their hands,
// and the world steps.
func (v *VR) Step(mayGrab func(i int) bool) {
	dt := v.cfg.Physics.TimeStep
	for p, c := range v.controllers {
		if c != nil {
			v.act(p, c.Control(v), mayGrab, dt)
		}
	}
	for p := range VRPlayers {
		v.pose(p, dt)
	}
	v.tick++
	v.World.Step()
	v.pairs, v.pokes = v.pairs[:0], v.pokes[:0]
	n := uint64(len(v.Cubes))
	v.World.Touching(func(a, b physics.BodyID) {
		ua, ub := v.World.UserData(a), v.World.UserData(b)
		switch {
		case ua >= 1 && ua <= n && ub >= 1 && ub <= n:
			v.pairs = append(v.pairs, [2]int{int(ua - 1), int(ub - 1)})
		case ua&avatarTag != 0 && ub >= 1 && ub <= n && v.pushing(a):
			v.pokes = append(v.pokes, [2]int{int(ua>>8) & 0xff, int(ub - 1)})
		case ub&avatarTag != 0 && ua >= 1 && ua <= n && v.pushing(b):
			v.pokes = append(v.pokes, [2]int{int(ub>>8) & 0xff, int(ua - 1)})
		}
	})
}

// pushing reports whether an avatar body moved in the last step: a hand
// at rest that a cube rolls against does not interact with it.
func (v *VR) pushing(id physics.BodyID) bool {
	return v.state(id).LinearVelocity != (vecmath.Vec3{})
}

// Touches implements statesync.Game: avatar touches are those of moving
// heads and hands.
func (v *VR) Touches(objects func(a, b int), player func(p statesync.Player, i int)) {
	for _, p := range v.pairs {
		objects(p[0], p[1])
	}
	for _, p := range v.pokes {
		player(statesync.Player(p[0]), p[1])
	}
}

// act applies player p's controls: hands move to their targets (no faster
// than MaxHandSpeed), a gripping empty hand takes the nearest cube in
// reach that nobody holds and the model allows, and a hand that opens
// throws what it held with its own velocity.
func (v *VR) act(p int, c VRControls, mayGrab func(int) bool, dt float64) {
	me := &v.avatars[p]
	me.Parts[VRHead].Pose = c.Head
	for h := range c.Hands {
		hand := &me.Parts[VRHand(h)]
		cur := hand.Pose.Pos // where the hand is, even while its body stands aside
		step := c.Hands[h].Pos.Sub(cur)
		if l, limit := step.Length(), float64(v.cfg.MaxHandSpeed*dt); l > limit {
			step = step.Scale(limit / l)
		}
		target := vecmath.Transform{Pos: cur.Add(step), Rot: c.Hands[h].Rot}
		held := &hand.Held
		switch {
		case c.Grip[h] && !held.Holding:
			if i, ok := v.reachable(cur, mayGrab); ok {
				s := v.Object(i)
				frame := vecmath.Transform{Pos: cur, Rot: target.Rot}
				*held = statesync.Held{Holding: true, Object: i,
					Relative: frame.Inverse().Mul(vecmath.Transform{Pos: s.Position, Rot: s.Rotation})}
			}
		case !c.Grip[h] && held.Holding:
			s := v.Object(held.Object)
			s.LinearVelocity, s.AngularVelocity, s.AtRest = step.Scale(1/dt), vecmath.Vec3{}, false
			_ = v.SetObject(held.Object, s)
			*held = statesync.Held{}
		}
		hand.Pose = target
	}
}

// reachable returns the nearest cube within GrabReach of the hand that no
// avatar holds and mayGrab allows.
func (v *VR) reachable(hand vecmath.Vec3, mayGrab func(int) bool) (int, bool) {
	best, bestD := -1, v.cfg.GrabReach*v.cfg.GrabReach
	for i, id := range v.Cubes {
		d := v.state(id).Position.Sub(hand).LengthSq()
		if d < bestD && !v.held(i) && mayGrab(i) {
			best, bestD = i, d
		}
	}
	return best, best >= 0
}

// held reports whether any present avatar holds cube i.
func (v *VR) held(i int) bool {
	for p := range VRPlayers {
		for _, part := range v.avatars[p].Parts {
			if h := part.Held; v.present[p] && h.Holding && h.Object == i {
				return true
			}
		}
	}
	return false
}

// releaseTicks is how long a hand's body stands aside after it lets go
// (a quarter of a second): the cube leaves the hand cleanly, as VR games
// make it, instead of hitting the sphere it was held under. Every machine
// applies it, to remote avatars as well, when their holds end.
const releaseTicks = 15

// pose moves player p's kinematic head and hands towards the avatar's
// poses over the step, and sets what they hold at their hands. A move
// faster than MaxHandSpeed (an avatar appearing, or a remote one whose
// samples were lost) is a jump, not a sweep that would bat cubes away.
func (v *VR) pose(p int, dt float64) {
	a := &v.avatars[p]
	for part, id := range v.bodies[p] {
		t := a.Parts[part].Pose
		if part != VRHead {
			h := part - VRLeftHand
			holding := a.Parts[part].Held.Holding && v.present[p]
			if v.holding[p][h] && !holding {
				v.released[p][h] = v.tick
			}
			v.holding[p][h] = holding
			if v.tick-v.released[p][h] < releaseTicks {
				t.Pos.Y = -2 // under the ground, out of the thrown cube's way
			}
		}
		if !v.present[p] {
			t = vecmath.Transform{Pos: v.parked(p, part), Rot: vecmath.QuatIdentity}
		}
		cur := v.state(id).Position
		vel := t.Pos.Sub(cur).Scale(1 / dt)
		if step := float64(v.cfg.MaxHandSpeed * dt); t.Pos.Sub(cur).LengthSq() > float64(step*step) {
			cur, vel = t.Pos, vecmath.Vec3{}
		}
		_ = v.World.SetState(id, physics.BodyState{Position: cur, Rotation: t.Rot, LinearVelocity: vel})
		if part == VRHead || !v.present[p] {
			continue
		}
		if held := a.Parts[part].Held; held.Holding {
			pose := vecmath.Transform{Pos: cur, Rot: t.Rot}.Mul(held.Relative)
			_ = v.SetObject(held.Object, physics.BodyState{Position: pose.Pos, Rotation: pose.Rot, LinearVelocity: vel})
		}
	}
}

// Limits implements statesync.Plausibility: the bounds the host judges the
// guests' claims by, from the world's own. A hand moves at most
// MaxHandSpeed, and a cube it throws gains what a fall adds (10 m/s from
// the top of the 30-cube tower's reach); a hand grabs within GrabReach of
// a cube's centre, and the cube stays there in the hand; two cubes touch
// with their centres a cube's diagonal apart at most.
func (v *VR) Limits() statesync.Limits {
	c := v.cfg
	return statesync.Limits{
		MaxSpeed:        c.MaxHandSpeed + 10,
		MaxAngularSpeed: 40,
		HoldReach:       c.GrabReach + float64(c.CubeSize/2) + c.HandRadius,
		ContactRange:    float64(c.CubeSize*1.7320508075688772) + c.HeadRadius,
		Slack:           0.25,
	}
}
