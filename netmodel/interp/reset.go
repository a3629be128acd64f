package interp

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/wire"
)

// Resets: an object that jumps (a teleport, a respawn, a puck re-served
// to the centre) must not be interpolated through the world from where
// it was to where it lands. A game that moves objects that way says so
// (Resetter); the server remembers the tick of each object's last reset
// and every packet carries, in a section after the header, the resets
// after its Base (all those of the last Ring snapshots when it has no
// Base). The receiver copies the Base's reset ticks and applies the
// section, so it knows each snapshot's last reset tick of every object
// even when the packet that first carried a reset was lost. Between two
// snapshots a and b, an object whose last reset in b is after a is drawn
// as in a until the reset's tick and as in b from it: no tween, no
// Hermite tangent, no extrapolation across it.

// Resetter is the capability of a Game whose objects can jump.
type Resetter interface {
	// Resets marks in dst (Objects() long, all false on the call) the
	// objects the last Step moved discontinuously.
	Resets(dst []bool)
}

// Reset is one entry of a ResetSection: object Object's last reset was
// Age ticks before the packet's snapshot (0: in its own tick).
type Reset struct {
	Object int
	Age    int
}

// ResetSection follows the header of a packet whose Header.Resets is
// set, aligned to a byte; the body follows it.
//
//	+-------------+-------------------------------------------+---------+
//	| count (≥ 1) | count × (object, ascending | age in ticks)| padding |
//	+-------------+-------------------------------------------+---------+
//
// The count is coded in [1, objects], each object in (previous, objects)
// and each age in [0, maxAge], so a section is canonical and bounded by
// the scene's object count.
type ResetSection struct {
	Resets []Reset
}

// Serialize writes, reads or measures the section for a scene of objects
// objects, ages at most maxAge ticks. Reading reuses Resets' storage.
func (r *ResetSection) Serialize(s wire.Stream, objects, maxAge int) error {
	n := len(r.Resets)
	if err := wire.SerializeInt(s, &n, 1, objects); err != nil {
		return fmt.Errorf("interp: reset count: %w", err)
	}
	if s.Mode() == wire.Reading {
		r.Resets = r.Resets[:0]
	}
	prev := -1
	for k := range n {
		var e Reset
		if s.Mode() != wire.Reading {
			e = r.Resets[k]
		}
		if prev+1 > objects-1 {
			return fmt.Errorf("%w: reset entries past the last object", ErrHeader)
		}
		if err := wire.SerializeInt(s, &e.Object, prev+1, objects-1); err != nil {
			return fmt.Errorf("interp: reset object: %w", err)
		}
		if err := wire.SerializeInt(s, &e.Age, 0, maxAge); err != nil {
			return fmt.Errorf("interp: reset age: %w", err)
		}
		if s.Mode() == wire.Reading {
			r.Resets = append(r.Resets, e)
		}
		prev = e.Object
	}
	return s.Align()
}

// noReset is the reset tick of an object with none in range.
const noReset = math.MinInt64

// resetLog is the sender's record of the objects reset in the last Ring
// snapshots: one entry per object (its last reset), ascending by object.
type resetLog struct {
	entries []resetEntry
}

type resetEntry struct {
	object int
	tick   int64
}

// add records that object reset at tick.
func (l *resetLog) add(object int, tick int64) {
	for k := range l.entries {
		switch e := &l.entries[k]; {
		case e.object == object:
			e.tick = max(e.tick, tick)
			return
		case e.object > object:
			l.entries = append(l.entries, resetEntry{})
			copy(l.entries[k+1:], l.entries[k:])
			l.entries[k] = resetEntry{object, tick}
			return
		}
	}
	l.entries = append(l.entries, resetEntry{object, tick})
}

// prune forgets resets at or before tick.
func (l *resetLog) prune(tick int64) {
	kept := l.entries[:0]
	for _, e := range l.entries {
		if e.tick > tick {
			kept = append(kept, e)
		}
	}
	l.entries = kept
}

// since fills sec with the resets after tick, as ages before now.
func (l *resetLog) since(sec *ResetSection, tick, now int64) {
	sec.Resets = sec.Resets[:0]
	for _, e := range l.entries {
		if e.tick > tick && e.tick <= now {
			sec.Resets = append(sec.Resets, Reset{Object: e.object, Age: int(now - e.tick)})
		}
	}
}
