package scene

// This file plays the VR match on one machine with nobody on a network:
// the reference for how long the physics alone takes to come to rest,
// beside the networked match's convergence (netphys bench statesync).

// VROfflineRun is what PlayVROffline measured.
type VROfflineRun struct {
	// Rested reports whether every cube came to rest within the settle
	// steps; RestSteps is then how many steps after play stopped (1 for a
	// world already quiet).
	Rested    bool
	RestSteps int
	// World is the world after the run.
	World *VR
}

// PlayVROffline plays VRMatch on one VR world with every player at the
// table, each driven by its bot as in the networked match, for play steps;
// then every bot stops, as the benchmark stops them, and the world steps
// on, at most settle steps, until every cube rests. Nothing is
// quantized, no state arrives late and nobody arbitrates (a hand takes
// what no other hand holds): it is the physics alone, the reference for
// the networked match's convergence.
func PlayVROffline(cfg VRConfig, play, settle int) (VROfflineRun, error) {
	v, err := NewVR(cfg, 0, nil)
	if err != nil {
		return VROfflineRun{}, err
	}
	var bots [VRPlayers]*VRBot
	for p := range VRPlayers {
		bots[p] = NewVRBot(p, VRMatch(v, p))
		v.controllers[p], v.present[p] = bots[p], true
	}
	// Play stops for the players at the end of play, or at the script's
	// rest if that comes first: the rest counts from then, as in the
	// benchmark.
	stop := min(play, VRMatchPlaySeconds*60)
	run := VROfflineRun{World: v}
	anyCube := func(int) bool { return true }
	for tick := 1; tick <= play+settle; tick++ {
		if tick == play+1 {
			for _, b := range bots {
				b.Stop()
			}
		}
		v.Step(anyCube)
		if tick > stop && v.resting() {
			run.Rested, run.RestSteps = true, tick-stop
			break
		}
	}
	return run, nil
}

// resting reports whether every cube rests.
func (v *VR) resting() bool {
	for _, id := range v.Cubes {
		if !v.state(id).AtRest {
			return false
		}
	}
	return true
}
