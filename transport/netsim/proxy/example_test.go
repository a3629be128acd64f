package proxy_test

import (
	"context"
	"log"
	"time"

	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/transport/netsim/proxy"
)

// A proxy in front of a game server on port 40000: clients connect to
// port 40001 and see 100 ms of latency each way and 5 % loss. It runs
// until ctx is done. (Not run as a test: it needs a server.)
func ExampleListen() {
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	p, err := proxy.Listen(proxy.Config{
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
