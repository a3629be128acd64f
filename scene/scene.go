package scene

import (
	"errors"
	"fmt"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// ErrSetup reports a scene that cannot be built.
var ErrSetup = errors.New("scene: cannot build the scene")

// Scene is the cube world: a physics world, the player cubes (one, or up
// to MaxPlayers for lockstep), the other cubes and their "interacting"
// flags.
type Scene struct {
	cfg   Config
	World *physics.World
	// Player is the first player's cube, Players[0].
	Player physics.BodyID
	// Players are the player cubes by player index: player 0 where the
	// layout puts the single player, the others at the layout's centre
	// turned by a half, a quarter and three quarters of a turn.
	Players []physics.BodyID
	// Cubes are every cube but the player, in creation order. A cube's
	// index in this slice is its id on the wire and in the viewer.
	Cubes       []physics.BodyID
	interacting []bool
}

// MaxPlayers is the most player cubes a scene holds.
const MaxPlayers = 4

// New builds the scene of the given layout with one player.
func New(layout Layout, cfg Config) (*Scene, error) { return NewPlayers(layout, cfg, 1) }

// NewPlayers builds the scene of the given layout with 1 to MaxPlayers
// player cubes. With one it is New's scene, bit for bit.
func NewPlayers(layout Layout, cfg Config, players int) (*Scene, error) {
	if players < 1 || players > MaxPlayers {
		return nil, fmt.Errorf("%w: %d players, want 1 to %d", ErrSetup, players, MaxPlayers)
	}
	w, err := physics.NewWorld(cfg.Physics)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	s := &Scene{cfg: cfg, World: w}
	ground := physics.DefaultBodyDef()
	ground.Type = physics.Static
	ground.Shape = collide.Shape{Kind: collide.Plane}
	ground.Friction = cfg.Friction
	if _, err := w.CreateBody(ground); err != nil {
		return nil, fmt.Errorf("%w: ground: %w", ErrSetup, err)
	}
	if err := layout.build(s); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	p0 := s.State(s.Player).Position
	for i := 1; i < players; i++ {
		x, z := turn(p0.X, p0.Z, i)
		if err := s.addPlayer(x, z); err != nil {
			return nil, fmt.Errorf("%w: player %d: %w", ErrSetup, i, err)
		}
	}
	s.interacting = make([]bool, len(s.Cubes))
	return s, nil
}

// Config returns the configuration the scene was built with.
func (s *Scene) Config() Config { return s.cfg }

// addCube creates a cube at p with rotation q and records it in Cubes.
func (s *Scene) addCube(p vecmath.Vec3, q vecmath.Quat) error {
	def := s.cubeDef(s.cfg.CubeSize, s.cfg.CubeMass)
	def.Position, def.Rotation = p, q
	def.UserData = uint64(len(s.Cubes)) + 1
	id, err := s.World.CreateBody(def)
	if err != nil {
		return err
	}
	s.Cubes = append(s.Cubes, id)
	return nil
}

// turn rotates (x, z) about the vertical axis through the origin by a
// half turn (player 1), a quarter (2) or three quarters (3), so that the
// players face the layout from four sides.
func turn(x, z float64, player int) (float64, float64) {
	switch player {
	case 1:
		return -x, -z
	case 2:
		return z, -x
	case 3:
		return -z, x
	}
	return x, z
}

// addPlayer creates a player cube resting on the ground at (x, z).
func (s *Scene) addPlayer(x, z float64) error {
	def := s.cubeDef(s.cfg.PlayerSize, s.cfg.PlayerMass)
	def.Position = vecmath.V3(x, s.cfg.PlayerSize/2, z)
	id, err := s.World.CreateBody(def)
	if err != nil {
		return err
	}
	s.Players = append(s.Players, id)
	s.Player = s.Players[0]
	return nil
}

// isPlayer reports whether id is a player cube.
func (s *Scene) isPlayer(id physics.BodyID) bool {
	for _, p := range s.Players {
		if p == id {
			return true
		}
	}
	return false
}

func (s *Scene) cubeDef(size, mass float64) physics.BodyDef {
	def := physics.DefaultBodyDef()
	def.Type = physics.Dynamic
	def.Shape = collide.Shape{Kind: collide.Box, HalfExtents: vecmath.V3(size/2, size/2, size/2)}
	def.Mass = mass
	def.Friction = s.cfg.Friction
	return def
}

// cubeIndex returns the index in Cubes of body id, or -1 for the player,
// the ground or anything else.
func (s *Scene) cubeIndex(id physics.BodyID) int {
	u := s.World.UserData(id)
	if u == 0 || u > uint64(len(s.Cubes)) {
		return -1
	}
	return int(u - 1)
}

// Interacting reports whether cube i (an index into Cubes) is interacting:
// touched by the player, or by an interacting cube, since it last came to
// rest.
func (s *Scene) Interacting(i int) bool { return s.interacting[i] }

// SetInteracting sets cube i's flag, for a remote copy that receives it.
func (s *Scene) SetInteracting(i int, on bool) { s.interacting[i] = on }

// Step applies the first player's input as forces, advances the world one
// fixed step and updates the interacting flags.
func (s *Scene) Step(in Input) {
	s.applyInput(s.Player, in)
	s.World.Step()
	s.spreadInteraction()
}

// StepPlayers is Step with inputs[p] for player p, applied in player
// order; missing inputs are idle.
func (s *Scene) StepPlayers(inputs []Input) {
	for p, id := range s.Players {
		if p < len(inputs) {
			s.applyInput(id, inputs[p])
		}
	}
	s.World.Step()
	s.spreadInteraction()
}

// spreadInteraction marks cubes the player touches, and cubes that moving
// interacting cubes touch, then clears cubes that came to rest.
func (s *Scene) spreadInteraction() {
	s.World.Touching(func(a, b physics.BodyID) {
		ia, ib := s.cubeIndex(a), s.cubeIndex(b)
		switch {
		case ib >= 0 && s.isPlayer(a):
			s.interacting[ib] = true
		case ia >= 0 && s.isPlayer(b):
			s.interacting[ia] = true
		case ia >= 0 && ib >= 0 && s.interacting[ia] != s.interacting[ib]:
			s.interacting[ia], s.interacting[ib] = true, true
		}
	})
	for i, id := range s.Cubes {
		if s.interacting[i] && s.State(id).AtRest {
			s.interacting[i] = false
		}
	}
}

// applyInput turns a player's buttons into forces for the next step.
func (s *Scene) applyInput(id physics.BodyID, in Input) {
	w, cfg := s.World, s.cfg
	player := s.State(id).Position
	var push vecmath.Vec3
	if in.Left {
		push.X--
	}
	if in.Right {
		push.X++
	}
	if in.Up {
		push.Z--
	}
	if in.Down {
		push.Z++
	}
	// move is the arrows' acceleration: it drives the player and, in
	// katamari mode, the cubes of its ball, so the ball rolls as one.
	var move vecmath.Vec3
	if push != (vecmath.Vec3{}) {
		dir, _ := push.Normalize()
		if s.State(id).LinearVelocity.Dot(dir) < cfg.MaxMoveSpeed {
			move = dir.Scale(cfg.MoveAccel)
			w.ApplyForce(id, move.Scale(cfg.PlayerMass))
		}
	}
	if in.Space && player.Y < cfg.MaxLiftHeight {
		w.ApplyForce(id, vecmath.V3(0, float64(cfg.LiftAccel*cfg.PlayerMass), 0))
	}
	if !in.Space && !in.Z {
		return
	}
	var reaction vecmath.Vec3
	for _, id := range s.Cubes {
		st := s.State(id)
		if in.Space {
			s.blast(id, player, st.Position)
		}
		if in.Z {
			reaction = reaction.Sub(s.pull(id, player, st.Position, move))
		}
	}
	// The pull is an internal force of the ball: the player takes the
	// reaction, or the ball would push itself along without input.
	if reaction != (vecmath.Vec3{}) {
		w.ApplyForce(id, reaction)
	}
}

// State returns the state of one of the scene's bodies (the player or a
// cube).
func (s *Scene) State(id physics.BodyID) physics.BodyState { return bodyState(s.World, id) }

// bodyState returns the state of a body the scene built. Scenes never
// destroy their bodies, so it panics only if someone did through the
// World, a broken invariant.
func bodyState(w *physics.World, id physics.BodyID) physics.BodyState {
	st, err := w.State(id)
	if err != nil {
		panic(fmt.Sprintf("scene: a scene body was destroyed: %v", err))
	}
	return st
}

// blast pushes a cube away from the player, strongest at the centre.
func (s *Scene) blast(id physics.BodyID, player, cube vecmath.Vec3) {
	d := cube.Sub(player)
	dir, dist := d.Normalize()
	if dist >= s.cfg.BlastRadius || dist == 0 {
		return
	}
	fade := 1 - dist/s.cfg.BlastRadius
	dir = dir.Add(vecmath.V3(0, 0.5, 0)) // lift them a little so they fly
	s.World.ApplyForce(id, dir.Scale(float64(float64(s.cfg.BlastAccel*fade)*s.cfg.CubeMass)))
}

// pull draws a cube towards the player's centre (katamari mode) and
// returns the pulling force; a cube in the ball also takes the arrows'
// acceleration move.
func (s *Scene) pull(id physics.BodyID, player, cube, move vecmath.Vec3) vecmath.Vec3 {
	d := player.Sub(cube)
	dir, dist := d.Normalize()
	if dist >= s.cfg.KatamariRadius || dist == 0 {
		return vecmath.Vec3{}
	}
	f := dir.Scale(float64(s.cfg.KatamariAccel * s.cfg.CubeMass))
	s.World.ApplyForce(id, f.Add(move.Scale(s.cfg.CubeMass)))
	return f
}

// Checksum hashes the world and the interacting flags: equal checksums mean
// equal scenes, bit for bit.
func (s *Scene) Checksum() uint64 {
	h := s.World.Checksum()
	for _, on := range s.interacting {
		if on {
			h ^= 1
		}
		h *= 1099511628211 // FNV-1a prime
	}
	return h
}

// Snapshot is a saved scene; reuse one to save without allocating.
type Snapshot struct {
	world       physics.Snapshot
	interacting []bool
}

// Save copies the scene into dst.
func (s *Scene) Save(dst *Snapshot) {
	s.World.Snapshot(&dst.world)
	dst.interacting = append(dst.interacting[:0], s.interacting...)
}

// AppendState appends the scene's state in byte form to dst: its world's
// (physics.World.AppendState) after the interacting flags, one byte each.
// UnmarshalState restores it into a scene of the same layout, bit for bit.
func (s *Scene) AppendState(dst []byte) []byte {
	for _, on := range s.interacting {
		dst = append(dst, byte(boolByte(on)))
	}
	return s.World.AppendState(dst)
}

// UnmarshalState restores a state AppendState wrote from a scene of the
// same layout and configuration. Any other bytes return an error wrapping
// physics.ErrSnapshot and leave the scene unchanged.
func (s *Scene) UnmarshalState(b []byte) error {
	n := len(s.interacting)
	if len(b) < n {
		return fmt.Errorf("%w: scene state of %d bytes, the interacting flags alone take %d", physics.ErrSnapshot, len(b), n)
	}
	for _, f := range b[:n] {
		if f > 1 {
			return fmt.Errorf("%w: interacting flag %d", physics.ErrSnapshot, f)
		}
	}
	if err := s.World.UnmarshalState(b[n:], nil); err != nil {
		return err
	}
	for i, f := range b[:n] {
		s.interacting[i] = f == 1
	}
	return nil
}

func boolByte(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Load restores a scene saved by Save from a scene of the same layout; the
// error wraps physics.ErrSnapshot for a snapshot of another configuration.
func (s *Scene) Load(src *Snapshot) error {
	if err := s.World.Restore(&src.world); err != nil {
		return err
	}
	copy(s.interacting, src.interacting)
	return nil
}
