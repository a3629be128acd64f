package scene

import "github.com/netphys/netphys/vecmath"

// VRMatchSeconds is the length of VRMatch's script; VRMatchPlaySeconds is
// when its players stop acting: from then on everyone rests.
const (
	VRMatchSeconds     = 120
	VRMatchPlaySeconds = 100
)

// Ticks of the scripted match's events, at 60 steps per second.
const (
	vrCatchAt     = 40 * 60
	vrContestAt   = 60*60 + 40 // both players grip in this very tick
	vrKnockAt     = 75 * 60
	vrToppleAt    = 88 * 60
	vrRestAt      = VRMatchPlaySeconds * 60
	vrThrowFlight = 1.1
)

// VRMatch returns player p's part of the scripted two-minute match of the
// statesync benchmark: every player stacks three of its loose cubes in
// front of it; at 40 s player 1 throws its last loose cube to player 2,
// who catches it and puts it down beside its stack; at about 61 s players
// 0 and 1 grab the contested cube in the same tick, and the winner puts it
// down beside its stack; at 75 s player 2 throws a cube
// into player 3's tower; at 88 s player 3 throws one into player 0's
// tower (the tall tower in the middle is nobody's target, to show that it
// never jitters); from 100 s everyone rests.
func VRMatch(v *VR, p int) []VRAct {
	f := vrForward(p)
	// Stacks stay three high: a taller one that toppled would reach the
	// player's tower. Other cubes go on the ground beside the stack.
	beside := vrLevel(v, p, 0).Add(vecmath.V3(0, 1, 0).Cross(f).Scale(-2.5))
	acts := vrStack(v, p)
	lastLoose := v.loose[p][len(v.loose[p])-1]
	// Throws start beside the player, clear of its stack.
	throwFrom := v.Home(p).Add(vecmath.V3(0, 1, 0).Cross(f).Scale(1.5)).Add(f.Scale(0.6)).Add(vecmath.V3(0, 0.4, 0))
	catchAt := v.Home(2).Add(vrForward(2).Scale(1.2)).Add(vecmath.V3(0, -0.3, 0))
	throw := func(acts []VRAct, at int, to vecmath.Vec3) []VRAct {
		return append(acts,
			VRAct{Kind: ActWait, At: at - 150},
			VRAct{Kind: ActGrab, Hand: 0, Cube: lastLoose},
			VRAct{Kind: ActMove, Hand: 0, To: throwFrom},
			VRAct{Kind: ActWait, At: at},
			VRAct{Kind: ActThrow, Hand: 0, To: to, Flight: vrThrowFlight})
	}
	contested := v.Object(v.contested).Position
	switch p {
	case 1:
		acts = throw(acts, vrCatchAt, catchAt)
	case 2:
		acts = append(acts, VRAct{Kind: ActWait, At: vrCatchAt - 60},
			VRAct{Kind: ActCatch, Hand: 0, To: catchAt, At: vrCatchAt + 240})
		acts = vrPut(acts, 0, beside)
		acts = throw(acts, vrKnockAt, v.Object(v.towers[1+3][7]).Position)
	case 3:
		acts = throw(acts, vrToppleAt, v.Object(v.towers[1+0][8]).Position)
	}
	if p == 0 || p == 1 {
		side := f.Scale(-0.25)
		acts = append(acts,
			VRAct{Kind: ActWait, At: vrContestAt - 240},
			VRAct{Kind: ActMove, Hand: 0, To: contested.Add(vecmath.V3(0, 1.5, 0)).Add(side)},
			VRAct{Kind: ActGrab, Hand: 0, Cube: v.contested, At: vrContestAt})
		acts = vrPut(acts, 0, beside)
	}
	return append(acts, VRAct{Kind: ActWait, At: vrRestAt})
}

// vrStack returns the start of player p's part of the match: a wait of a
// second and a half-second per player, then its first three loose cubes
// stacked in front of it.
func vrStack(v *VR, p int) []VRAct {
	acts := []VRAct{{Kind: ActWait, At: 60 + 30*p}}
	for k := range 3 {
		acts = append(acts, VRAct{Kind: ActGrab, Hand: 1, Cube: v.loose[p][k]})
		acts = vrPut(acts, 1, vrLevel(v, p, k))
	}
	return acts
}

// vrLevel is where player p's hand places the cube of level k of its
// stack (0 on the ground).
func vrLevel(v *VR, p, k int) vecmath.Vec3 {
	spot := vrForward(p).Scale(-(v.cfg.PlayerRadius - 1.5))
	handAbove := float64(v.cfg.CubeSize/2) + v.cfg.HandRadius + 0.05
	return vecmath.V3(spot.X, float64(float64(k)*v.cfg.CubeSize)+float64(v.cfg.CubeSize/2)+handAbove+0.02, spot.Z)
}

// vrPut places what hand holds with the hand at at, coming from 2 m above
// it.
func vrPut(acts []VRAct, hand int, at vecmath.Vec3) []VRAct {
	above := at.Add(vecmath.V3(0, 2, 0))
	return append(acts,
		VRAct{Kind: ActLift, Hand: hand, To: above},
		VRAct{Kind: ActMove, Hand: hand, To: above},
		VRAct{Kind: ActPlace, Hand: hand, To: at},
		VRAct{Kind: ActMove, Hand: hand, To: above})
}
