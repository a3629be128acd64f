package netsim_test

import (
	"fmt"
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
