package statesync

import (
	"testing"
	"time"

	"github.com/netphys/netphys/vecmath"
)

// TestSmallStepsDoNotSumToATeleport: the hostile guest takes a cube by
// its hand, then every frame moves it on 2 m at zero speed in an update
// of the same claim (its own cube, as it goes on), stamped so that the
// host applies each as it comes. Each step alone lies within what the
// host allows one update over a step and the playback delay (MaxSpeed ×
// (step + JitterDelay) + Slack, 3.75 m), but 45 of them carried the cube
// 90 m in three quarters of a second, 120 m/s, and nothing was counted.
// The host bounds the sum: the cube ends no further from where it was
// taken than MaxSpeed × (the time since + the second's worth a guest may
// save up), and the rest is overruled and counted.
func TestSmallStepsDoNotSumToATeleport(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxImplausible = 0
	host, hg, m, _, _, x := hostileMatch(t, cfg)
	if err := m.Run(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	const i, frames, step = 4, 45, 2.0
	start := hg.Object(i).Position
	var v Version
	x.attack = func(x *hostile) []packet {
		s := x.inner.game.Object(i)
		s.AtRest, s.LinearVelocity, s.AngularVelocity = false, vecmath.Vec3{}, vecmath.Vec3{}
		// Its first packet says it is 1000 steps ahead: the others lie
		// more than catchUpLimit behind that, and the host applies them
		// as they come, without playback.
		x.ahead = 0
		switch {
		case x.frame == 1:
			x.ahead = 1000
			s.LinearVelocity = vecmath.V3(0, 0.1, 0) // not settling where the host's rests
			u := x.claim(i, s)
			v = u.ver
			return []packet{{updates: []update{u}}}
		case x.frame <= 10:
			return nil // the claim plays out
		case x.frame <= frames+10:
			s.Position = start.Add(vecmath.V3(-step*float64(x.frame-10), 0, 0))
			u := x.claim(i, s)
			u.ver = v
			return []packet{{updates: []update{u}}}
		}
		return nil
	}
	x.frame = 0
	var taken time.Time
	for range frames + 20 {
		if err := m.Run(time.Second / 60); err != nil {
			t.Fatal(err)
		}
		if a, _, got := host.Authority(i); taken.IsZero() && a == OwnerOf(3) && got == v {
			taken = m.Now()
		}
	}
	if taken.IsZero() {
		t.Fatal("the claim by the hand was refused")
	}
	lim := host.limits
	elapsed := m.Now().Sub(taken).Seconds() + maxTravelCredit
	bound := lim.MaxSpeed*elapsed + lim.Slack
	d := hg.Object(i).Position.Sub(start).Length()
	if d > bound {
		t.Errorf("the cube went %.2f m in %v on the host, more than %.2f m at %v m/s", d, m.Now().Sub(taken), bound, lim.MaxSpeed)
	}
	if host.Implausible(2) == 0 {
		t.Error("nothing counted implausible")
	}
	t.Logf("the cube went %.2f m on the host (at most %.2f), %d implausible", d, bound, host.Implausible(2))
}
