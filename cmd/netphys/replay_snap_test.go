package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/match"
	snapreplay "github.com/netphys/netphys/netmodel/interp/replay"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/viewer"
	"github.com/netphys/netphys/wire/snapshot"
)

// recordPredict records d of a 2-player predict match of bots, in
// virtual time, as serve --record does, and returns the replay's path.
func recordPredict(t *testing.T, d time.Duration) string {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := match.DeclareFlags(fs, match.Defaults{Model: "predict", Players: 2})
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	_, sides, err := f.Sides()
	if err != nil {
		t.Fatal(err)
	}
	setup, err := f.Setup(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	setup.Record, setup.Now = t.TempDir(), simmatch.Epoch
	host, err := sides.NewHost(setup)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 3, Conditions: netsim.Conditions{Latency: 20 * time.Millisecond}}}, host)
	if err != nil {
		t.Fatal(err)
	}
	for slot := range 2 {
		p, err := sides.NewPlayer(match.PlayerSetup{Setup: setup, Slot: slot, Bot: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sm.Join(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := sm.Run(d); err != nil {
		t.Fatal(err)
	}
	if err := host.(io.Closer).Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(setup.Record, "predict-*.replay"))
	if len(files) != 1 {
		t.Fatalf("replays written: %v", files)
	}
	return files[0]
}

// TestReplayOfAPredictMatch: a recorded predict match verifies headless,
// with its summary; a snapshot altered in the file is named.
func TestReplayOfAPredictMatch(t *testing.T) {
	path := recordPredict(t, 12*time.Second)
	var out strings.Builder
	if err := run(context.Background(), []string{"replay", path}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
	for _, want := range []string{": predict arena 2 players, 26 objects, recorded by server", "snapshots: 360, 2 keyframes, 30 per second of a 60 Hz server, ticks 2 to 720 (11.967s)", "checksums: 360 of 360 snapshots decode as recorded"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !regexp.MustCompile(`file: \d+ bytes`).MatchString(out.String()) {
		t.Error("output lacks the file's size")
	}
	// A byte of the last snapshot's packet flipped: it decodes to another
	// snapshot, or not at all.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-2] ^= 0x10
	bad := filepath.Join(t.TempDir(), "bad.replay")
	os.WriteFile(bad, b, 0o644)
	out.Reset()
	err = run(context.Background(), []string{"replay", bad}, &out)
	if err == nil || !strings.Contains(err.Error(), "does not decode as recorded") || !strings.Contains(err.Error(), "snapshot 360") {
		t.Fatalf("altered replay: %v\n%s", err, out.String())
	}
}

// TestSnapshotReplayViewerControls drives a predict replay's playback
// with the page's keys, as TestReplayViewerControls does a lockstep one:
// a seek back lands on the view a straight play shows, z goes back to the
// first snapshot's tick, right stops at the end.
func TestSnapshotReplayViewerControls(t *testing.T) {
	rep, err := readSnapshotReplay(recordPredict(t, 25*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	p, err := snapreplay.NewPlayback(rep)
	if err != nil {
		t.Fatal(err)
	}
	s := &playbackState{p: p, speed: 1, step: 600}
	tick := time.Second / 60
	press := func(k viewer.Input) {
		t.Helper()
		if err := s.keys(k); err != nil {
			t.Fatal(err)
		}
	}
	straight := map[int64][]snapshot.Cube{}
	for range 700 {
		press(0)
		if err := s.advance(tick, tick); err != nil {
			t.Fatal(err)
		}
		straight[p.Tick()] = slices.Clone(p.View())
	}
	if p.Tick() != 702 {
		t.Fatalf("after 700 frames at 1x: tick %d", p.Tick())
	}
	press(viewer.KeyLeft)
	if p.Tick() != 102 || !slices.Equal(p.View(), straight[102]) {
		t.Fatalf("seek -10 s: tick %d", p.Tick())
	}
	press(0)
	press(viewer.KeyZ)
	if p.Tick() != 2 {
		t.Fatalf("z: tick %d, want the first snapshot's 2", p.Tick())
	}
	for range 4 {
		press(0)
		press(viewer.KeyRight)
	}
	if p.Tick() != p.Ticks() || !p.Done() || s.state() != "end" {
		t.Fatalf("seek +40 s in a 25 s replay: tick %d of %d", p.Tick(), p.Ticks())
	}
	if checked, agreed, first := p.Checked(); first != nil || checked != agreed {
		t.Fatalf("checksums %d of %d: %v", agreed, checked, first)
	}
}
