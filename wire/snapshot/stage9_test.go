package snapshot

import (
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// TestKeyframeGrid codes the scene's opening state, 900 cubes at rest on
// a grid, without a baseline: stage 9 predicts each cube from the two
// before it and must be far below stage 4's 80 bits per cube, and decode
// to the quantized snapshot.
func TestKeyframeGrid(t *testing.T) {
	snap := &Snapshot{Cubes: make([]Cube, 901)}
	snap.Cubes[0] = Cube{Position: vecmath.V3(0, 0.75, 30), Rotation: vecmath.QuatIdentity}
	for i := range 900 {
		x, z := float64(i%30)*1.5-22.5, float64(i/30)*1.5-22.5
		snap.Cubes[i+1] = Cube{Position: vecmath.V3(x, 0.5, z), Rotation: vecmath.QuatIdentity}
	}
	sizes := map[Stage]int{}
	for _, st := range []Stage{NoVelocity, RangeCoded} {
		c := Codec{Stage: st, Config: DefaultConfig()}
		pkt, err := c.Encode(make([]byte, 16<<10), snap, Reference{})
		if err != nil {
			t.Fatal(err)
		}
		sizes[st] = len(pkt)
		got := &Snapshot{Cubes: make([]Cube, len(snap.Cubes))}
		if err := c.Decode(pkt, got, Reference{}); err != nil {
			t.Fatalf("%v: %v", st, err)
		}
		want, _ := c.Quantize(snap)
		for i := range want.Cubes {
			if got.Cubes[i] != want.Cubes[i] {
				t.Fatalf("%v cube %d: decoded %+v, want %+v", st, i, got.Cubes[i], want.Cubes[i])
			}
		}
	}
	t.Logf("keyframe of a resting grid: %v", sizes)
	if sizes[RangeCoded]*20 > sizes[NoVelocity] {
		t.Errorf("stage 9 keyframe %d bytes, want under 1/20 of stage 4's %d", sizes[RangeCoded], sizes[NoVelocity])
	}
}

// TestReexpress checks the prediction for a cube whose largest component
// is not the predicted one: the same rotation, written around the other
// component, within a few grid steps (0.2–0.3° each) of it.
func TestReexpress(t *testing.T) {
	const bits = 9
	rng := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		// Two components close to each other and the largest.
		a := 0.6 + 0.1*rng.Float64()
		b := a + 0.02*(rng.Float64()-0.5)
		rest := vecmath.V3(rng.NormFloat64(), rng.NormFloat64(), 0).Scale(0.15)
		q := vecmath.Quat{X: a, Y: rest.X, Z: b, W: rest.Y}.Normalize()
		if rng.IntN(2) == 0 {
			q = q.Neg()
		}
		t3, err := wire.QuantizeQuat(q, bits)
		if err != nil {
			t.Fatal(err)
		}
		other := uint8(0)
		if t3.Largest == 0 {
			other = 2
		}
		re := wire.SmallestThree{Largest: other, C: reexpress(t3, bits, other)}
		// re need not be Valid (the other component may still round
		// above the new largest); it is a prediction, not a packet.
		if ang := re.Quat(bits).Angle(t3.Quat(bits)); ang > 0.03 {
			t.Fatalf("%+v re-expressed around %d turns by %.4f rad", t3, other, ang)
		}
	}
}
