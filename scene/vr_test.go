package scene

import (
	"math"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

func stepVR(v *VR, steps int) {
	for range steps {
		v.Step(func(int) bool { return true })
	}
}

func TestVRTowersStandStill(t *testing.T) {
	v, err := NewVR(DefaultVRConfig(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := make([]vecmath.Vec3, len(v.Cubes))
	for i := range v.Cubes {
		start[i] = v.Object(i).Position
	}
	stepVR(v, 300)
	for i := range v.Cubes {
		s := v.Object(i)
		d := s.Position.Sub(start[i])
		if math.Hypot(d.X, d.Z) > 0.05 || d.Y < -0.1 || d.Y > 0.01 || !s.AtRest {
			t.Fatalf("cube %d moved by %v (at rest %v)", i, d, s.AtRest)
		}
	}
	if n := len(v.Tower(0)); n != 30 || len(v.Tower(1)) != 16 || len(v.Cubes) != 30+4*16+4*4+1 {
		t.Fatalf("%d cubes, tall tower %d", len(v.Cubes), n)
	}
}

// TestVRBotStacksItsCubes plays player 0's part of the match alone.
func TestVRBotStacksItsCubes(t *testing.T) {
	v, _ := NewVR(DefaultVRConfig(), 0, nil)
	bot := NewVRBot(0, VRMatch(v, 0))
	v.controllers[0] = bot
	stepVR(v, 40*60)
	spot := vrForward(0).Scale(-(v.cfg.PlayerRadius - 1.5))
	for k, i := range v.Loose(0)[:3] {
		p := v.Object(i).Position
		if math.Hypot(p.X-spot.X, p.Z-spot.Z) > 0.3 || math.Abs(p.Y-(0.5+float64(k))) > 0.1 {
			t.Errorf("loose cube %d at %v, want level %d of the stack at %v", k, p, k, spot)
		}
	}
}
