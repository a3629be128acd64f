package replay

import (
	"bytes"
	"fmt"
	"io"

	"github.com/netphys/netphys/netmodel/internal/replayfile"
	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/wire"
)

// Replay is a snapshot replay read into memory.
type Replay struct {
	Header Header
	// Snapshots in order of their numbers; keyframes are those coded
	// whole.
	Snapshots []Snapshot
	// Size is the file's size in bytes, as read.
	Size int64
}

// Snapshot is one recorded snapshot, still coded.
type Snapshot struct {
	N      interp.Number
	Key    bool   // coded whole: decoding may start here
	Sum    uint32 // Checksum of what it decodes to
	Packet []byte // the interp packet
}

// Ticks is the tick of the last snapshot: the match time covered.
func (r *Replay) Ticks() int64 {
	if len(r.Snapshots) == 0 {
		return 0
	}
	return int64(r.Snapshots[len(r.Snapshots)-1].N) * int64(r.Header.Interval)
}

// Start is the tick of the first snapshot.
func (r *Replay) Start() int64 {
	if len(r.Snapshots) == 0 {
		return 0
	}
	return int64(r.Snapshots[0].N) * int64(r.Header.Interval)
}

// Seconds is the match time covered, from the first snapshot to the last.
func (r *Replay) Seconds() float64 {
	return float64(r.Ticks()-r.Start()) / float64(r.Header.TickRate)
}

// Keyframes counts the snapshots coded whole.
func (r *Replay) Keyframes() int {
	k := 0
	for i := range r.Snapshots {
		if r.Snapshots[i].Key {
			k++
		}
	}
	return k
}

// Limits bound what a reader takes from a file.
type Limits struct {
	// MaxSnapshots is the most snapshots read.
	MaxSnapshots int
	// MaxBytes is the most bytes of snapshots kept in memory.
	MaxBytes int64
	// MaxObjects is the most objects a header may declare: a playback
	// decodes into interp.Ring snapshots of them.
	MaxObjects int
}

// DefaultLimits suit two hours at 60 snapshots per second, 1 GB, and
// 4096 objects (the cube world has 900).
func DefaultLimits() Limits {
	return Limits{MaxSnapshots: 2 * 3600 * 60, MaxBytes: 1 << 30, MaxObjects: 4096}
}

// IsReplay reports whether b, a file's first bytes, opens a snapshot
// replay.
func IsReplay(b []byte) bool { return bytes.HasPrefix(b, []byte(Magic)) }

// Read reads a replay with DefaultLimits.
func Read(r io.Reader) (*Replay, error) { return ReadLimits(r, DefaultLimits()) }

// ReadLimits reads a snapshot replay. On an error it returns what it read
// before it as well (a file cut by a crash gives the snapshots of its
// complete blocks). Errors wrap ErrFormat, or the reader's own.
func ReadLimits(r io.Reader, lim Limits) (*Replay, error) {
	rep := &Replay{}
	blocks, err := replayfile.Open(r, format, rep.Header.Serialize)
	if err != nil {
		return nil, err
	}
	if rep.Header.Objects > lim.MaxObjects {
		return nil, fmt.Errorf("%w: %d objects, this reader takes at most %d", ErrFormat, rep.Header.Objects, lim.MaxObjects)
	}
	rep.Size = blocks.Size()
	var kept int64
	var key interp.Number // the last keyframe's number
	for {
		b, err := blocks.Next()
		if err == io.EOF {
			return rep, nil
		}
		if err != nil {
			return rep, err
		}
		if len(rep.Snapshots) >= lim.MaxSnapshots || kept+int64(len(b)) > lim.MaxBytes {
			return rep, fmt.Errorf("%w: more than %d snapshots or %d bytes", ErrFormat, lim.MaxSnapshots, lim.MaxBytes)
		}
		var rec record
		if err := replayfile.Decode(b, rec.serialize); err != nil {
			return rep, fmt.Errorf("%w: snapshot after %d: %w", ErrFormat, len(rep.Snapshots), err)
		}
		s, err := check(rep, &rec, key)
		if err != nil {
			return rep, err
		}
		if s.Key {
			key = s.N
		}
		kept += int64(len(s.Packet))
		rep.Snapshots = append(rep.Snapshots, s)
		rep.Size = blocks.Size()
	}
}

// check validates a record against the replay so far: a packet whose
// header names its number, numbers that increase, a first snapshot
// coded whole, baselines no older than key, the last keyframe.
func check(rep *Replay, rec *record, key interp.Number) (Snapshot, error) {
	var h interp.Header
	if len(rec.packet) < interp.HeaderBytes {
		return Snapshot{}, fmt.Errorf("%w: snapshot %d: a packet of %d bytes", ErrFormat, rec.n, len(rec.packet))
	}
	if err := h.Serialize(wire.NewReader(rec.packet[:interp.HeaderBytes])); err != nil {
		return Snapshot{}, fmt.Errorf("%w: snapshot %d: %w", ErrFormat, rec.n, err)
	}
	s := Snapshot{N: rec.n, Key: h.BaseAge == 0, Sum: rec.sum, Packet: bytes.Clone(rec.packet)}
	switch {
	case h.Seq != interp.Seq(rec.n):
		return s, fmt.Errorf("%w: snapshot %d's packet says %d", ErrFormat, rec.n, h.Seq)
	case len(rep.Snapshots) == 0 && !s.Key:
		return s, fmt.Errorf("%w: the first snapshot, %d, is not a keyframe", ErrFormat, rec.n)
	case len(rep.Snapshots) > 0 && rec.n <= rep.Snapshots[len(rep.Snapshots)-1].N:
		return s, fmt.Errorf("%w: snapshot %d after %d", ErrFormat, rec.n, rep.Snapshots[len(rep.Snapshots)-1].N)
	}
	if s.Key {
		return s, nil
	}
	// A seek decodes from the keyframe: nothing may refer to before it.
	if oldest := rec.n - interp.Number(h.BaseAge+h.PrevAge); oldest < key {
		return s, fmt.Errorf("%w: snapshot %d is coded against %d, before its keyframe %d", ErrFormat, rec.n, oldest, key)
	}
	return s, nil
}
