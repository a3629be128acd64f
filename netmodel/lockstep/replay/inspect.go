package replay

import (
	"fmt"
	"math"
	"strings"

	"github.com/netphys/netphys/netmodel/internal/replayfile"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/wire"
)

// Inspector is an optional interface of a lockstep.Game: it lays its
// state out as numbered objects with named fields, so that a desync
// report says what differs ("cube 17: position.y") and not only when.
// A game without it still records, replays and finds the first tick that
// differs.
type Inspector interface {
	// Objects is the number of objects, at most MaxObjects.
	Objects() int
	// Inspect appends the fields of object i, 0 ≤ i < Objects(), to dst
	// and returns the object's name ("cube 17") with them: at most
	// MaxFields, the same names in the same order every time.
	Inspect(i int, dst []Field) (string, []Field)
}

// Field is one named number of an object's state: a coordinate, a
// velocity, a flag as 0 or 1. Values are compared bit for bit.
type Field struct {
	Name  string // "position.x", at most 32 bytes
	Value float64
}

// Object is the state of one object.
type Object struct {
	Name   string
	Fields []Field
}

// State is a game's state at a tick, as its Inspector shows it: what a
// party keeps of the tick a desync names, written into its replay.
type State struct {
	// Tick is the tick after which the state was taken.
	Tick lockstep.Tick
	// Note says why it was kept: "desync at tick 120: player 1 differs".
	Note    string
	Objects []Object
}

// Capture takes the state of an inspected game after tick, reusing dst's
// memory.
func Capture(in Inspector, tick lockstep.Tick, note string, dst *State) {
	dst.Tick, dst.Note = tick, note
	n := min(in.Objects(), MaxObjects)
	for len(dst.Objects) < n {
		dst.Objects = append(dst.Objects, Object{})
	}
	dst.Objects = dst.Objects[:n]
	for i := range dst.Objects {
		o := &dst.Objects[i]
		o.Name, o.Fields = in.Inspect(i, o.Fields[:0])
	}
}

// Difference is where two states first differ: the first object, in
// order, with a field whose bits differ, and its first such field.
type Difference struct {
	Object     int    // index, or -1 when the states differ in shape
	ObjectName string // "cube 17"
	Field      string // "position.y"
	A, B       float64
	Shape      string // when Object is -1: how the layouts differ
}

func (d *Difference) String() string {
	if d.Object < 0 {
		return d.Shape
	}
	return fmt.Sprintf("%s (object %d), %s: %v against %v", d.ObjectName, d.Object, d.Field, d.A, d.B)
}

// Compare returns the first difference between a and b, or nil when
// every field is bit-identical.
func Compare(a, b *State) *Difference {
	first, _, _ := CompareAll(a, b)
	return first
}

// CompareAll returns the first difference between a and b, the largest,
// and how many objects differ; nil, nil, 0 when every field is
// bit-identical. The largest is the field that differs the most among
// those of the first difference's kind (the name before its last dot:
// "position" for "position.x"), so that numbers of one unit are
// compared: in a physics world kept some ticks after it diverged, the
// first objects in order may only have been nudged through contacts,
// and the one that moved the most is where it started.
func CompareAll(a, b *State) (first, largest *Difference, objects int) {
	if len(a.Objects) != len(b.Objects) {
		d := &Difference{Object: -1, Shape: fmt.Sprintf("%d objects against %d", len(a.Objects), len(b.Objects))}
		return d, d, 1
	}
	for i := range a.Objects {
		oa, ob := &a.Objects[i], &b.Objects[i]
		if oa.Name != ob.Name || len(oa.Fields) != len(ob.Fields) {
			d := &Difference{Object: -1, Shape: fmt.Sprintf("object %d is %q with %d fields against %q with %d", i, oa.Name, len(oa.Fields), ob.Name, len(ob.Fields))}
			return d, d, objects + 1
		}
		differs := false
		for j, fa := range oa.Fields {
			fb := ob.Fields[j]
			if fa.Name != fb.Name {
				d := &Difference{Object: -1, Shape: fmt.Sprintf("%s field %d is %q against %q", oa.Name, j, fa.Name, fb.Name)}
				return d, d, objects + 1
			}
			if math.Float64bits(fa.Value) != math.Float64bits(fb.Value) {
				differs = true
				if first == nil {
					first = &Difference{Object: i, ObjectName: oa.Name, Field: fa.Name, A: fa.Value, B: fb.Value}
				}
			}
		}
		if differs {
			objects++
		}
	}
	if first == nil {
		return nil, nil, 0
	}
	kind := fieldKind(first.Field)
	most := -1.0
	for i := range a.Objects {
		for j, fa := range a.Objects[i].Fields {
			fb := b.Objects[i].Fields[j]
			if fieldKind(fa.Name) != kind || math.Float64bits(fa.Value) == math.Float64bits(fb.Value) {
				continue
			}
			gap := math.Abs(fa.Value - fb.Value)
			if math.IsNaN(gap) { // NaN against a number: the largest of all
				gap = math.Inf(1)
			}
			if gap > most {
				most = gap
				largest = &Difference{Object: i, ObjectName: a.Objects[i].Name, Field: fa.Name, A: fa.Value, B: fb.Value}
			}
		}
	}
	return first, largest, objects
}

// fieldKind is a field's name up to its last dot: "linear velocity" for
// "linear velocity.x"; the whole name when it has none.
func fieldKind(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return name
}

// Serialize writes, reads or measures a state chunk's body (after its
// kind). Field names are coded once in a table. When reading, memory
// grows with the objects and fields actually present.
func (st *State) Serialize(s wire.Stream) error {
	tick := int64(st.Tick)
	if err := wire.SerializeInt(s, &tick, 0, math.MaxInt32); err != nil {
		return err
	}
	st.Tick = lockstep.Tick(tick)
	if err := replayfile.SerializeString(s, &st.Note, 256); err != nil {
		return err
	}
	// The names table: every distinct field name, in order of first use.
	var names []string
	if s.Mode() != wire.Reading {
		seen := map[string]bool{}
		for _, o := range st.Objects {
			for _, f := range o.Fields {
				if !seen[f.Name] {
					seen[f.Name] = true
					names = append(names, f.Name)
				}
			}
		}
	}
	n := len(names)
	if err := wire.SerializeInt(s, &n, 0, maxNames); err != nil {
		return err
	}
	index := map[string]int{}
	for i := range n {
		if s.Mode() == wire.Reading {
			names = append(names, "")
		}
		if err := replayfile.SerializeString(s, &names[i], 32); err != nil {
			return err
		}
		index[names[i]] = i
	}
	objects := len(st.Objects)
	if err := wire.SerializeInt(s, &objects, 0, MaxObjects); err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		st.Objects = st.Objects[:0]
	}
	for i := range objects {
		if s.Mode() == wire.Reading {
			st.Objects = append(st.Objects, Object{})
		}
		o := &st.Objects[i]
		if err := replayfile.SerializeString(s, &o.Name, 64); err != nil {
			return err
		}
		fields := len(o.Fields)
		if err := wire.SerializeInt(s, &fields, 0, MaxFields); err != nil {
			return err
		}
		for j := range fields {
			if s.Mode() == wire.Reading {
				o.Fields = append(o.Fields, Field{})
			}
			f := &o.Fields[j]
			k := index[f.Name]
			if n == 0 {
				return fmt.Errorf("%w: a field with an empty names table", ErrFormat)
			}
			if err := wire.SerializeInt(s, &k, 0, n-1); err != nil {
				return err
			}
			f.Name = names[k]
			bits, err := s.Bits(math.Float64bits(f.Value), 64)
			if err != nil {
				return err
			}
			f.Value = math.Float64frombits(bits)
		}
	}
	return nil
}
