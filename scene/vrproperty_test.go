package scene

import (
	"fmt"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// vrProfile is a network profile of the convergence property: the
// conditions of each guest's link up and down at each moment.
type vrProfile struct {
	name string
	at   func(t time.Duration) (up, down netsim.Conditions)
	// outage is the longest time the profile cuts every link, which
	// delays convergence by as much.
	outage time.Duration
}

func vrProfiles() []vrProfile {
	const lat = 50 * time.Millisecond
	fixed := func(c netsim.Conditions) func(time.Duration) (netsim.Conditions, netsim.Conditions) {
		return func(time.Duration) (netsim.Conditions, netsim.Conditions) { return c, c }
	}
	return []vrProfile{
		{name: "reorder 30 % +200 ms", at: fixed(netsim.Conditions{Latency: lat, Jitter: 10 * time.Millisecond, Reorder: 0.3, ReorderDelay: 200 * time.Millisecond})},
		{name: "jitter ±40 ms", at: fixed(netsim.Conditions{Latency: lat, Jitter: 40 * time.Millisecond})},
		{name: "duplicate 25 %", at: fixed(netsim.Conditions{Latency: lat, Jitter: 5 * time.Millisecond, Duplicate: 0.25})},
		{name: "outage 2.5 s / 10 s", outage: 2500 * time.Millisecond, at: func(t time.Duration) (netsim.Conditions, netsim.Conditions) {
			c := netsim.Conditions{Latency: lat}
			if t%(10*time.Second) >= 7500*time.Millisecond {
				c.Loss = 1
			}
			return c, c
		}},
		{name: "asymmetric 40 % up / 2 % down", at: func(time.Duration) (netsim.Conditions, netsim.Conditions) {
			return netsim.Conditions{Latency: lat, Loss: 0.4}, netsim.Conditions{Latency: lat, Loss: 0.02}
		}},
	}
}

// convergenceBound is how long, beyond the world's offline rest time,
// the property allows for every guest to hold the host's bits after play
// stops: the host takes back what only creeps under a guest's authority
// after YieldTicks (2 s), and a second covers the playback delay, the
// round trips and the host's rounds of resting states (every cube sent
// at rest once more); a profile's outage comes on top.
const convergenceBound = 3 * time.Second

// offlineStackRest plays the stacking of TestVRStacksRestUnderGuestAuthority
// on one world, every bot on it, and returns how long after the last bot
// is done every cube rests.
func offlineStackRest(t *testing.T, cfg VRConfig) time.Duration {
	t.Helper()
	v, err := NewVR(cfg, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var bots [VRPlayers]*VRBot
	for p := range VRPlayers {
		bots[p] = NewVRBot(p, vrStack(v, p))
		v.controllers[p], v.present[p] = bots[p], true
	}
	stop := -1
	for tick := 0; tick < 60*60; tick++ {
		v.Step(func(int) bool { return true })
		done := true
		for _, b := range bots {
			done = done && b.Done()
		}
		if done && stop < 0 {
			stop = tick
		}
		if stop >= 0 && v.resting() {
			return time.Duration(tick-stop) * time.Second / 60
		}
	}
	t.Fatal("the offline stacks never rest")
	return 0
}

// TestVRConvergesUnderNetworkProfiles is the convergence property over
// seeds and network profiles it was not tuned on: every player stacks
// three cubes (the guests' top cubes under their authority until they
// rest, the case that could deadlock), then stops; every guest must hold
// the host's bits, every cube at rest, within the offline rest time plus
// convergenceBound (plus the profile's outage). A handful of runs here;
// `netphys bench statesync --seeds N` sweeps the whole match over many.
func TestVRConvergesUnderNetworkProfiles(t *testing.T) {
	cfg := DefaultVRConfig()
	cfg.Towers, cfg.Loose = nil, 3
	offline := offlineStackRest(t, cfg)
	for _, pr := range vrProfiles() {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("%s/seed %d", pr.name, seed), func(t *testing.T) {
				bots := make([]*VRBot, VRPlayers)
				for p := range bots {
					bots[p] = NewVRBot(p, nil)
				}
				worlds, m := vrTestMatchSeed(t, cfg, bots, netsim.Conditions{}, seed)
				for p, b := range bots {
					b.acts = vrStack(worlds[p], p)
				}
				var up, down netsim.Conditions
				step := func() {
					if u, d := pr.at(m.Elapsed()); u != up || d != down {
						up, down = u, d
						for slot := range VRPlayers - 1 {
							if err := m.SetLink(slot, up, down); err != nil {
								t.Fatal(err)
							}
						}
					}
					frame(t, m)
				}
				for done := false; !done; {
					if m.Elapsed() > 40*time.Second {
						t.Fatal("the bots never finished stacking")
					}
					step()
					done = true
					for _, b := range bots {
						done = done && b.Done()
					}
				}
				stopped := m.Elapsed()
				limit := offline + convergenceBound + pr.outage
				for !identical(worlds) || !worlds[0].resting() {
					if m.Elapsed()-stopped > limit {
						t.Fatalf("the guests do not hold the host's bits %v after play stopped (offline rest %v)", limit, offline)
					}
					step()
				}
				t.Logf("converged %v after play stopped (offline rest %v)", m.Elapsed()-stopped, offline)
				for i := range worlds[0].Objects() {
					for p, w := range worlds {
						if s := w.Object(i); !s.AtRest {
							t.Fatalf("player %d: cube %d awake", p, i)
						}
					}
				}
			})
		}
	}
}
