package statesync

import (
	"testing"
	"time"

	"github.com/netphys/netphys/vecmath"
)

// TestAClaimNobodyTakesTouchesNothing: the hostile launches the free
// cube 11 m from its hands at 25 m/s, in a packet that also claims
// another cube right beside it, at a version older than the host's: a
// claim the host refuses as stale without judging it. The host used to
// count every claim of the packet as something of the guest's that the
// launched cube could have touched (a chain of contacts), so the stale
// one vouched for the launch: the far cube flew, and nothing was counted
// implausible. Only the claims the host takes, of cubes it credits the
// guest with, where their states may travel, vouch now.
func TestAClaimNobodyTakesTouchesNothing(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxImplausible = 0
	host, hg, m, _, _, x := hostileMatch(t, cfg)
	if err := m.Run(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	const far, beside = hostileCubes - 1, hostileCubes - 2
	x.attack = func(x *hostile) []packet {
		if x.frame != 1 {
			return nil
		}
		s := x.inner.game.Object(far)
		s.AtRest, s.LinearVelocity = false, vecmath.V3(0, 25, 0)
		launch := x.claim(far, s)
		b := x.inner.game.Object(beside)
		b.Position = s.Position.Add(vecmath.V3(0.5, 0, 0))
		stale := x.claim(beside, b)
		stale.ver.Auth -= 2 // older than the host's
		return []packet{{updates: []update{launch, stale}}}
	}
	x.frame = 0
	before := host.Implausible(2)
	for range 60 {
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
		if y := hg.Object(far).Position.Y; y > 1 {
			t.Fatalf("the far cube rose to %.2f m on the host", y)
		}
	}
	if host.Implausible(2) == before {
		t.Error("nothing counted implausible")
	}
}
