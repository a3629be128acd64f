package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

func init() {
	register(&command{
		name:    "netsim",
		summary: "UDP proxy that adds latency, jitter, loss, duplication, reordering and a bandwidth cap",
		setup:   setupNetsim,
	})
}

func setupNetsim(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	listen := fs.String("listen", "127.0.0.1:40001", "UDP `address` clients send to")
	forward := fs.String("forward", "", "UDP `address` of the server (required)")
	latency := fs.Duration("latency", 0, "one-way delay added each way")
	jitter := fs.Duration("jitter", 0, "each packet's delay varies uniformly within latency±jitter")
	loss := fs.String("loss", "0%", "share of packets lost each way, as 5% or 0.05")
	burst := fs.Float64("burst", 0, "mean length of loss bursts in `packets` (Gilbert–Elliott); 0: independent losses")
	dup := fs.String("dup", "0%", "share of packets delivered twice")
	reorder := fs.String("reorder", "0%", "share of packets held back so later ones overtake them")
	reorderDelay := fs.Duration("reorder-delay", 20*time.Millisecond, "extra delay of a held-back packet")
	bandwidth := fs.String("bandwidth", "0", "cap per client each way, as 1mbit, 256kbit, 100KB (per second); 0: none")
	queue := fs.Int("queue", 64*1024, "`bytes` queued behind the bandwidth cap before tail drop")
	seed := fs.Uint64("seed", 1, "seed of the random choices")
	idle := fs.Duration("idle", time.Minute, "close a client's upstream socket after this long without traffic")
	every := fs.Duration("stats", 5*time.Second, "log the counters this often")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("netsim: unexpected arguments %q", args)
		}
		if *forward == "" {
			return errors.New("netsim: --forward is required")
		}
		c := netsim.Conditions{Latency: *latency, Jitter: *jitter, ReorderDelay: *reorderDelay, QueueBytes: *queue}
		var err error
		for _, p := range []struct {
			s   string
			dst *float64
		}{{*loss, &c.Loss}, {*dup, &c.Duplicate}, {*reorder, &c.Reorder}} {
			if *p.dst, err = netsim.ParseProbability(p.s); err != nil {
				return err
			}
		}
		if *burst > 0 {
			if *burst < 1 {
				return fmt.Errorf("netsim: --burst %v: a burst is at least 1 packet", *burst)
			}
			c.Burst = netsim.BurstLoss(c.Loss, *burst)
		}
		if c.Bandwidth, err = netsim.ParseBandwidth(*bandwidth); err != nil {
			return err
		}
		p, err := netsim.Listen(netsim.ProxyConfig{
			Listen: *listen, Forward: *forward, Seed: *seed, Conditions: c, IdleTimeout: *idle,
		})
		if err != nil {
			return err
		}
		slog.Info("netsim: relaying", "listen", p.Addr(), "forward", *forward,
			"latency", c.Latency, "jitter", c.Jitter, "loss", c.Loss, "burst", *burst,
			"dup", c.Duplicate, "reorder", c.Reorder, "bandwidth_bytes_per_s", c.Bandwidth, "seed", *seed)
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		tick := time.NewTicker(max(*every, 100*time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case err := <-done:
				logProxyCounters("netsim: stopped", p.Counters())
				return err
			case <-tick.C:
				logProxyCounters("netsim", p.Counters())
			}
		}
	}
}

func logProxyCounters(msg string, c netsim.ProxyCounters) {
	slog.Info(msg, "clients", c.Clients, "sent", c.Sent, "delivered", c.Delivered,
		"lost", c.Lost, "queue_dropped", c.QueueDropped, "duplicated", c.Duplicated,
		"reordered", c.Reordered, "in_flight", c.Pending, "bytes_sent", c.BytesSent,
		"bytes_delivered", c.BytesDelivered, "refused", c.Refused, "write_errors", c.WriteErrors)
}
