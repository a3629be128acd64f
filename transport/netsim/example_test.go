package netsim_test

import (
	"context"
	"fmt"
	"log"
	"net/netip"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

func Example() {
	client := netip.MustParseAddrPort("10.0.0.2:50000")
	server := netip.MustParseAddrPort("10.0.0.1:40000")
	sim, _ := netsim.New(netsim.Config{Seed: 1, Conditions: netsim.Conditions{
		Latency: 100 * time.Millisecond,
		Jitter:  10 * time.Millisecond,
	}})

	start := time.Unix(0, 0)
	sim.Send(start, client, server, []byte("hello"))
	for now := start; now.Sub(start) < time.Second; now = now.Add(10 * time.Millisecond) {
		for _, p := range sim.Receive(now) {
			fmt.Printf("%s from %v, %v on the wire\n", p.Data, p.From, p.Due.Sub(p.Sent).Round(10*time.Millisecond))
		}
	}
	// Output:
	// hello from 10.0.0.2:50000, 100ms on the wire
}

// A proxy in front of a game server on port 40000: clients connect to
// port 40001 and see 100 ms of latency each way and 5 % loss. It runs
// until ctx is done. (Not run as a test: it needs a server.)
func ExampleListen() {
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	p, err := netsim.Listen(netsim.ProxyConfig{
		Listen:  "127.0.0.1:40001",
		Forward: "127.0.0.1:40000",
		Seed:    1,
		Conditions: netsim.Conditions{
			Latency: 100 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05,
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		for range time.Tick(5 * time.Second) {
			log.Printf("%+v", p.Counters())
		}
	}()
	if err := p.Run(ctx); err != nil {
		log.Fatal(err)
	}
}
