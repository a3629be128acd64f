package scene

import "github.com/netphys/netphys/physics"

// Config sets the sizes and forces of the cube world. Forces are given as
// accelerations so that they stay right when masses change.
type Config struct {
	Physics physics.Config

	CubeSize   float64 // edge of the cubes, m
	CubeMass   float64 // kg
	PlayerSize float64 // edge of the player cube, m
	PlayerMass float64 // kg
	Friction   float64 // Coulomb coefficient of cubes and ground

	MoveAccel      float64 // arrows: horizontal push on the player, m/s²
	MaxMoveSpeed   float64 // arrows push only while the player is slower than this along the push, m/s
	LiftAccel      float64 // space: upward push on the player, m/s² (above g so it rises)
	MaxLiftHeight  float64 // space stops lifting above this height, m
	BlastRadius    float64 // space: cubes nearer than this are pushed away, m
	BlastAccel     float64 // space: push at the player's centre, fading to 0 at the radius, m/s²
	KatamariRadius float64 // z: cubes nearer than this are pulled in, m
	KatamariAccel  float64 // z: pull at the radius, m/s² (constant inside it)
}

// DefaultConfig returns the world of the articles: 1 m, 1 kg cubes, a
// 1.5 m player, forces tuned so that the player rolls and tumbles cubes.
func DefaultConfig() Config {
	return Config{
		Physics:        physics.DefaultConfig(),
		CubeSize:       1,
		CubeMass:       1,
		PlayerSize:     1.5,
		PlayerMass:     3.375,
		Friction:       0.6,
		MoveAccel:      15,
		MaxMoveSpeed:   6,
		LiftAccel:      14,
		MaxLiftHeight:  6,
		BlastRadius:    6,
		BlastAccel:     60,
		KatamariRadius: 6,
		KatamariAccel:  30,
	}
}
