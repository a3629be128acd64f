package cubegames

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/syncbuf"
	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
	"github.com/netphys/netphys/scene"
)

// TestServeRecordsTheLockstepMatch: with Setup.Record the referee's world
// writes the match to a replay, closed when the match ends, which
// re-simulates with every recorded checksum equal.
func TestServeRecordsTheLockstepMatch(t *testing.T) {
	m, sides, setup := modelSides(t, match.Defaults{Model: "lockstep", Players: 2}, "--players", "2", "--layout", "tower20")
	setup.Record = t.TempDir()
	var status syncbuf.Buffer
	srv := startServe(t, match.ServeConfig{Model: m, Sides: sides, Setup: setup, Status: &status})
	const ticks = 180
	done := make(chan error, 2)
	for id := range 2 {
		tok := token(t, srv, id+1)
		go func() {
			ps := setup
			ps.Record = ""
			_, err := match.Play(context.Background(), match.PlayConfig{Model: m, Sides: sides, Setup: ps, Token: tok, Bot: true, Ticks: ticks, Linger: 100 * time.Millisecond})
			done <- err
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("player: %v", err)
		}
	}
	// The match is over once both players left: its replay is closed.
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(status.String(), "serve summary") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(setup.Record, "lockstep-*.replay"))
	if len(files) != 1 {
		t.Fatalf("replays written: %v, want one", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := replay.Read[scene.Input](f)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ticks() < ticks {
		t.Fatalf("replay holds %d ticks, the players confirmed %d", rep.Ticks(), ticks)
	}
	world, err := scene.NewLockstep(scene.Tower20, scene.DefaultConfig(), 2)
	if err != nil {
		t.Fatal(err)
	}
	pb := replay.NewPlayback[scene.Input](rep, world, 0)
	for !pb.Done() {
		if _, err := pb.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if checked, agreed, _ := pb.Checked(); checked < ticks || agreed != checked {
		t.Fatalf("checksums: %d of %d agree, want every one of at least %d", agreed, checked, ticks)
	}
}
