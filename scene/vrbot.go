package scene

import (
	"github.com/netphys/netphys/vecmath"
)

// VRActKind is what a bot does in one act of its script.
type VRActKind uint8

const (
	// ActWait keeps the empty hands at rest, and a holding hand where it
	// is, until tick At.
	ActWait VRActKind = iota
	// ActGrab reaches above Cube with Hand and grips once there and at
	// tick At or later; it ends when the hand holds something, or after
	// ten seconds.
	ActGrab
	// ActMove moves Hand to To, holding whatever it holds.
	ActMove
	// ActLift moves Hand straight up or down to the height To.Y.
	ActLift
	// ActPlace moves Hand to To and lets go there.
	ActPlace
	// ActThrow lets go with the velocity that lands the held cube's centre
	// at To after Flight seconds.
	ActThrow
	// ActCatch holds Hand open at To, gripping, until it holds something or
	// tick At passes.
	ActCatch
)

// VRAct is one step of a bot's script.
type VRAct struct {
	Kind   VRActKind
	Hand   int
	Cube   int
	At     int          // tick
	To     vecmath.Vec3 // m
	Flight float64      // s
}

// VRBot drives a player from a script: it is the VRController of the
// benchmarks and of the bot players, standing in for VR hardware.
type VRBot struct {
	player int
	acts   []VRAct
	k      int // current act
	ticks  int // ticks spent in it
	tick   int
	hands  [2]vecmath.Transform
	grip   [2]bool
	speed  float64 // m/s
	ready  bool
}

// NewVRBot returns a bot playing player p by acts.
func NewVRBot(p int, acts []VRAct) *VRBot {
	return &VRBot{player: p, acts: acts, speed: 3}
}

// Stop ends the script now: the hands let go and return to rest.
func (b *VRBot) Stop() { b.k = len(b.acts) }

// Done reports whether the script has ended.
func (b *VRBot) Done() bool { return b.k >= len(b.acts) }

// Control implements VRController.
func (b *VRBot) Control(v *VR) VRControls {
	rest := v.Rest(b.player)
	if !b.ready {
		b.hands, b.ready = vrHands(&rest), true
	}
	b.tick++
	for b.k < len(b.acts) && b.do(v, &b.acts[b.k]) {
		b.k++
		b.ticks = 0
		if b.acts[b.k-1].Kind == ActThrow {
			break // the throw's swing is this step's hand motion
		}
	}
	b.ticks++
	if b.Done() {
		for h := range b.hands {
			b.move(h, rest.Parts[VRHand(h)].Pose.Pos, v.cfg.Physics.TimeStep)
			b.grip[h] = false
		}
	}
	return VRControls{Head: rest.Parts[VRHead].Pose, Hands: b.hands, Grip: b.grip}
}

// move takes hand h towards to at the bot's speed and reports arrival.
func (b *VRBot) move(h int, to vecmath.Vec3, dt float64) bool {
	d := to.Sub(b.hands[h].Pos)
	l := d.Length()
	if step := float64(b.speed * dt); l > step {
		b.hands[h].Pos = b.hands[h].Pos.Add(d.Scale(step / l))
		return false
	}
	b.hands[h].Pos = to
	return true
}

// do runs one tick of act a and reports whether it is over.
func (b *VRBot) do(v *VR, a *VRAct) bool {
	dt := v.cfg.Physics.TimeStep
	holding := v.avatars[b.player].Parts[VRHand(a.Hand)].Held.Holding
	switch a.Kind {
	case ActWait:
		for h := range b.hands {
			if !v.avatars[b.player].Parts[VRHand(h)].Held.Holding {
				b.move(h, restHand(v, b.player, h), dt)
			}
		}
		return b.tick >= a.At
	case ActGrab:
		top := v.Object(a.Cube).Position.Add(vecmath.V3(0, float64(v.cfg.CubeSize/2)+v.cfg.HandRadius+0.05, 0))
		there := b.move(a.Hand, top, dt)
		if holding || b.ticks > 600 {
			return true
		}
		b.grip[a.Hand] = there && b.tick >= a.At
		return false
	case ActMove:
		return b.move(a.Hand, a.To, dt)
	case ActLift:
		p := b.hands[a.Hand].Pos
		return b.move(a.Hand, vecmath.V3(p.X, a.To.Y, p.Z), dt)
	case ActPlace:
		if b.move(a.Hand, a.To, dt) {
			b.grip[a.Hand] = false
			return true
		}
		return false
	case ActThrow:
		if !holding {
			b.grip[a.Hand] = false
			return true
		}
		held := v.avatars[b.player].Parts[VRHand(a.Hand)].Held
		hand := b.hands[a.Hand]
		from := hand.Mul(held.Relative).Pos
		g := v.cfg.Physics.Gravity
		vel := a.To.Sub(from).Scale(1 / a.Flight).Sub(g.Scale(float64(0.5 * a.Flight)))
		b.hands[a.Hand].Pos = hand.Pos.Add(vel.Scale(dt))
		b.grip[a.Hand] = false
		return true
	case ActCatch:
		b.move(a.Hand, a.To, dt)
		b.grip[a.Hand] = true
		if holding || b.tick >= a.At {
			b.grip[a.Hand] = holding
			return true
		}
		return false
	}
	return true
}

func restHand(v *VR, p, h int) vecmath.Vec3 { return v.Rest(p).Parts[VRHand(h)].Pose.Pos }
