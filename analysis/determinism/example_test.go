package determinism_test

import (
	"context"
	"fmt"
	"log"
	"path/filepath"

	"github.com/netphys/netphys/analysis/determinism"
)

// Check a game's simulation package (testdata/game/sim, a module of its
// own) from Go. The same findings come from
// `netphys vet ./sim` run in that module.
func Example() {
	found, err := determinism.Check(context.Background(), "testdata/game", "./sim")
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range found {
		fmt.Printf("%s:%d: %s\n", filepath.Base(f.Pos.Filename), f.Pos.Line, f.Rule)
	}
	// Output:
	// sim.go:15: maprange
	// sim.go:16: fma
	// sim.go:18: clock
	// sim.go:19: math
}
