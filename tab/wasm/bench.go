//go:build js && wasm

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"syscall/js"
	"time"

	"github.com/netphys/netphys/tab/tabbench"
)

// bench is the page's ?mode=bench: no server, no session. It runs the
// cases of tabbench the bridge's args name (--cases, comma-separated;
// default all) for --frames frames each after --warmup, and publishes
// their results as JSON in __tabState.bench, and in __tabState.firstTick
// when the first case's client simulated its first tick (the worker's
// clock, bridge.now: milliseconds since the epoch, as the page's
// performance.timeOrigin), for `netphys bench tab`. Around each case's
// timed frames it says so in __tabState.timing ("2 on", "2 off") and
// pauses, so that bench tab can read the worker thread's CPU time there.
// timingPause is how long the program idles at each timing mark: the
// worker mirrors its state every 100 ms and bench tab polls the page.
const timingPause = 700 * time.Millisecond

func bench(bridge, st js.Value) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	frames := fs.Int("frames", 600, "60 Hz frames timed in each case")
	warmup := fs.Duration("warmup", time.Second, "virtual time played before the frames are timed")
	names := fs.String("cases", "", "the cases to run, comma-separated (default: all)")
	if err := fs.Parse(strings.Fields(bridge.Get("args").String())); err != nil {
		return fmt.Errorf("the page's bench flags: %w", err)
	}
	cases := tabbench.Cases
	if *names != "" {
		cases = nil
		for _, n := range strings.Split(*names, ",") {
			c, err := tabbench.Lookup(n)
			if err != nil {
				return err
			}
			cases = append(cases, c)
		}
	}
	st.Set("state", "bench")
	var results []tabbench.Result
	for i, c := range cases {
		bridge.Call("status", fmt.Sprintf("bench: %s", c.Name))
		cfg := tabbench.Config{Warmup: *warmup, Frames: *frames}
		if i == 0 {
			cfg.FirstTick = func() { st.Set("firstTick", bridge.Call("now")) }
		}
		cfg.Timing = func(on bool) {
			st.Set("timing", fmt.Sprintf("%d %v", i, map[bool]string{true: "on", false: "off"}[on]))
			time.Sleep(timingPause) // the worker mirrors the state meanwhile
		}
		r, err := tabbench.Run(c, cfg)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	b, err := json.Marshal(results)
	if err != nil {
		return err
	}
	st.Set("bench", string(b))
	st.Set("state", "done")
	bridge.Call("status", "bench done")
	return nil
}
