package match

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/netphys/netphys/netmodel/interp"
	snapreplay "github.com/netphys/netphys/netmodel/interp/replay"
)

// recordSnapshots opens the replay of a match of a model whose server
// simulates (predict, statesync, interp) in s.Record, as lockstep's
// record does: written as NAME.part and renamed to NAME by the returned
// close when the match ends; a match that recorded no snapshot leaves no
// file.
func recordSnapshots(s Setup, h snapreplay.Header) (*snapreplay.Recorder, func() error, error) {
	name := filepath.Join(s.Record, h.Model+"-"+s.Now.UTC().Format("20060102T150405.000")+".replay")
	f, err := os.Create(name + ".part")
	if err != nil {
		return nil, nil, fmt.Errorf("--record: %w", err)
	}
	w := bufio.NewWriter(f)
	rec, err := snapreplay.NewRecorder(w, h)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, nil, fmt.Errorf("--record: %w", err)
	}
	return rec, func() error {
		err := errors.Join(rec.Close(), w.Flush(), f.Close())
		if rec.Snapshots() == 0 {
			return errors.Join(err, os.Remove(f.Name()))
		}
		if err == nil {
			err = os.Rename(f.Name(), name)
			logger(s).Info("match recorded", "file", name, "snapshots", rec.Snapshots(), "bytes", rec.Bytes())
		}
		return err
	}, nil
}

func logger(s Setup) *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// recordInterp wraps an interp host's game to record its snapshots when
// s.Record is set; close ends the recording.
func recordInterp(s Setup, h snapreplay.Header, game interp.Game) (_ interp.Game, close func() error, _ error) {
	if s.Record == "" {
		return game, func() error { return nil }, nil
	}
	rec, closeRec, err := recordSnapshots(s, h)
	if err != nil {
		return nil, nil, err
	}
	return rec.Wrap(game), closeRec, nil
}

// Close ends the match's recording, if it records one.
func (h *interpHost) Close() error {
	if h.close == nil {
		return nil
	}
	err := h.close()
	h.close = nil
	return err
}
