package physics

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/netphys/netphys/physics/collide"
	"github.com/netphys/netphys/vecmath"
)

// BenchScene names one of the three benchmark scenes of 900 boxes (1 m,
// 1 kg, friction 0.6, gravity 9.81 m/s², on a ground plane) that the
// benchmarks and `netphys bench physics` run, so that both measure the
// same thing.
type BenchScene uint8

const (
	// BenchGrid is scene A: a 30×30 grid with 1.25 m pitch dropped from
	// 1–2 m with a small random tilt.
	BenchGrid BenchScene = iota
	// BenchCarpet is scene B: a 30×30 grid of touching boxes (1.001 m
	// pitch) dropped from 0.5 m.
	BenchCarpet
	// BenchStack is scene C: a 10×10 footprint stacked 9 high with 1 mm
	// gaps.
	BenchStack
)

// BenchScenes lists the scenes in report order.
var BenchScenes = []BenchScene{BenchGrid, BenchCarpet, BenchStack}

// String returns "A grid", "B carpet" or "C stack".
func (s BenchScene) String() string {
	switch s {
	case BenchGrid:
		return "A grid"
	case BenchCarpet:
		return "B carpet"
	case BenchStack:
		return "C stack"
	}
	return fmt.Sprintf("BenchScene(%d)", uint8(s))
}

// Bench scene geometry, m.
const (
	benchBoxHalf   = 0.5
	benchStackGap  = 0.001
	benchStackRows = 9
)

// StackTopNominal is the height, m, of the centres of scene C's top layer
// if every box rested exactly on the one below.
const StackTopNominal = benchBoxHalf + float64(benchStackRows-1)*2*benchBoxHalf

// NewBenchWorld returns a world with configuration cfg (the benchmarks use
// DefaultConfig) holding the scene's ground plane and 900 boxes. The scene
// is a pure function of s: the random tilt of scene A comes from a fixed
// seed.
func NewBenchWorld(s BenchScene, cfg Config) (*World, error) {
	w, err := NewWorld(cfg)
	if err != nil {
		return nil, err
	}
	ground := DefaultBodyDef()
	ground.Type = Static
	ground.Shape = collide.Shape{Kind: collide.Plane}
	if _, err := w.CreateBody(ground); err != nil {
		return nil, err
	}
	box := DefaultBodyDef()
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
		case BenchGrid:
			x, z := i%30, i/30
			p = vecmath.V3(float64(float64(x)*1.25)-18, benchBoxHalf+1+unit(rng), float64(float64(z)*1.25)-18)
			axis, _ := vecmath.V3(unit(rng)-0.5, 0, unit(rng)-0.5).Normalize()
			q = vecmath.QuatAxisAngle(axis, float64(0.1*unit(rng)))
		case BenchCarpet:
			x, z := i%30, i/30
			p = vecmath.V3(float64(float64(x)*1.001)-15, benchBoxHalf+0.5, float64(float64(z)*1.001)-15)
		case BenchStack:
			x, z, y := i%10, (i/10)%10, i/100
			pitch := 2*benchBoxHalf + benchStackGap
			p = vecmath.V3(float64(float64(x)*pitch)-5, benchBoxHalf+float64(float64(y)*pitch), float64(float64(z)*pitch)-5)
		default:
			return nil, fmt.Errorf("physics: unknown bench scene %d", s)
		}
		if err := add(p, q); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// StackTopRange returns the lowest and highest centre heights, m, of the
// bodies whose centre is above StackTopNominal - 0.5 m: scene C's top
// layer, if the stack stands.
func StackTopRange(w *World) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range w.info {
		if !w.info[i].live || w.info[i].typ != Dynamic {
			continue
		}
		if y := w.pos[i].Y; y > StackTopNominal-2*benchBoxHalf+0.5 {
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
