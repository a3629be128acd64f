package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/vecmath"
)

// kicked is the cube world with a planted bug: at tick 50 it pushes one
// cube, which no input asked for.
type kicked struct {
	*scene.Lockstep
	tick lockstep.Tick
	cube int // -1: no bug
}

func (k *kicked) Step(in []scene.Input) {
	if k.tick == 50 && k.cube >= 0 {
		s := k.Scene
		s.World.ApplyForce(s.Cubes[k.cube], vecmath.V3(0, 0, 30))
	}
	k.Lockstep.Step(in)
	k.tick++
}

// recordParty writes one party's 90-tick recording of a 2-player
// cubes900 match, keeping the state of tick 60 as on a desync; bug is
// the cube its world pushes at tick 50 (-1: none), flip the tick whose
// player 1 input it records with space toggled (-1: none).
func recordParty(t *testing.T, path, name string, bug int, flip lockstep.Tick) {
	t.Helper()
	cfg := lockstep.DefaultConfig()
	cfg.Players = 2
	h := replay.NewHeader(cfg, cubeWorld, scene.Cubes900.String(), name)
	world, err := scene.NewLockstep(scene.Cubes900, scene.DefaultConfig(), 2)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := replay.NewRecorder[scene.Input](f, h)
	if err != nil {
		t.Fatal(err)
	}
	g := rec.Wrap(&kicked{Lockstep: world, cube: bug})
	for tick := range lockstep.Tick(90) {
		in := []scene.Input{scene.PlayerBot(0)(tick), scene.PlayerBot(1)(tick)}
		if tick == flip {
			in[1].Space = !in[1].Space
		}
		g.Step(in)
	}
	if err := g.Desync(60, "desync at tick 60"); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDesyncNamesTheCube: party B's world pushes cube 17 at tick 50. The
// report names tick 50 as the first where B's recording disagrees with
// its inputs, and cube 17 as the body whose state differs in B's kept
// state of the desync's tick; A's recording agrees with itself.
func TestDesyncNamesTheCube(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.replay"), filepath.Join(dir, "b.replay")
	recordParty(t, a, "player 0", -1, -1)
	recordParty(t, b, "player 1", 17, -1)
	var out strings.Builder
	err := run(context.Background(), []string{"desync", a, b}, &out)
	t.Log("\n" + out.String())
	if !errors.Is(err, errDiffer) {
		t.Fatalf("err %v, want errDiffer", err)
	}
	for _, want := range []string{
		"recorded checksums: first differ at tick 50",
		"B (player 1): its checksum of tick 50 differs from the re-simulation of its own inputs",
		"B (player 1): its kept state of tick 60 differs from the re-simulation: cube 17 (object 19), position.",
		"verdict: first difference after tick 50; by tick 60 the most at cube 17 (object 19)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report misses %q", want)
		}
	}
	if strings.Contains(out.String(), "A (player 0): its") {
		t.Error("the report blames A, whose recording agrees with its inputs")
	}
}

// TestDesyncNamesTheInput: B recorded player 1's space key toggled at
// tick 30: the report names the input and player 1's cube.
func TestDesyncNamesTheInput(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.replay"), filepath.Join(dir, "b.replay")
	recordParty(t, a, "server", -1, -1)
	recordParty(t, b, "player 0", -1, 30)
	var out strings.Builder
	err := run(context.Background(), []string{"desync", a, b}, &out)
	t.Log("\n" + out.String())
	if !errors.Is(err, errDiffer) {
		t.Fatalf("err %v", err)
	}
	for _, want := range []string{
		"inputs: first differ at tick 30, player 1",
		"re-simulation: A and B first differ after tick 30: player 1 (object 1), ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report misses %q", want)
		}
	}
	// The same recording twice: no difference, exit status 0.
	out.Reset()
	if err := run(context.Background(), []string{"desync", a, a}, &out); err != nil || !strings.Contains(out.String(), "verdict: no difference found") {
		t.Fatalf("a replay against itself: %v\n%s", err, out.String())
	}
}
