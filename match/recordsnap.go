package match

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	snapreplay "github.com/netphys/netphys/netmodel/interp/replay"
)

// RecordSnapshots opens the snapshot replay of a match in s.Record (serve
// --record), for a model whose server simulates (predict, statesync,
// interp; WithSpectators calls it): written as NAME.part and renamed to
// NAME by the returned close when the match ends; close(false), or a match
// that recorded no snapshot, leaves no file (a host nobody played). The Recorder wraps the interp.Game whose
// snapshots it writes.
func RecordSnapshots(s Setup, h snapreplay.Header) (*snapreplay.Recorder, func(keep bool) error, error) {
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
	return rec, func(keep bool) error {
		err := errors.Join(rec.Close(), w.Flush(), f.Close())
		if !keep || rec.Snapshots() == 0 {
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
