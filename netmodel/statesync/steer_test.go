package statesync

import (
	"testing"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
)

// TestSteerReachesTheNextState: a cube in free flight whose copy is 30 cm
// off, steered every step towards the state its sender's physics reaches
// 20 steps later, is never moved (only its velocity changes) and arrives
// within a centimetre of it; an aim far faster than either state's
// velocity (the object was moved, not thrown) is refused.
func TestSteerReachesTheNextState(t *testing.T) {
	const ticks = 20
	start := physics.BodyState{Position: vecmath.V3(0, 3, 0), Rotation: vecmath.QuatIdentity, LinearVelocity: vecmath.V3(2, 4, 0)}
	sender := newToy(1, 1)
	if err := sender.SetObject(0, start); err != nil {
		t.Fatal(err)
	}
	for range ticks {
		sender.Step(func(int) bool { return false })
	}
	n, err := newNode(DefaultConfig(), newToy(0, 1), true)
	if err != nil {
		t.Fatal(err)
	}
	target, err := n.q.quantize(sender.Object(0))
	if err != nil {
		t.Fatal(err)
	}
	off := start
	off.Position = off.Position.Add(vecmath.V3(0.3, 0, 0))
	if err := n.game.SetObject(0, off); err != nil {
		t.Fatal(err)
	}
	for k := range Tick(ticks) {
		before := n.game.Object(0).Position
		st, ok := n.steer(0, target, ticks-k)
		if !ok {
			t.Fatalf("step %d: steering refused", k)
		}
		if d := n.q.body(st).Position.Sub(before).Length(); d > 0.001 {
			t.Fatalf("step %d: steering moved the cube %.4f m", k, d)
		}
		if err := n.game.SetObject(0, n.q.body(st)); err != nil {
			t.Fatal(err)
		}
		n.game.Step(func(int) bool { return false })
	}
	if d := n.game.Object(0).Position.Sub(n.q.body(target).Position).Length(); d > 0.01 {
		t.Fatalf("steered %d steps, the cube is %.3f m from the sender's", ticks, d)
	}
	far := target
	far.pos[0] += int64(5 / n.cfg.Spec.Position.Res) // 5 m along x
	if _, ok := n.steer(0, far, 2); ok {
		t.Fatal("steered 5 m in 2 steps")
	}
}
