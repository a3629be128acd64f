package scene

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// The arena is the shooter world of the client-prediction model (seed
// 002): up to 16 upright capsule characters that walk, jump, push cubes
// and fire hitscan shots, in a walled square with pillars and ramps. It
// implements predict.Game[ArenaInput] and the optional predict.Shooter,
// Joiner, Toucher, Stepper, Relayer and Escaper; server and clients step
// it bit-identically.
//
// A character is a dynamic capsule whose velocity the input steers each
// tick (accelerating towards the wished speed, slower in the air), kept
// upright by zeroing its rotation after every step. Letting the solver
// move it, rather than a hand-written kinematic controller, gives walls,
// ramps, cubes and other players for free, and the same solver on both
// sides keeps the prediction exact while nothing else touches it.

// ArenaConfig sizes the arena and its characters.
type ArenaConfig struct {
	// Physics must have the model's tick as its TimeStep. HistoryTicks
	// can be 0: the model keeps the states lag compensation needs.
	Physics physics.Config

	Players int     // player slots, 1..16
	Cubes   int     // pushable cubes
	Half    float64 // half the side of the walled square, m

	PlayerRadius     float64 // capsule radius, m
	PlayerHalfHeight float64 // half the capsule's core segment, m (height = 2·(this+radius))
	PlayerMass       float64 // kg
	MoveSpeed        float64 // wished speed at a full move, m/s
	GroundAccel      float64 // how fast the speed follows the wish on the ground, m/s²
	AirAccel         float64 // and in the air, m/s²
	JumpSpeed        float64 // upward speed of a jump, m/s
	EyeHeight        float64 // shots start this far above the capsule's centre, m
	ShotRange        float64 // m
	// FireInterval is the rate of fire, a game rule: at least this long,
	// s, between two shots of a player (rounded to whole ticks; 0: every
	// tick). The cooldown is part of the simulated state, so the client
	// predicts it and the server enforces it; a shot during it is
	// predict.ShotRefused.
	FireInterval float64

	CubeSize float64 // m
	CubeMass float64 // kg
}

// DefaultArenaConfig returns a 40 m arena at tickRate Hz for 16 players
// with 24 cubes of 1 m and 20 kg.
func DefaultArenaConfig(tickRate int) ArenaConfig {
	p := physics.DefaultConfig()
	p.TimeStep = 1 / float64(tickRate)
	p.HistoryTicks = 0
	return ArenaConfig{
		Physics: p, Players: 16, Cubes: 24, Half: 20,
		PlayerRadius: 0.4, PlayerHalfHeight: 0.5, PlayerMass: 80,
		MoveSpeed: 6, GroundAccel: 50, AirAccel: 10, JumpSpeed: 5,
		EyeHeight: 0.6, ShotRange: 60, FireInterval: 0.1,
		CubeSize: 1, CubeMass: 20,
	}
}

// MaxArenaPlayers bounds ArenaConfig.Players.
const MaxArenaPlayers = 16

// Collision layers of the arena's bodies: shots are blocked by the static
// ones and hit players.
const (
	layerStatic = 1 << iota
	layerPlayer
	layerCube
)

// Arena is the shooter world: a physics world and the bookkeeping of its
// players. Body i < Players is player i's character, the cubes follow.
type Arena struct {
	cfg      ArenaConfig
	World    *physics.World
	bodies   []physics.BodyID
	present  []bool
	touching []bool
	cooldown []uint16 // ticks before the player may fire again
	reload   uint16   // FireInterval in ticks
	capsule  collide.Shape
	spec     wire.StateSpec
}

var (
	_ predict.Game[ArenaInput]    = (*Arena)(nil)
	_ predict.Shooter[ArenaInput] = (*Arena)(nil)
	_ predict.Joiner              = (*Arena)(nil)
	_ predict.Toucher             = (*Arena)(nil)
	_ predict.Stepper[ArenaInput] = (*Arena)(nil)
	_ predict.Relayer[ArenaInput] = (*Arena)(nil)
	_ predict.Escaper             = (*Arena)(nil)
)

// NewArena builds the arena with every player parked.
func NewArena(cfg ArenaConfig) (*Arena, error) {
	if cfg.Players < 1 || cfg.Players > MaxArenaPlayers || cfg.Cubes < 0 || cfg.Players+cfg.Cubes > predict.MaxBodies ||
		!(cfg.Half >= 8 && cfg.Half <= 28) || !(cfg.PlayerRadius > 0) || !(cfg.PlayerMass > 0) || !(cfg.CubeMass > 0) ||
		!(cfg.FireInterval >= 0 && cfg.FireInterval <= 60) {
		return nil, fmt.Errorf("%w: arena of %d players, %d cubes, half side %v m", ErrSetup, cfg.Players, cfg.Cubes, cfg.Half)
	}
	w, err := physics.NewWorld(cfg.Physics)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	a := &Arena{
		cfg: cfg, World: w, present: make([]bool, cfg.Players), touching: make([]bool, cfg.Players),
		cooldown: make([]uint16, cfg.Players), reload: uint16(math.Round(cfg.FireInterval / cfg.Physics.TimeStep)),
		capsule: collide.Shape{Kind: collide.Capsule, Radius: cfg.PlayerRadius, HalfHeight: cfg.PlayerHalfHeight},
		spec:    arenaSpec(),
	}
	if err := a.buildStatic(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	for p := 0; p < cfg.Players; p++ {
		def := physics.DefaultBodyDef()
		def.Shape, def.Mass, def.Friction = a.capsule, cfg.PlayerMass, 0
		def.Layers, def.UserData = layerPlayer, uint64(p)+1
		def.Position = parking(p)
		id, err := w.CreateBody(def)
		if err != nil {
			return nil, fmt.Errorf("%w: player %d: %w", ErrSetup, p, err)
		}
		a.bodies = append(a.bodies, id)
		a.Park(p)
	}
	for i := 0; i < cfg.Cubes; i++ {
		h := cfg.CubeSize / 2
		def := physics.DefaultBodyDef()
		def.Shape = collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(h, h, h)}
		def.Mass, def.Layers = cfg.CubeMass, layerCube
		def.Position = cubeStart(i, cfg)
		id, err := w.CreateBody(def)
		if err != nil {
			return nil, fmt.Errorf("%w: cube %d: %w", ErrSetup, i, err)
		}
		a.bodies = append(a.bodies, id)
	}
	return a, nil
}

// arenaSpec quantizes positions to 1/512 m within the arena and its
// parking row above, velocities to 1/256 m/s or rad/s within ±32,
// orientations to 11 bits per smallest-three component.
func arenaSpec() wire.StateSpec {
	const pos, vel = 1.0 / 512, 1.0 / 256
	v := wire.Bounds{Min: vecmath.V3(-32, -32, -32), Max: vecmath.V3(32-vel, 32-vel, 32-vel), Res: vel}
	return wire.StateSpec{
		Position:        wire.Bounds{Min: vecmath.V3(-32, -4, -32), Max: vecmath.V3(32-pos, 60-pos, 32-pos), Res: pos},
		OrientationBits: 11,
		LinearVelocity:  v,
		AngularVelocity: v,
	}
}

// buildStatic adds the ground, the four walls, four pillars and two ramps.
func (a *Arena) buildStatic() error {
	h := a.cfg.Half
	add := func(shape collide.Shape, pos vecmath.Vec3, rot vecmath.Quat) error {
		def := physics.DefaultBodyDef()
		def.Type, def.Shape, def.Position, def.Rotation = physics.Static, shape, pos, rot
		def.Layers = layerStatic
		_, err := a.World.CreateBody(def)
		return err
	}
	box := func(x, y, z float64) collide.Shape {
		return collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(x, y, z)}
	}
	id := vecmath.QuatIdentity
	if err := add(collide.Shape{Kind: collide.Plane}, vecmath.Vec3{}, id); err != nil {
		return err
	}
	for _, w := range []struct {
		shape collide.Shape
		pos   vecmath.Vec3
	}{
		{box(h+1, 2, 0.5), vecmath.V3(0, 2, h+0.5)},
		{box(h+1, 2, 0.5), vecmath.V3(0, 2, -h-0.5)},
		{box(0.5, 2, h+1), vecmath.V3(h+0.5, 2, 0)},
		{box(0.5, 2, h+1), vecmath.V3(-h-0.5, 2, 0)},
		// Pillars to hide behind.
		{box(1, 1.5, 1), vecmath.V3(h/2, 1.5, h/2)},
		{box(1, 1.5, 1), vecmath.V3(-h/2, 1.5, h/2)},
		{box(1, 1.5, 1), vecmath.V3(h/2, 1.5, -h/2)},
		{box(1, 1.5, 1), vecmath.V3(-h/2, 1.5, -h/2)},
	} {
		if err := add(w.shape, w.pos, id); err != nil {
			return err
		}
	}
	// Two ramps, 15° slabs rising towards the centre line.
	tilt := vecmath.QuatAxisAngle(vecmath.V3(1, 0, 0), 0.26)
	if err := add(box(2, 0.25, 4), vecmath.V3(-h/2, 0.8, 0), tilt); err != nil {
		return err
	}
	return add(box(2, 0.25, 4), vecmath.V3(h/2, 0.8, 0), tilt.Conj())
}

// parking is where an absent player's capsule sleeps: in a row high above
// the arena, apart from each other.
func parking(p int) vecmath.Vec3 { return vecmath.V3(float64(3*p)-22.5, 50, 0) }

// spawnPoint puts the players on a circle around the centre.
func spawnPoint(p int, cfg ArenaConfig) vecmath.Vec3 {
	s, c := vecmath.SinCos(float64(p) * (2 * 3.141592653589793 / MaxArenaPlayers))
	r := cfg.Half * 0.6
	return vecmath.V3(float64(r*s), cfg.PlayerRadius+cfg.PlayerHalfHeight, float64(r*c))
}

// cubeStart puts the cubes in four clusters between the spawn circle and
// the centre.
func cubeStart(i int, cfg ArenaConfig) vecmath.Vec3 {
	cluster, k := i%4, i/4
	cx := float64([...]float64{1, -1, 1, -1}[cluster] * cfg.Half * 0.3)
	cz := float64([...]float64{1, 1, -1, -1}[cluster] * cfg.Half * 0.3)
	row, col := k/3, k%3
	pitch := float64(1.5 * cfg.CubeSize)
	x := cx + float64(float64(col-1)*pitch)
	y := float64(cfg.CubeSize/2) + float64(float64(row)*cfg.CubeSize)
	return vecmath.V3(x, y, cz+float64(float64(row)*0.2))
}

// Config returns the arena's configuration.
func (a *Arena) Config() ArenaConfig { return a.cfg }

// Players implements predict.Game.
func (a *Arena) Players() int { return a.cfg.Players }

// Bodies implements predict.Game.
func (a *Arena) Bodies() int { return len(a.bodies) }

// Spec implements predict.Game.
func (a *Arena) Spec() wire.StateSpec { return a.spec }

// BodyID returns the physics handle of body i.
func (a *Arena) BodyID(i int) physics.BodyID { return a.bodies[i] }

// IsPresent reports whether player p is in the game.
func (a *Arena) IsPresent(p int) bool { return a.present[p] }

// arenaState is a saved arena.
type arenaState struct {
	world    physics.Snapshot
	present  []bool
	touching []bool
	cooldown []uint16
}

// NewState implements predict.Game.
func (a *Arena) NewState() predict.State { return &arenaState{} }

// Save implements predict.Game.
func (a *Arena) Save(dst predict.State) {
	d := dst.(*arenaState)
	a.World.Snapshot(&d.world)
	d.present = append(d.present[:0], a.present...)
	d.touching = append(d.touching[:0], a.touching...)
	d.cooldown = append(d.cooldown[:0], a.cooldown...)
}

// Load implements predict.Game.
func (a *Arena) Load(src predict.State) error {
	s := src.(*arenaState)
	if err := a.World.Restore(&s.world); err != nil {
		return err
	}
	copy(a.present, s.present)
	copy(a.touching, s.touching)
	copy(a.cooldown, s.cooldown)
	return nil
}

func (a *Arena) state(id physics.BodyID) physics.BodyState { return bodyState(a.World, id) }

// Body implements predict.Game.
func (a *Arena) Body(i int) wire.BodyState {
	return wire.BodyState(a.state(a.bodies[i]))
}

// SetBody implements predict.Game.
func (a *Arena) SetBody(i int, s wire.BodyState) error {
	if i < 0 || i >= len(a.bodies) {
		return fmt.Errorf("%w: body %d of %d", physics.ErrInvalidBody, i, len(a.bodies))
	}
	st := physics.BodyState{Position: s.Position, Rotation: s.Rotation, AtRest: s.AtRest}
	if !s.AtRest {
		st.LinearVelocity, st.AngularVelocity = s.LinearVelocity, s.AngularVelocity
	}
	return a.World.SetState(a.bodies[i], st)
}

// Spawn implements predict.Joiner.
func (a *Arena) Spawn(p int) {
	a.present[p], a.cooldown[p] = true, 0
	a.World.SetState(a.bodies[p], physics.BodyState{Position: spawnPoint(p, a.cfg), Rotation: vecmath.QuatIdentity})
}

// Park implements predict.Joiner.
func (a *Arena) Park(p int) {
	a.present[p], a.touching[p], a.cooldown[p] = false, false, 0
	a.World.SetState(a.bodies[p], physics.BodyState{Position: parking(p), Rotation: vecmath.QuatIdentity, AtRest: true})
}

// Touching implements predict.Toucher.
func (a *Arena) Touching(p int) bool { return a.touching[p] }

// Step implements predict.Game: steer every present character, start or
// count down its cooldown after a shot, step the world, stand the
// characters up again and note who touched whom.
func (a *Arena) Step(in []ArenaInput) {
	for p, on := range a.present {
		if !on {
			continue
		}
		a.steer(p, in[p])
		switch {
		case a.cooldown[p] > 0:
			a.cooldown[p]--
		case in[p].Shoot && a.reload > 0:
			a.cooldown[p] = a.reload - 1
		}
	}
	a.World.Step()
	for p, on := range a.present {
		a.touching[p] = false
		if on {
			// Upright again; a resting character stays at rest, so that it
			// does not keep the cubes it leans on awake.
			st := a.state(a.bodies[p])
			st.Rotation, st.AngularVelocity = vecmath.QuatIdentity, vecmath.Vec3{}
			a.World.SetState(a.bodies[p], st)
		}
	}
	a.World.Touching(func(x, y physics.BodyID) {
		px, py := a.player(x), a.player(y)
		dx, dy := a.World.Type(x) == physics.Dynamic, a.World.Type(y) == physics.Dynamic
		if px >= 0 && dy {
			a.touching[px] = true
		}
		if py >= 0 && dx {
			a.touching[py] = true
		}
	})
}

// player returns the player slot of body id, or -1.
func (a *Arena) player(id physics.BodyID) int {
	u := a.World.UserData(id)
	if a.World.Type(id) != physics.Dynamic || u == 0 || u > uint64(a.cfg.Players) || a.bodies[u-1] != id {
		return -1
	}
	return int(u - 1)
}

// steer turns player p's input into its velocity for the next step.
func (a *Arena) steer(p int, in ArenaInput) {
	cfg, id := a.cfg, a.bodies[p]
	st := a.state(id)
	grounded := a.grounded(p, st.Position)
	k := cfg.MoveSpeed / ArenaMoveMax
	wish := vecmath.V3(float64(float64(in.MoveX)*k), 0, float64(float64(in.MoveZ)*k))
	if st.AtRest && wish == (vecmath.Vec3{}) && !in.Jump {
		return // standing still: leave it asleep
	}
	dv := wish.Sub(vecmath.V3(st.LinearVelocity.X, 0, st.LinearVelocity.Z))
	accel := cfg.AirAccel
	if grounded {
		accel = cfg.GroundAccel
	}
	if limit := accel * cfg.Physics.TimeStep; dv.LengthSq() > limit*limit {
		dir, _ := dv.Normalize()
		dv = dir.Scale(limit)
	}
	v := st.LinearVelocity.Add(dv)
	if in.Jump && grounded && v.Y < 0.5 {
		v.Y = cfg.JumpSpeed
	}
	st.LinearVelocity, st.AngularVelocity, st.Rotation, st.AtRest = v, vecmath.Vec3{}, vecmath.QuatIdentity, false
	a.World.SetState(id, st)
}

// grounded reports whether something is just under player p's feet.
func (a *Arena) grounded(p int, pos vecmath.Vec3) bool {
	reach := a.cfg.PlayerHalfHeight + a.cfg.PlayerRadius + 0.08
	_, hit := a.World.RayCast(pos, vecmath.V3(0, -reach, 0), physics.QueryFilter{Ignore: a.bodies[p : p+1]})
	return hit
}

// Aim returns the origin and unit direction of player p's shot with in's
// aim, from where the arena has the player now.
func (a *Arena) Aim(p int, in ArenaInput) (origin, dir vecmath.Vec3) {
	sy, cy := vecmath.SinCos(in.YawRadians())
	sp, cp := vecmath.SinCos(in.PitchRadians())
	origin = a.state(a.bodies[p]).Position.Add(vecmath.V3(0, a.cfg.EyeHeight, 0))
	return origin, vecmath.V3(float64(cp*sy), sp, float64(cp*cy))
}

// Shot implements predict.Shooter: a hitscan ray from player p's eye
// along its aim, stopped by walls, pillars, ramps and the ground (which
// never move, so the present world answers for them), against the other
// players' capsules at the given states. A shot during the player's
// cooldown (FireInterval) is refused.
func (a *Arena) Shot(p int, in ArenaInput, targets []wire.BodyState, present []bool) (int, predict.ShotOutcome) {
	if a.cooldown[p] > 0 {
		return 0, predict.ShotRefused
	}
	origin, dir := a.Aim(p, in)
	ray := dir.Scale(a.cfg.ShotRange)
	best := 1.0
	if hit, ok := a.World.RayCast(origin, ray, physics.QueryFilter{Mask: layerStatic}); ok {
		best = hit.Fraction
	}
	target, found := 0, false
	for i := 0; i < a.cfg.Players; i++ {
		if i == p || !present[i] {
			continue
		}
		xf := vecmath.Transform{Pos: targets[i].Position, Rot: vecmath.QuatIdentity}
		if frac, _, ok := collide.RayCast(&a.capsule, xf, origin, ray); ok && frac < best {
			best, target, found = frac, i, true
		}
	}
	if !found {
		return 0, predict.ShotMissed
	}
	return target, predict.ShotHit
}

// Escaped implements predict.Escaper: a body the spec cannot hold (flung
// out of the arena, or faster than ±32 m/s) starts again at rest where it
// started: a player at its spawn point, a cube at its starting place.
func (a *Arena) Escaped(i int, _ error) {
	var pos vecmath.Vec3
	switch {
	case i >= a.cfg.Players:
		pos = cubeStart(i-a.cfg.Players, a.cfg)
	case a.present[i]:
		pos = spawnPoint(i, a.cfg)
	default:
		pos = parking(i)
	}
	a.World.SetState(a.bodies[i], physics.BodyState{Position: pos, Rotation: vecmath.QuatIdentity, AtRest: true})
}
