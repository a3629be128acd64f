package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// conditionFlags declares the network-condition flags that netsim and demo
// share, with the given defaults, and returns the function that reads
// them into netsim.Conditions once the flags are parsed.
func conditionFlags(fs *flag.FlagSet, latency time.Duration, loss string) func() (netsim.Conditions, error) {
	lat := fs.Duration("latency", latency, "one-way delay added each way (RTT is about twice this)")
	jitter := fs.Duration("jitter", 0, "each packet's delay varies uniformly within latency±jitter")
	lossText := fs.String("loss", loss, "share of packets lost each way, as 5% or 0.05 (a bare 5 is refused: write 5%)")
	burst := fs.Float64("burst", 0, "mean length of loss bursts in `packets` (Gilbert–Elliott); 0: independent losses")
	dup := fs.String("dup", "0%", "share of packets delivered twice")
	reorder := fs.String("reorder", "0%", "share of packets held back so later ones overtake them")
	reorderDelay := fs.Duration("reorder-delay", 20*time.Millisecond, "extra delay of a held-back packet")
	bandwidth := fs.String("bandwidth", "0", "cap each way, as 1mbit, 256kbit, 100KB (per second); 0: none")
	queue := fs.Int("queue", 64*1024, "`bytes` queued behind the bandwidth cap before tail drop")
	return func() (netsim.Conditions, error) {
		c := netsim.Conditions{Latency: *lat, Jitter: *jitter, ReorderDelay: *reorderDelay, QueueBytes: *queue}
		var err error
		for _, p := range []struct {
			flag, s string
			dst     *float64
		}{{"loss", *lossText, &c.Loss}, {"dup", *dup, &c.Duplicate}, {"reorder", *reorder, &c.Reorder}} {
			if *p.dst, err = netsim.ParseProbability(p.s); err != nil {
				return c, fmt.Errorf("--%s: %w", p.flag, err)
			}
		}
		if *burst > 0 {
			if *burst < 1 {
				return c, fmt.Errorf("--burst %v: a burst is at least 1 packet", *burst)
			}
			c.Burst = netsim.BurstLoss(c.Loss, *burst)
		}
		if c.Bandwidth, err = netsim.ParseBandwidth(*bandwidth); err != nil {
			return c, fmt.Errorf("--bandwidth: %w", err)
		}
		return c, c.Validate()
	}
}
