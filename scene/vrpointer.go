package scene

import (
	"math"

	"github.com/netphys/netphys/vecmath"
)

// Pointer is a browser player's mouse over the VR table: the ray from the
// page's camera through the mouse, how far the player lifted the hand
// above its usual height (right-drag), and the left button.
type Pointer struct {
	From, Dir vecmath.Vec3 // the camera, m, and a unit vector through the mouse
	Lift      float64      // m above the hand's usual height; negative is below
	Grip      bool         // the left button: hold to carry, release to throw
}

// VRInput is what a browser page gives a VR player for one step: the keys
// and, once the mouse moved over the views, the pointer.
type VRInput struct {
	Keys     Input
	Pointer  Pointer
	Pointing bool // Pointer is set
}

// VRPointerConfig tunes how a browser page moves a VR hand.
type VRPointerConfig struct {
	// KeySpeed is how fast the arrows and space move the hand, m/s.
	KeySpeed float64
	// MaxSpeed caps how fast the hand follows the mouse, m/s: the mouse
	// jumps across the table between two frames, and a hand that jumped
	// with it would fling every cube on its way. It is also the fastest
	// throw. At least KeySpeed.
	MaxSpeed float64
	// Hover is how far above its usual height the mouse holds the hand at
	// no lift, m: the usual height grazes the tops of the cubes lying on
	// the ground, and a hand swept across them would bat them away; 0.15 m
	// above, it passes over them and still reaches one whose centre is
	// within half a metre across (GrabReach 0.9 m).
	Hover float64
	// MaxLift is how far above its usual height the hand may rise, m.
	MaxLift float64
	// Follow is how fast the hand closes on its target, 1/s: each step it
	// covers Follow·TimeStep of the distance (a quarter at 15/s and 60
	// steps a second). Chasing a mouse that moves at a steady speed the
	// hand then moves at that speed, whichever steps the page's messages
	// fell in, and when the button is released where the mouse stopped the
	// hand still moves at 1 - Follow·TimeStep of it: the throw has about
	// the speed of the gesture, not that of the last message's jump, nor
	// none because the hand had already arrived.
	Follow float64
	// Reach is how far from the centre of the table the hand may go, m
	// (the players stand 10 m out).
	Reach float64
}

// DefaultVRPointerConfig returns the settings of the browser player.
func DefaultVRPointerConfig() VRPointerConfig {
	return VRPointerConfig{KeySpeed: 4, MaxSpeed: 10, Hover: 0.15, MaxLift: 4, Follow: 15, Reach: 11}
}

// VRPointer drives a player's right hand from a browser page, standing in
// for a VR controller. The mouse points the hand: it goes to where the
// pointer's ray crosses the hand's height, so it stays under the mouse; it
// hovers over the cubes on the ground, and right-drag lifts it
// (Pointer.Lift). The left button or z closes the hand: hold to carry a
// cube, let go to throw it with the hand's velocity. The arrows move the
// hand over the table (up is away from the player) and space raises it
// while held; it sinks back to its height otherwise.
//
// The keys and the mouse move one target, and the hand follows the target
// smoothly (Follow), no faster than MaxSpeed. A pointer the page repeats
// unchanged does not move the target, so the arrows can nudge the hand
// away from a mouse that rests.
type VRPointer struct {
	cfg    VRPointerConfig
	player int
	input  func() VRInput
	hand   vecmath.Vec3 // where the hand is
	target vecmath.Vec3 // where the keys and the mouse ask it to be
	height float64      // the height the hand sinks back to, m
	last   Pointer      // the pointer that last moved the target
	ready  bool         // hand, target and height are set
	seen   bool         // last is set
}

// NewVRPointer returns the controller of player p reading input each step.
func NewVRPointer(cfg VRPointerConfig, p int, input func() VRInput) *VRPointer {
	cfg.MaxSpeed = max(cfg.MaxSpeed, cfg.KeySpeed)
	return &VRPointer{cfg: cfg, player: p, input: input}
}

// Control implements VRController.
func (c *VRPointer) Control(v *VR) VRControls {
	rest := v.Rest(c.player)
	usual := rest.Parts[VRRightHand].Pose.Pos.Y
	low, high := v.cfg.HandRadius, float64(usual+c.cfg.MaxLift)
	if !c.ready {
		c.hand, c.target, c.height, c.ready = rest.Parts[VRRightHand].Pose.Pos, rest.Parts[VRRightHand].Pose.Pos, usual, true
	}
	dt := v.cfg.Physics.TimeStep
	in := c.input()
	in.Pointing = in.Pointing && in.Pointer.finite() // a broken pointer is no pointer
	switch {
	case in.Pointing && (!c.seen || in.Pointer != c.last):
		c.last, c.seen = in.Pointer, true
		c.height = clamp(float64(usual+c.cfg.Hover)+in.Pointer.Lift, low, high)
		c.target.Y = c.height
		if at, ok := crossing(in.Pointer, c.height); ok {
			c.target.X, c.target.Z = at.X, at.Z
		}
	case !in.Pointing:
		c.seen, c.height = false, usual
	}
	c.target = c.target.MulAdd(float64(c.cfg.KeySpeed*dt), c.keys(in.Keys))
	if !in.Keys.Space && c.target.Y > c.height {
		c.target.Y = max(float64(c.target.Y-float64(c.cfg.KeySpeed*dt/2)), c.height)
	}
	c.target.Y = clamp(c.target.Y, low, high)
	if r := math.Sqrt(float64(c.target.X*c.target.X) + float64(c.target.Z*c.target.Z)); r > c.cfg.Reach {
		c.target.X, c.target.Z = float64(c.target.X*c.cfg.Reach)/r, float64(c.target.Z*c.cfg.Reach)/r
	}
	step := c.target.Sub(c.hand).Scale(min(float64(c.cfg.Follow*dt), 1))
	if l, limit := step.Length(), float64(c.cfg.MaxSpeed*dt); l > limit {
		step = step.Scale(limit / l)
	}
	c.hand = c.hand.Add(step)
	ctl := VRControls{Head: rest.Parts[VRHead].Pose, Hands: vrHands(&rest)}
	ctl.Hands[1].Pos = c.hand
	ctl.Grip[1] = in.Keys.Z || (in.Pointing && in.Pointer.Grip)
	return ctl
}

// keys returns the direction the held keys move the target: the arrows
// over the table as the player faces it, space up.
func (c *VRPointer) keys(in Input) vecmath.Vec3 {
	f := vrForward(c.player)
	side := vecmath.V3(0, 1, 0).Cross(f)
	var d vecmath.Vec3
	for _, k := range []struct {
		held bool
		dir  vecmath.Vec3
	}{{in.Up, f}, {in.Down, f.Neg()}, {in.Left, side}, {in.Right, side.Neg()}, {in.Space, vecmath.V3(0, 1, 0)}} {
		if k.held {
			d = d.Add(k.dir)
		}
	}
	return d
}

func (p Pointer) finite() bool {
	return p.From.IsFinite() && p.Dir.IsFinite() && !math.IsNaN(p.Lift) && !math.IsInf(p.Lift, 0)
}

// crossing returns where p's ray crosses the plane at height y, if it
// does in front of the camera.
func crossing(p Pointer, y float64) (vecmath.Vec3, bool) {
	if p.Dir.Y == 0 {
		return vecmath.Vec3{}, false
	}
	t := (y - p.From.Y) / p.Dir.Y
	if !(t > 0) || math.IsInf(t, 0) {
		return vecmath.Vec3{}, false
	}
	return p.From.MulAdd(t, p.Dir), true
}

func clamp(x, lo, hi float64) float64 { return min(max(x, lo), hi) }
