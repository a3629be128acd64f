package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/transport/netsim/proxy"
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
	conditions := conditionFlags(fs, 0, "0%")
	seed := fs.Uint64("seed", 1, "seed of the random choices")
	idle := fs.Duration("idle", time.Minute, "close a client's upstream socket after this long without traffic")
	every := fs.Duration("stats", 5*time.Second, "log the counters this often (0: only when it stops)")
	return func(ctx context.Context, args []string) error {
		if *forward == "" {
			return errors.New("netsim: --forward is required")
		}
		if *every < 0 {
			return fmt.Errorf("--stats %v: want >= 0 (0: only when it stops)", *every)
		}
		c, err := conditions()
		if err != nil {
			return err
		}
		p, err := proxy.Listen(proxy.Config{
			Listen: *listen, Forward: *forward, Seed: *seed, Conditions: c, IdleTimeout: *idle,
		})
		if err != nil {
			return err
		}
		slog.Info("netsim: relaying", "listen", p.Addr(), "forward", *forward,
			"latency", c.Latency, "jitter", c.Jitter, "loss", match.Round(100*c.Loss)+" %",
			"dup", match.Round(100*c.Duplicate)+" %", "reorder", match.Round(100*c.Reorder)+" %", "bandwidth_bytes_per_s", c.Bandwidth, "seed", *seed)
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		var tick <-chan time.Time
		if *every > 0 {
			t := time.NewTicker(max(*every, 100*time.Millisecond))
			defer t.Stop()
			tick = t.C
		}
		for {
			select {
			case err := <-done:
				logProxyCounters("netsim: stopped", p.Counters())
				return err
			case <-tick:
				logProxyShort(p.Counters())
			}
		}
	}
}

// logProxyShort is the periodic line: what was sent and what became of it;
// every counter at level debug (NETPHYS_LOG=debug).
func logProxyShort(c proxy.Counters) {
	lost := "0 %"
	if c.Sent > 0 {
		lost = match.Round(100*float64(c.Lost+c.QueueDropped)/float64(c.Sent)) + " %"
	}
	slog.Info("netsim", "clients", c.Clients, "sent", c.Sent, "delivered", c.Delivered, "lost", lost, "in_flight", c.Pending)
	if slog.Default().Enabled(context.Background(), slog.LevelDebug) {
		logProxyCountersAt(slog.LevelDebug, "netsim: counters", c)
	}
}

func logProxyCounters(msg string, c proxy.Counters) { logProxyCountersAt(slog.LevelInfo, msg, c) }

func logProxyCountersAt(level slog.Level, msg string, c proxy.Counters) {
	slog.Log(context.Background(), level, msg, "clients", c.Clients, "sent", c.Sent, "delivered", c.Delivered,
		"lost", c.Lost, "queue_dropped", c.QueueDropped, "duplicated", c.Duplicated,
		"reordered", c.Reordered, "in_flight", c.Pending, "bytes_sent", c.BytesSent,
		"bytes_delivered", c.BytesDelivered, "refused", c.Refused, "write_errors", c.WriteErrors)
}
