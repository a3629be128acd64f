package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/cubegames"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
)

// TestReplayViewerControls drives the viewer playback with the page's
// keys, in virtual time: space pauses, up and down change the speed
// within 0.25x to 8x, right and left seek 10 s, z restarts; a key held
// acts once; a seek back lands on the state a straight play reaches.
func TestReplayViewerControls(t *testing.T) {
	heavyTest(t)
	path := filepath.Join(t.TempDir(), "m.replay")
	var out strings.Builder
	if err := run(context.Background(), []string{"replay", "--record-sample", "30s", "--layout", "pyramid10", "--players", "2", "--out", path}, &out); err != nil {
		t.Fatal(err)
	}
	rep, err := readReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	// The checksum after every tick, from a straight play.
	straight, _ := newCubeWorld(rep.Header)
	sums := make([]uint64, rep.Ticks())
	for tick := range rep.Ticks() {
		straight.Step(rep.At(tick))
		sums[tick] = straight.Checksum()
	}
	world, _ := newCubeWorld(rep.Header)
	pb := replay.NewPlayback(rep, lockstep.Game[scene.Input](world), 600)
	s := &playbackState{p: lockstepPlayable{pb}, speed: 1, step: 600}
	tick := rep.Header.TickDuration
	press := func(k viewer.Input) {
		t.Helper()
		if err := s.keys(k); err != nil {
			t.Fatal(err)
		}
	}
	for range 60 { // one second at 1x: 60 ticks
		press(0)
		if err := s.advance(tick, tick); err != nil {
			t.Fatal(err)
		}
	}
	if s.p.Tick() != 60 {
		t.Fatalf("after 1 s at 1x: tick %d", s.p.Tick())
	}
	press(viewer.KeyUp)
	press(viewer.KeyUp) // held: no second doubling
	press(0)
	press(viewer.KeyUp)
	if s.speed != 4 {
		t.Fatalf("speed %v after up, held, up: want 4", s.speed)
	}
	for range 10 {
		press(viewer.KeyUp)
		press(0)
	}
	if s.speed != 8 {
		t.Fatalf("speed %v, want at most 8", s.speed)
	}
	press(viewer.KeySpace)
	if err := s.advance(time.Second, tick); err != nil {
		t.Fatal(err)
	}
	if !s.paused || s.p.Tick() != 60 {
		t.Fatalf("paused %v at tick %d, want paused at 60", s.paused, s.p.Tick())
	}
	press(viewer.KeyRight)
	if s.p.Tick() != 660 || world.Checksum() != sums[659] {
		t.Fatalf("seek +10 s: tick %d", s.p.Tick())
	}
	press(0)
	press(viewer.KeyLeft)
	press(0)
	press(viewer.KeyLeft)
	if s.p.Tick() != 0 {
		t.Fatalf("seek -10 s twice from 660: tick %d, want 0", s.p.Tick())
	}
	press(0)
	press(viewer.KeyRight)
	press(0)
	press(viewer.KeyRight)
	press(0)
	press(viewer.KeyLeft)
	if s.p.Tick() != 600 || world.Checksum() != sums[599] {
		t.Fatalf("seek +20 s -10 s: tick %d, checksum %#x, straight play %#x", s.p.Tick(), world.Checksum(), sums[599])
	}
	press(viewer.KeyZ)
	if s.p.Tick() != 0 {
		t.Fatalf("z: tick %d", s.p.Tick())
	}
	if checked, agreed, first := pb.Checked(); first != nil || checked != agreed {
		t.Fatalf("checksums %d of %d, first %v", agreed, checked, first)
	}
	v := cubegames.SceneView("replay", world.Scene, -1, nil)
	if len(v.Cubes) != len(world.Scene.Players)+len(world.Scene.Cubes) {
		t.Fatalf("view of %d cubes", len(v.Cubes))
	}
}

// TestReplayServesTheViewer: replay --http serves the page and plays
// until the context ends, without an error.
func TestReplayServesTheViewer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.replay")
	var out strings.Builder
	if err := run(context.Background(), []string{"replay", "--record-sample", "1s", "--layout", "tower20", "--players", "1", "--out", path}, &out); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := run(ctx, []string{"replay", "--http", "127.0.0.1:0", "--speed", "2", path}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "netphys replay: open http://127.0.0.1:") {
		t.Fatalf("output:\n%s", out.String())
	}
}
