package interpreport

import (
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
)

// Profile is a network that changes over time, or a client whose clock
// drifts: the conditions the fixed table does not show.
//
// A spike is a stall of the link, as a Wi-Fi scan or a cellular handover
// makes: every packet sent in the SpikeLength after each multiple of
// SpikeEvery (from SpikeFrom) is held until the stall ends, so its delay
// rises to Latency + SpikeLength and falls back within the stall, and
// the held packets arrive together. A loss burst raises the loss to
// BurstLoss for BurstLength after each multiple of BurstEvery (from
// BurstFrom). Both apply each way.
type Profile struct {
	Name string
	netsim.Conditions
	SpikeEvery, SpikeLength, SpikeFrom time.Duration
	BurstEvery, BurstLength, BurstFrom time.Duration
	BurstLoss                          float64
	// Drift makes the client's clock run at 1 + Drift times real time
	// (the server's): 0.06 is a client clock 6 % fast.
	Drift float64
}

// at returns the conditions for packets sent at elapsed time t.
func (p *Profile) at(t time.Duration) netsim.Conditions {
	c := p.Conditions
	if p.SpikeEvery > 0 && t >= p.SpikeFrom {
		if in := (t - p.SpikeFrom) % p.SpikeEvery; in < p.SpikeLength {
			c.Latency += p.SpikeLength - in
		}
	}
	if p.BurstEvery > 0 && t >= p.BurstFrom {
		if in := (t - p.BurstFrom) % p.BurstEvery; in < p.BurstLength {
			c.Loss = p.BurstLoss
		}
	}
	return c
}

// Spiky is the spiky network: 100 ms RTT with ±40 ms of jitter, a
// 300 ms stall every 4 s, and 2 s of 20 % loss every 10 s.
func Spiky() Profile {
	return Profile{
		Name:       "spiky",
		Conditions: netsim.Conditions{Latency: 50 * time.Millisecond, Jitter: 40 * time.Millisecond},
		SpikeEvery: 4 * time.Second, SpikeLength: 300 * time.Millisecond, SpikeFrom: 2 * time.Second,
		BurstEvery: 10 * time.Second, BurstLength: 2 * time.Second, BurstFrom: 5 * time.Second,
		BurstLoss: 0.2,
	}
}

// Drifting is a client whose clock runs drift (0.06: 6 %) fast or slow
// against the server's, on 100 ms RTT with 5 % loss and 10 ms jitter.
func Drifting(name string, drift float64) Profile {
	return Profile{
		Name:       name,
		Conditions: netsim.Conditions{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05},
		Drift:      drift,
	}
}

// DefaultProfiles are the spiky network and client clocks drifting ±6, 8
// and 10 %.
func DefaultProfiles() []Profile {
	return []Profile{
		Spiky(),
		Drifting("clock -10%", -0.10), Drifting("clock -8%", -0.08), Drifting("clock -6%", -0.06),
		Drifting("clock +6%", 0.06), Drifting("clock +8%", 0.08), Drifting("clock +10%", 0.10),
	}
}

// driftClient shows the client a clock that runs at rate times the real
// one from the start of the match.
type driftClient struct {
	*interp.Client
	rate float64
}

func (c driftClient) at(now time.Time) time.Time {
	return simmatch.Epoch.Add(time.Duration(float64(now.Sub(simmatch.Epoch)) * c.rate))
}

func (c driftClient) Update(now time.Time, send func([]byte)) error {
	return c.Client.Update(c.at(now), send)
}

func (c driftClient) Receive(now time.Time, d []byte) error {
	return c.Client.Receive(c.at(now), d)
}

var _ netmodel.Client = driftClient{}
