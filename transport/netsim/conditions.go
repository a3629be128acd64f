package netsim

import (
	"errors"
	"fmt"
	"time"
)

// ErrConditions is returned for Conditions that cannot be simulated.
var ErrConditions = errors.New("netsim: invalid conditions")

// Conditions describe one direction of a link. The zero value is a
// perfect link: no delay, no loss, unlimited bandwidth.
//
// A packet goes through the stages in this order: the bandwidth queue
// (tail drop when full), loss, delay (Latency, Jitter, Reorder), and
// duplication. Each random choice is an independent draw from the
// simulator's seeded generator.
type Conditions struct {
	// Latency is the one-way delay of every packet.
	Latency time.Duration
	// Jitter spreads the delay uniformly over Latency±Jitter (never below
	// zero). Packets sent less than 2×Jitter apart can swap places.
	Jitter time.Duration
	// Loss is the probability (0-1) that a packet is lost, independently
	// of the others. Ignored when Burst is enabled.
	Loss float64
	// Burst, when enabled, replaces Loss with a Gilbert–Elliott model in
	// which losses come in bursts.
	Burst GilbertElliott
	// Duplicate is the probability (0-1) that a packet arrives twice; the
	// copy gets its own delay.
	Duplicate float64
	// Reorder is the probability (0-1) that a packet is held back by an
	// extra ReorderDelay, so that packets sent after it overtake it.
	Reorder float64
	// ReorderDelay is the extra delay of a reordered packet.
	ReorderDelay time.Duration
	// Bandwidth caps the link in bytes per second; 0 means unlimited.
	// Packets queue behind each other and leave the queue at this rate,
	// so a burst sees growing queueing delay.
	Bandwidth int64
	// QueueBytes is the capacity of the bandwidth queue: a packet that
	// would make the bytes waiting exceed it is dropped (tail drop).
	// 0 means an unbounded queue. Used only with Bandwidth.
	QueueBytes int
}

// GilbertElliott is the two-state burst-loss model: a link in the good
// state loses packets with probability LossGood, in the bad state with
// LossBad, and before each packet it moves from good to bad with
// probability GoodToBad and from bad to good with BadToGood. The mean
// burst lasts 1/BadToGood packets; the long-run share of packets sent in
// the bad state is GoodToBad/(GoodToBad+BadToGood).
type GilbertElliott struct {
	GoodToBad, BadToGood float64
	LossGood, LossBad    float64
}

// Enabled reports whether the model is in use (GoodToBad > 0).
func (g GilbertElliott) Enabled() bool { return g.GoodToBad > 0 }

// BurstLoss returns the Gilbert–Elliott model that loses a share loss
// (0-1) of all packets in bursts of meanBurst packets on average: every
// packet in the bad state is lost, none in the good state. Short bursts
// cannot make up a high loss (the good state would have to last less
// than a packet): the share is reached when meanBurst >= loss/(1-loss),
// and falls short of it otherwise. It returns the zero (disabled) model
// when loss is 0 or meanBurst is below 1.
func BurstLoss(loss, meanBurst float64) GilbertElliott {
	if !(loss > 0) || meanBurst < 1 {
		return GilbertElliott{}
	}
	r := 1 / meanBurst
	if loss >= 1 {
		return GilbertElliott{GoodToBad: 1, BadToGood: r, LossGood: 1, LossBad: 1}
	}
	return GilbertElliott{GoodToBad: min(1, loss*r/(1-loss)), BadToGood: r, LossBad: 1}
}

// Validate reports the first field out of range.
func (c Conditions) Validate() error {
	probs := []struct {
		name string
		p    float64
	}{
		{"Loss", c.Loss}, {"Duplicate", c.Duplicate}, {"Reorder", c.Reorder},
		{"Burst.GoodToBad", c.Burst.GoodToBad}, {"Burst.BadToGood", c.Burst.BadToGood},
		{"Burst.LossGood", c.Burst.LossGood}, {"Burst.LossBad", c.Burst.LossBad},
	}
	for _, p := range probs {
		if !(p.p >= 0 && p.p <= 1) { // also rejects NaN
			return fmt.Errorf("%w: %s %v outside [0, 1]", ErrConditions, p.name, p.p)
		}
	}
	switch {
	case c.Latency < 0 || c.Jitter < 0 || c.ReorderDelay < 0:
		return fmt.Errorf("%w: negative delay", ErrConditions)
	case c.Bandwidth < 0 || c.QueueBytes < 0:
		return fmt.Errorf("%w: negative bandwidth or queue", ErrConditions)
	case c.Burst.Enabled() && c.Burst.BadToGood == 0:
		return fmt.Errorf("%w: Burst.BadToGood is 0, the bad state never ends", ErrConditions)
	}
	return nil
}
