// Package benchscene builds the three benchmark scenes of 900 boxes that
// the physics package's Go benchmarks, `netphys bench physics` and the
// Bullet comparison harness (bench/bullet) all run, so that every figure
// measures the same thing. The Bullet harness rebuilds the same scenes in
// C++ from the numbers documented here.
package benchscene

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// Scene names one of the three benchmark scenes of 900 boxes (1 m,
// 1 kg, friction 0.6, gravity 9.81 m/s², on a ground plane) that the
// benchmarks and `netphys bench physics` run, so that both measure the
// same thing.
type Scene uint8

const (
	// Grid is scene A: a 30×30 grid with 1.25 m pitch dropped from
	// 1–2 m with a small random tilt.
	Grid Scene = iota
	// Carpet is scene B: a 30×30 grid of touching boxes (1.001 m
	// pitch) dropped from 0.5 m.
	Carpet
	// Stack is scene C: a 10×10 footprint stacked 9 high with 1 mm
	// gaps.
	Stack
)

// All lists the scenes in report order.
var All = []Scene{Grid, Carpet, Stack}

// String returns "A grid", "B carpet" or "C stack".
func (s Scene) String() string {
	switch s {
	case Grid:
		return "A grid"
	case Carpet:
		return "B carpet"
	case Stack:
		return "C stack"
	}
	return fmt.Sprintf("Scene(%d)", uint8(s))
}

// Bench scene geometry, m.
const (
	boxHalf   = 0.5
	stackGap  = 0.001
	stackRows = 9
)

// StackTopNominal is the height, m, of the centres of scene C's top layer
// if every box rested exactly on the one below.
const StackTopNominal = boxHalf + float64(stackRows-1)*2*boxHalf

// NewWorld returns a world with configuration cfg (the benchmarks use
// physics.DefaultConfig, with SleepFrames 0 for the awake runs) holding the scene's ground plane and 900 boxes. The scene
// is a pure function of s: the random tilt of scene A comes from a fixed
// seed.
func NewWorld(s Scene, cfg physics.Config) (*physics.World, error) {
	w, err := physics.NewWorld(cfg)
	if err != nil {
		return nil, err
	}
	ground := physics.DefaultBodyDef()
	ground.Type = physics.Static
	ground.Shape = collide.Shape{Kind: collide.Plane}
	if _, err := w.CreateBody(ground); err != nil {
		return nil, err
	}
	box := physics.DefaultBodyDef()
	box.Mass = 1
	box.Friction = 0.6
	add := func(p vecmath.Vec3, q vecmath.Quat) error {
		box.Position, box.Rotation = p, q
		_, err := w.CreateBody(box)
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 900 {
		var p vecmath.Vec3
		q := vecmath.QuatIdentity
		switch s {
		case Grid:
			x, z := i%30, i/30
			p = vecmath.V3(float64(float64(x)*1.25)-18, boxHalf+1+unit(rng), float64(float64(z)*1.25)-18)
			axis, _ := vecmath.V3(unit(rng)-0.5, 0, unit(rng)-0.5).Normalize()
			q = vecmath.QuatAxisAngle(axis, float64(0.1*unit(rng)))
		case Carpet:
			x, z := i%30, i/30
			p = vecmath.V3(float64(float64(x)*1.001)-15, boxHalf+0.5, float64(float64(z)*1.001)-15)
		case Stack:
			x, z, y := i%10, (i/10)%10, i/100
			pitch := 2*boxHalf + stackGap
			p = vecmath.V3(float64(float64(x)*pitch)-5, boxHalf+float64(float64(y)*pitch), float64(float64(z)*pitch)-5)
		default:
			return nil, fmt.Errorf("benchscene: unknown scene %d", s)
		}
		if err := add(p, q); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// StackTopRange returns the lowest and highest centre heights, m, of the
// dynamic bodies whose centre is above StackTopNominal - 0.5 m: scene C's
// top layer, if the stack stands.
func StackTopRange(w *physics.World) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, id := range w.Bodies(nil) {
		if w.Type(id) != physics.Dynamic {
			continue
		}
		st, err := w.State(id)
		if err != nil {
			continue
		}
		if y := st.Position.Y; y > StackTopNominal-2*boxHalf+0.5 {
			lo, hi = min(lo, y), max(hi, y)
		}
	}
	return lo, hi
}

// unit returns a uniform number in [0, 1) from r. rand.Float64 scales by
// 2⁻⁵³ inside an inlinable function, and the compiler fuses that product
// with the caller's sum; the explicit rounding here forbids it.
func unit(r *rand.Rand) float64 {
	return float64(float64(r.Uint64()>>11) * 0x1p-53)
}
