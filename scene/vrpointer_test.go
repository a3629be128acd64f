package scene

import (
	"math"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// pointerRig is player 1 of the VR table, played by a VRPointer whose
// input the test sets before each step.
type pointerRig struct {
	t  *testing.T
	v  *VR
	in VRInput
}

// camera is where the test's page looks from: behind player 1 (who stands
// at z = 10 facing -z), above.
var camera = vecmath.V3(0, 12, 22)

func newPointerRig(t *testing.T) *pointerRig {
	r := &pointerRig{t: t}
	v, err := NewVR(DefaultVRConfig(), 1, NewVRPointer(DefaultVRPointerConfig(), 1, func() VRInput { return r.in }))
	if err != nil {
		t.Fatal(err)
	}
	r.v = v
	return r
}

// point aims the mouse at the point at, lifted by lift, as the page's ray
// from camera.
func (r *pointerRig) point(at vecmath.Vec3, lift float64, grip bool) {
	dir, _ := at.Sub(camera).Normalize()
	r.in.Pointer, r.in.Pointing = Pointer{From: camera, Dir: dir, Lift: lift, Grip: grip}, true
}

// step steps the world n times and fails the test if the hand moved faster
// than the pointer's MaxSpeed in any step.
func (r *pointerRig) step(n int) {
	r.t.Helper()
	limit := DefaultVRPointerConfig().MaxSpeed * r.v.cfg.Physics.TimeStep
	for range n {
		before := r.hand()
		stepVR(r.v, 1)
		if d := r.hand().Sub(before).Length(); d > limit+1e-9 {
			r.t.Fatalf("the hand moved %.3f m in one step, at most %.3f", d, limit)
		}
	}
}

func (r *pointerRig) hand() vecmath.Vec3 { return r.v.Avatar(1).Parts[VRRightHand].Pose.Pos }

// hover is the height of player 1's right hand under the mouse at no lift.
func (r *pointerRig) hover() float64 {
	return r.v.Rest(1).Parts[VRRightHand].Pose.Pos.Y + DefaultVRPointerConfig().Hover
}

// TestVRPointerGrabsAndThrows walks the mouse to a loose cube, grips it
// with the left button, lifts and drags it sideways, and lets go while
// moving: the cube flies off with the hand's velocity.
func TestVRPointerGrabsAndThrows(t *testing.T) {
	r := newPointerRig(t)
	cube := r.v.Loose(1)[2]
	c := r.v.Object(cube).Position
	r.point(vecmath.V3(c.X, r.hover(), c.Z), 0, false)
	r.step(60)
	if d := r.hand().Sub(vecmath.V3(c.X, r.hover(), c.Z)).Length(); d > 1e-6 {
		t.Fatalf("the hand is %.3f m from the point under the mouse", d)
	}
	r.point(vecmath.V3(c.X, r.hover(), c.Z), 0, true)
	r.step(1)
	if held := r.v.Avatar(1).Parts[VRRightHand].Held; !held.Holding || held.Object != cube {
		t.Fatalf("holding %+v, want cube %d", held, cube)
	}
	// Lift by 2 m and come 1 m towards the player, then drag along -x at
	// 6 m/s (0.1 m a step) for half a second and release mid-drag.
	at := vecmath.V3(c.X, r.hover()+2, c.Z+1)
	r.point(at, 2, true)
	r.step(60)
	if y := r.v.Object(cube).Position.Y; y < 2 {
		t.Fatalf("the carried cube is at height %.2f, want it lifted", y)
	}
	for range 30 {
		at.X -= 0.1
		r.point(at, 2, true)
		r.step(1)
	}
	r.point(at, 2, false) // released where the mouse stopped
	r.step(1)
	if r.v.Avatar(1).Parts[VRRightHand].Held.Holding {
		t.Fatal("the hand still holds the cube after the button was released")
	}
	thrown := r.v.Object(cube)
	// The hand trails the mouse by a few centimetres; let go, it closes
	// Follow·dt of the gap in the release step: 3/4 of the drag's speed.
	if vx := thrown.LinearVelocity.X; vx > -4 || vx < -7 {
		t.Errorf("thrown at %v m/s, want about 4.5 m/s along -x", thrown.LinearVelocity)
	}
	r.step(30)
	if dx := r.v.Object(cube).Position.X - thrown.Position.X; dx > -2 {
		t.Errorf("the thrown cube moved %.2f m along x in half a second, want over 2 m along -x", dx)
	}
}

// TestVRPointerBounds: a mouse that jumps across the table moves the hand
// at MaxSpeed (step checks it), a pointer beyond the table stops the hand
// at Reach, one that points at the sky or is not finite does not move it
// over the table, and the lift is capped.
func TestVRPointerBounds(t *testing.T) {
	r := newPointerRig(t)
	cfg := DefaultVRPointerConfig()
	r.point(vecmath.V3(0, r.hover(), -40), 0, false)
	r.step(180)
	if h := r.hand(); math.Abs(h.Z+cfg.Reach) > 1e-6 || math.Abs(h.X) > 1e-6 {
		t.Errorf("hand at %v, want it stopped at the reach of %g m", h, cfg.Reach)
	}
	r.point(vecmath.V3(2, r.hover(), 2), 100, false)
	r.step(180)
	if h := r.hand(); math.Abs(h.Y-(r.v.Rest(1).Parts[VRRightHand].Pose.Pos.Y+cfg.MaxLift)) > 1e-6 {
		t.Errorf("hand at %v, want it at the highest lift", h)
	}
	still := r.hand()
	for _, p := range []Pointer{
		{From: camera, Dir: vecmath.V3(0, 1, 0), Lift: 0},
		{From: camera, Dir: vecmath.V3(0, 0, -1), Lift: 0},
		{From: camera, Dir: vecmath.V3(math.NaN(), -1, 0), Lift: 0},
		{From: camera, Dir: vecmath.V3(0, -1, 0), Lift: math.Inf(1)},
	} {
		r.in.Pointer = p
		r.step(30)
		if h := r.hand(); !h.IsFinite() || math.Abs(h.X-still.X) > 1e-6 || math.Abs(h.Z-still.Z) > 1e-6 {
			t.Errorf("pointer %+v moved the hand from %v to %v", p, still, h)
		}
	}
}

// TestVRPointerKeys: without a mouse the keys drive the hand as before (up
// is away from the player, space raises it, it sinks back), and with a
// mouse that rests the arrows still nudge it.
func TestVRPointerKeys(t *testing.T) {
	r := newPointerRig(t)
	start := r.hand()
	r.in.Keys = Input{Up: true}
	r.step(30)
	r.in.Keys = Input{}
	r.step(60)
	if dz := r.hand().Z - start.Z; math.Abs(dz+2) > 1e-6 {
		t.Errorf("half a second of up moved the hand %.3f m along z, want -2 (player 1 faces -z)", dz)
	}
	r.in.Keys = Input{Space: true}
	r.step(30)
	if dy := r.hand().Y - start.Y; dy < 1.5 {
		t.Errorf("half a second of space raised the hand %.3f m, want nearly 2", dy)
	}
	r.in.Keys = Input{}
	r.step(120)
	if y := r.hand().Y; math.Abs(y-start.Y) > 1e-6 {
		t.Errorf("the hand sank back to %.3f, want its usual %.3f", y, start.Y)
	}
	r.point(vecmath.V3(-2, r.hover(), 7), 0, false)
	r.step(60)
	r.in.Keys = Input{Left: true}
	r.step(15)
	r.in.Keys = Input{}
	r.step(60)
	if h := r.hand(); math.Abs(h.X-(-3)) > 1e-6 || math.Abs(h.Z-7) > 1e-6 {
		t.Errorf("left from the pointed (-2, 7) for a quarter second: hand at %v, want (-3, 7)", h)
	}
	r.in.Keys = Input{Z: true}
	r.step(1)
	if !r.v.Avatar(1).Parts[VRRightHand].Held.Holding {
		t.Error("z did not grip the cube under the hand")
	}
}
