package scene

import "github.com/netphys/netphys/vecmath"

// VRKeys drives a player from the six buttons of a browser page, standing
// in for VR controllers: the arrows move the right hand over the table
// (up is away from the player), space raises it while held and it sinks
// back to waist height otherwise, and z closes the hand: hold z to carry a
// cube, let go to throw it with the hand's velocity.
type VRKeys struct {
	player int
	input  func() Input
	hand   vecmath.Vec3
	ready  bool
}

// NewVRKeys returns the controller of player p reading input each step.
func NewVRKeys(p int, input func() Input) *VRKeys { return &VRKeys{player: p, input: input} }

// vrKeySpeed is how fast the keys move the hand, m/s.
const vrKeySpeed = 4

// Control implements VRController.
func (k *VRKeys) Control(v *VR) VRControls {
	rest := v.Rest(k.player)
	if !k.ready {
		k.hand, k.ready = rest.Hands[1].Pos, true
	}
	in := k.input()
	f := vrForward(k.player)
	side := vecmath.V3(0, 1, 0).Cross(f)
	var d vecmath.Vec3
	if in.Up {
		d = d.Add(f)
	}
	if in.Down {
		d = d.Sub(f)
	}
	if in.Left {
		d = d.Add(side)
	}
	if in.Right {
		d = d.Sub(side)
	}
	switch {
	case in.Space:
		d = d.Add(vecmath.V3(0, 1, 0))
	case k.hand.Y > rest.Hands[1].Pos.Y:
		d = d.Add(vecmath.V3(0, -0.5, 0))
	}
	k.hand = k.hand.Add(d.Scale(float64(vrKeySpeed * v.cfg.Physics.TimeStep)))
	k.hand.Y = max(k.hand.Y, float64(v.cfg.HandRadius))
	c := VRControls{Head: rest.Head, Hands: rest.Hands}
	c.Hands[1].Pos = k.hand
	c.Grip[1] = in.Z
	return c
}
