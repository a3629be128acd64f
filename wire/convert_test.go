package wire_test

import (
	"testing"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// TestBodyStateConvertsToPhysics: wire.BodyState and physics.BodyState
// are one vocabulary: each converts to the other with a plain conversion,
// every field kept.
func TestBodyStateConvertsToPhysics(t *testing.T) {
	p := physics.BodyState{
		Position:        vecmath.V3(1, 2, 3),
		Rotation:        vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), 0.5),
		LinearVelocity:  vecmath.V3(4, 5, 6),
		AngularVelocity: vecmath.V3(7, 8, 9),
		AtRest:          true,
	}
	w := wire.BodyState(p)
	if back := physics.BodyState(w); back != p {
		t.Fatalf("physics → wire → physics: %+v, want %+v", back, p)
	}
	if w.Position != p.Position || w.Rotation != p.Rotation || w.LinearVelocity != p.LinearVelocity ||
		w.AngularVelocity != p.AngularVelocity || w.AtRest != p.AtRest {
		t.Fatalf("wire state %+v from %+v", w, p)
	}
}
