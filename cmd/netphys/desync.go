package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
	"github.com/netphys/netphys/scene"
)

// desync: compare two parties' replays of one lockstep match of the cube
// world and name the first tick, body and field that differ.

func init() {
	register(&command{
		name:    "desync",
		summary: "compare two parties' replays of one lockstep match: the first tick whose inputs, checksums or re-simulations differ, and the body and field",
		args:    "A B",
		setup:   setupDesync,
	})
}

// errDiffer is desync's exit status 1, like diff's: the replays differ.
var errDiffer = errors.New("desync: the replays differ (see the report above)")

func setupDesync(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	return func(ctx context.Context, args []string) error {
		if len(args) != 2 {
			return fmt.Errorf("desync: give two replay files of one match (serve --record, or a player's), got %d", len(args))
		}
		var reps [2]*replay.Replay[scene.Input]
		for i, path := range args {
			rep, err := readReplay(path)
			if err != nil {
				return err
			}
			reps[i] = rep
		}
		r, err := replay.Diagnose(reps[0], reps[1], func(int) (lockstep.Game[scene.Input], error) {
			return newCubeWorld(reps[0].Header)
		})
		if err != nil {
			return err
		}
		w := stdoutOf(fs)
		fmt.Fprintf(w, "A: %s\nB: %s\n", args[0], args[1])
		fmt.Fprint(w, r)
		if t, _, _ := r.First(); t >= 0 {
			return errDiffer
		}
		return nil
	}
}
