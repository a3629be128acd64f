package replay_test

import (
	"os"
	"testing"

	"github.com/netphys/netphys/internal/golden"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
	"github.com/netphys/netphys/scene"
)

// cubeWorldFile is a replay recorded on linux/amd64 by
//
//	netphys replay --record-sample 5s --out netmodel/lockstep/replay/testdata/cubes900-5s.replay
//
// four bots in the 900-cube world for 300 ticks, a checksum each tick.
// Re-record it only when the cube world's simulation is meant to change
// (its goldens in scene/testdata change with it).
const cubeWorldFile = "testdata/cubes900-5s.replay"

// TestCubeWorldReplayFile re-simulates the recorded match and requires
// every one of its checksums.
func TestCubeWorldReplayFile(t *testing.T) {
	f, err := os.Open(cubeWorldFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := replay.Read[scene.Input](f)
	if err != nil {
		t.Fatal(err)
	}
	h := rep.Header
	if h.Game != "cube world" || h.Variant != "cubes900" || h.Players != 4 || rep.Ticks() != 300 {
		t.Fatalf("%s: %+v, %d ticks", cubeWorldFile, h, rep.Ticks())
	}
	world, err := scene.NewLockstep(scene.Cubes900, scene.DefaultConfig(), h.Players)
	if err != nil {
		t.Fatal(err)
	}
	checked, agreed, first := replay.Verify(rep, lockstep.Game[scene.Input](world))
	if first != nil || checked != 300 || agreed != 300 {
		t.Fatalf("%d of %d checksums agree, first differing: %v", agreed, checked, first)
	}
	t.Logf("%d of %d checksums match the recording (%d bytes)", agreed, checked, rep.Size)
}

// TestCubeWorldReplayCrossArch plays the amd64 recording in this
// package's test binary built for arm64 (under qemu-aarch64-static) and
// for amd64 with GOAMD64=v3: a replay written on one architecture plays
// bit-identically on the others.
func TestCubeWorldReplayCrossArch(t *testing.T) {
	golden.CrossArch(t, "TestCubeWorldReplayFile")
}
