package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/netphys/netphys/internal/cubegames"
	snapreplay "github.com/netphys/netphys/netmodel/interp/replay"
	"github.com/netphys/netphys/viewer"
)

// Snapshot replays: what serve --record writes of predict, statesync and
// interp matches, the server's snapshots as spectators receive them
// (package netmodel/interp/replay).

// isSnapshotReplay reports whether the file at path opens as a snapshot
// replay.
func isSnapshotReplay(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var magic [len(snapreplay.Magic)]byte
	n, _ := io.ReadFull(f, magic[:])
	return snapreplay.IsReplay(magic[:n]), nil
}

// readSnapshotReplay reads a snapshot replay that this program draws.
func readSnapshotReplay(path string) (*snapreplay.Replay, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rep, err := snapreplay.Read(f)
	if err != nil {
		if rep != nil && len(rep.Snapshots) > 0 {
			return nil, fmt.Errorf("%s: %w (the file reads up to snapshot %d; a recording cut short by a crash ends between snapshots)", path, err, rep.Snapshots[len(rep.Snapshots)-1].N)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rep.Snapshots) == 0 {
		return nil, fmt.Errorf("%s: the replay holds no snapshot", path)
	}
	if _, err := cubegames.ReplayDrawer(rep.Header); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rep, nil
}

// verifySnapshotReplay prints the replay's summary and decodes every
// snapshot, comparing its checksum.
func verifySnapshotReplay(w io.Writer, path string, rep *snapreplay.Replay) error {
	h := rep.Header
	fmt.Fprintf(w, "replay %s: %s %s %s, %d objects, recorded by %s\n", path, h.Model, h.Game, h.Variant, h.Objects, orNone(h.Party))
	seconds := rep.Seconds()
	fmt.Fprintf(w, "snapshots: %d, %d keyframes, %d per second of a %d Hz server, ticks %d to %d (%v)\n", len(rep.Snapshots), rep.Keyframes(), h.TickRate/h.Interval, h.TickRate,
		rep.Start(), rep.Ticks(), time.Duration(seconds*float64(time.Second)).Round(time.Millisecond))
	fmt.Fprintf(w, "file: %d bytes, %.1f bytes per snapshot, %.2f kB per minute\n", rep.Size, float64(rep.Size)/float64(len(rep.Snapshots)), float64(rep.Size)/1000/max(seconds/60, 1e-9))
	checked, err := snapreplay.Verify(rep)
	if err != nil {
		fmt.Fprintf(w, "checksums: %d snapshots decoded; %v\n", checked, err)
		return fmt.Errorf("replay %s does not decode as recorded: %w", path, err)
	}
	fmt.Fprintf(w, "checksums: %d of %d snapshots decode as recorded\n", checked, len(rep.Snapshots))
	return nil
}

// playSnapshotReplay plays a snapshot replay in the viewer.
func playSnapshotReplay(ctx context.Context, w io.Writer, rep *snapreplay.Replay, addr string, speed float64) error {
	draw, err := cubegames.ReplayDrawer(rep.Header)
	if err != nil {
		return err
	}
	p, err := snapreplay.NewPlayback(rep)
	if err != nil {
		return err
	}
	h := rep.Header
	tick := time.Second / time.Duration(h.TickRate)
	s := &playbackState{p: p, speed: speed, step: int64(replaySaveEvery / tick)}
	var cubes []viewer.Cube
	return showReplay(ctx, w, addr, s, tick, func(state string) (viewer.View, []viewer.Figure) {
		cubes = draw(p.View(), cubes[:0])
		checked, agreed, first := p.Checked()
		figs := []viewer.Figure{
			{Name: "replay", Text: fmt.Sprintf("%s %s %s, %s", h.Model, h.Game, h.Variant, state)},
			{Name: "snapshots agree", Text: fmt.Sprintf("%d of %d", agreed, checked)},
		}
		if first != nil {
			figs = append(figs, viewer.Figure{Name: "first differing", Text: first.Error()})
		}
		return viewer.View{Name: "replay", Cubes: cubes}, figs
	})
}
