package agones_test

import (
	"context"
	"fmt"
	"time"

	"github.com/netphys/netphys/transport/agones"
	"github.com/netphys/netphys/transport/agones/agonestest"
)

// A game server's life under Agones: Ready once its socket is bound,
// health pings, the allocation seen in the watch with the match it names,
// Shutdown when the match is over. The fake SDK server plays Agones here;
// in a pod, agones.FromEnv() finds the sidecar.
func Example() {
	fake := agonestest.New(4, nil)
	defer fake.Close()
	sdk := agones.New(fake.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if err := sdk.Ready(ctx); err != nil {
		fmt.Println(err)
		return
	}
	go sdk.HealthLoop(ctx, time.Second, nil)

	allocated := make(chan agones.GameServer, 1)
	wctx, stopWatch := context.WithCancel(ctx)
	go sdk.Watch(wctx, func(gs agones.GameServer) {
		if gs.Status.State == agones.StateAllocated {
			select {
			case allocated <- gs:
			default:
			}
		}
	})
	// The Agones controller applies a GameServerAllocation (here the fake).
	fake.Allocate(nil, map[string]string{"netphys.dev/match": "m-42"})
	gs := <-allocated
	stopWatch()
	fmt.Println("allocated for match", gs.ObjectMeta.Annotations["netphys.dev/match"])

	sdk.AddListValue(ctx, "players", "1001") // a player joined
	sdk.RemoveListValue(ctx, "players", "1001")
	if err := sdk.Shutdown(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fake.History())
	// Output:
	// allocated for match m-42
	// [Scheduled Ready Allocated Shutdown]
}
