package replay

import (
	"fmt"
	"math"

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
	if len(a.Objects) != len(b.Objects) {
		return &Difference{Object: -1, Shape: fmt.Sprintf("%d objects against %d", len(a.Objects), len(b.Objects))}
	}
	for i := range a.Objects {
		oa, ob := &a.Objects[i], &b.Objects[i]
		if oa.Name != ob.Name || len(oa.Fields) != len(ob.Fields) {
			return &Difference{Object: -1, Shape: fmt.Sprintf("object %d is %q with %d fields against %q with %d", i, oa.Name, len(oa.Fields), ob.Name, len(ob.Fields))}
		}
		for j, fa := range oa.Fields {
			fb := ob.Fields[j]
			if fa.Name != fb.Name {
				return &Difference{Object: -1, Shape: fmt.Sprintf("%s field %d is %q against %q", oa.Name, j, fa.Name, fb.Name)}
			}
			if math.Float64bits(fa.Value) != math.Float64bits(fb.Value) {
				return &Difference{Object: i, ObjectName: oa.Name, Field: fa.Name, A: fa.Value, B: fb.Value}
			}
		}
	}
	return nil
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
	if err := serializeString(s, &st.Note, 256); err != nil {
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
		if err := serializeString(s, &names[i], 32); err != nil {
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
		if err := serializeString(s, &o.Name, 64); err != nil {
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
