package scene

import (
	"fmt"

	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// VRPlayers is the table of the VR sample: a host and three guests.
const VRPlayers = statesync.MaxPlayers

// VRTower is a column of cubes standing on the ground.
type VRTower struct {
	X, Z  float64 // m
	Cubes int
}

// VRConfig sets up the VR world: the towers, the loose cubes and the
// players' avatars.
type VRConfig struct {
	Physics  physics.Config
	CubeSize float64 // edge, m
	CubeMass float64 // kg
	Friction float64
	// Towers stand on the ground; Loose cubes lie on the ground in front of
	// each player, and one more cube, the contested one, between players 0
	// and 1.
	Towers []VRTower
	Loose  int
	// Players stand on a circle of this radius around the centre, facing it.
	PlayerRadius float64
	// HeadRadius and HandRadius size the avatars' spheres, m.
	HeadRadius, HandRadius float64
	// GrabReach: a gripping hand takes the nearest cube whose centre is
	// this close, m.
	GrabReach float64
	// MaxHandSpeed caps how fast a hand follows its target, m/s.
	MaxHandSpeed float64
}

// DefaultVRConfig returns the world of the issue: a tower of 30 cubes in
// the middle and one of 16 in front of each player, four loose cubes per
// player, 1 m cubes of 1 kg.
func DefaultVRConfig() VRConfig {
	c := VRConfig{
		Physics:      vrPhysics(),
		CubeSize:     1,
		CubeMass:     1,
		Friction:     0.6,
		Loose:        4,
		PlayerRadius: 10,
		HeadRadius:   0.15,
		HandRadius:   0.1,
		GrabReach:    0.9,
		MaxHandSpeed: 20,
	}
	c.Towers = append(c.Towers, VRTower{Cubes: 30})
	for p := range VRPlayers {
		d := vrForward(p).Scale(-4.5)
		c.Towers = append(c.Towers, VRTower{X: d.X, Z: d.Z, Cubes: 16})
	}
	return c
}

// vrPhysics is the VR world's physics: the defaults with three relax
// passes per substep instead of one. A 16-cube tower hit in the middle by
// a thrown cube and left standing swayed for 10 to 30 s with one relax
// pass (its top at 0.1-0.4 m/s, never quiet long enough to rest) and for
// 2 to 6 s with three; the relax passes solve the contacts again without
// the soft contacts' push-out velocity, which is what the sway feeds on.
// Tall stacks stand as before. The solver costs twice the passes
// (4 substeps of 1 + 3), a fraction of a millisecond per step for this
// world.
func vrPhysics() physics.Config {
	c := physics.DefaultConfig()
	c.RelaxIterations = 3
	return c
}

// vrForward is the direction player p faces: from its place to the centre.
func vrForward(p int) vecmath.Vec3 {
	return [VRPlayers]vecmath.Vec3{{X: -1}, {Z: -1}, {X: 1}, {Z: 1}}[p]
}

// The parts of a VR avatar (statesync.Avatar.Parts, VR.AvatarShape): the
// head, the root, then the left and the right hand.
const (
	VRHead = iota
	VRLeftHand
	VRRightHand
)

// VRHand returns the part of hand h, 0 the left, 1 the right.
func VRHand(h int) int { return VRLeftHand + h }

// vrHands returns the poses of a's hands.
func vrHands(a *statesync.Avatar) [2]vecmath.Transform {
	return [2]vecmath.Transform{a.Parts[VRLeftHand].Pose, a.Parts[VRRightHand].Pose}
}

// VRControls are what a player's hardware (or bot) gives for one step:
// where the head and hands are, and which hands grip.
type VRControls struct {
	Head  vecmath.Transform
	Hands [2]vecmath.Transform
	Grip  [2]bool
}

// VRController drives the local player: a bot, or a browser player's keys
// and mouse.
type VRController interface {
	Control(v *VR) VRControls
}

// VR is the VR sample's world for one machine: cubes in towers, four
// avatars of kinematic spheres (a head and two hands) that push cubes,
// grab them (a held cube follows its hand) and throw them (a released
// cube takes the hand's velocity). It implements statesync.Game and
// statesync.Avatars; the local
// player is driven by a VRController.
type VR struct {
	cfg   VRConfig
	World *physics.World
	// Cubes are the synchronized objects, in the order Layout describes.
	Cubes     []physics.BodyID
	loose     [VRPlayers][]int
	towers    [][]int
	contested int
	local     statesync.Player
	// controllers drive the players who play on this machine: the local
	// one on a networked machine, every player offline (vroffline.go).
	controllers [VRPlayers]VRController
	avatars     [VRPlayers]statesync.Avatar
	present     [VRPlayers]bool
	bodies      [VRPlayers][3]physics.BodyID // by part: head, left hand, right hand
	// holding and released follow each hand's holds, for the bodies to
	// stand aside after a release (vrgame.go); tick counts Steps.
	holding  [VRPlayers][2]bool
	released [VRPlayers][2]int
	tick     int
	pairs    [][2]int
	pokes    [][2]int // player, cube
}

// avatarTag marks the user data of avatar bodies: tag | player<<8 | part.
const avatarTag = 1 << 32

// NewVR builds the world with local as the local player, driven by c
// (nil: it stands still).
func NewVR(cfg VRConfig, local statesync.Player, c VRController) (*VR, error) {
	if local >= VRPlayers {
		return nil, fmt.Errorf("%w: player %d", ErrSetup, local)
	}
	w, err := physics.NewWorld(cfg.Physics)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	v := &VR{cfg: cfg, World: w, local: local}
	v.controllers[local] = c
	ground := physics.DefaultBodyDef()
	ground.Type, ground.Shape, ground.Friction = physics.Static, collide.Shape{Kind: collide.Plane}, cfg.Friction
	if _, err := w.CreateBody(ground); err != nil {
		return nil, fmt.Errorf("%w: ground: %w", ErrSetup, err)
	}
	h := cfg.CubeSize / 2
	for _, t := range cfg.Towers {
		var ids []int
		for k := range t.Cubes {
			ids = append(ids, len(v.Cubes))
			if err := v.addCube(vecmath.V3(t.X, float64(float64(2*k+1)*h), t.Z)); err != nil {
				return nil, err
			}
		}
		v.towers = append(v.towers, ids)
	}
	for p := range VRPlayers {
		f := vrForward(p)
		side := vecmath.V3(0, 1, 0).Cross(f)
		for k := range cfg.Loose {
			lateral := float64(float64(k)-float64(float64(cfg.Loose-1)/2)) * 2
			at := f.Scale(-(cfg.PlayerRadius - 3)).Add(side.Scale(lateral))
			v.loose[p] = append(v.loose[p], len(v.Cubes))
			if err := v.addCube(vecmath.V3(at.X, h, at.Z)); err != nil {
				return nil, err
			}
		}
	}
	mid := vrForward(0).Add(vrForward(1)).Scale(-(cfg.PlayerRadius - 3) / 1.4142135623730951)
	v.contested = len(v.Cubes)
	if err := v.addCube(vecmath.V3(mid.X, h, mid.Z)); err != nil {
		return nil, err
	}
	for p := range VRPlayers {
		for part, r := range []float64{cfg.HeadRadius, cfg.HandRadius, cfg.HandRadius} {
			def := physics.DefaultBodyDef()
			def.Type, def.Shape = physics.Kinematic, collide.Shape{Kind: collide.Sphere, Radius: r}
			def.Position = v.parked(p, part)
			def.UserData = avatarTag | uint64(p)<<8 | uint64(part)
			if v.bodies[p][part], err = w.CreateBody(def); err != nil {
				return nil, fmt.Errorf("%w: avatar: %w", ErrSetup, err)
			}
		}
		v.avatars[p] = v.Rest(p)
	}
	v.present[local] = true
	for p := range v.released {
		v.released[p] = [2]int{-releaseTicks, -releaseTicks}
	}
	v.settle()
	return v, nil
}

// maxSettleSteps bounds settle: ten seconds of simulation.
const maxSettleSteps = 600

// settle steps the new world until every cube rests, so that a match
// starts from towers that stand still (each has sagged onto its soft
// contacts) rather than from a start that settles differently on each
// machine as corrections arrive. The world is deterministic, so every
// machine settles to the same bits.
func (v *VR) settle() {
	for range maxSettleSteps {
		if v.resting() {
			return
		}
		v.World.Step()
	}
}

func (v *VR) addCube(p vecmath.Vec3) error {
	def := physics.DefaultBodyDef()
	s := v.cfg.CubeSize / 2
	def.Shape = collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(s, s, s)}
	def.Mass, def.Friction, def.Position = v.cfg.CubeMass, v.cfg.Friction, p
	def.UserData = uint64(len(v.Cubes)) + 1
	id, err := v.World.CreateBody(def)
	if err != nil {
		return fmt.Errorf("%w: cube: %w", ErrSetup, err)
	}
	v.Cubes = append(v.Cubes, id)
	return nil
}

// parked is where an absent player's avatar waits: far outside the table.
func (v *VR) parked(p, part int) vecmath.Vec3 {
	return vrForward(p).Scale(-v.cfg.PlayerRadius - 30).Add(vecmath.V3(float64(part), 1, 0))
}

// Home returns where player p stands, at head height.
func (v *VR) Home(p int) vecmath.Vec3 {
	return vrForward(p).Scale(-v.cfg.PlayerRadius).Add(vecmath.V3(0, 1.7, 0))
}

// Rest returns player p's avatar standing at home, hands lowered.
func (v *VR) Rest(p int) statesync.Avatar {
	f := vrForward(p)
	side := vecmath.V3(0, 1, 0).Cross(f)
	head := v.Home(p)
	var a statesync.Avatar
	a.Parts[VRHead].Pose = vecmath.Transform{Pos: head, Rot: vecmath.QuatIdentity}
	for h, s := range []float64{-0.4, 0.4} {
		a.Parts[VRHand(h)].Pose = vecmath.Transform{Pos: head.Add(side.Scale(s)).Add(f.Scale(0.3)).Add(vecmath.V3(0, -0.6, 0)), Rot: vecmath.QuatIdentity}
	}
	return a
}

// Config returns the world's configuration.
func (v *VR) Config() VRConfig { return v.cfg }

// Local returns the local player.
func (v *VR) Local() statesync.Player { return v.local }

// Loose returns the cubes lying in front of player p at the start.
func (v *VR) Loose(p int) []int { return v.loose[p] }

// Tower returns the cubes of tower k (0 is the tall one in the middle,
// 1+p the one in front of player p), bottom first.
func (v *VR) Tower(k int) []int { return v.towers[k] }

// Contested returns the cube between players 0 and 1.
func (v *VR) Contested() int { return v.contested }

// Present reports whether player p's avatar is in the world.
func (v *VR) Present(p int) bool { return v.present[p] }
