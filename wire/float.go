package wire

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/vecmath"
)

// FloatRange quantizes a float64 in [Min, Max] to one of Steps()+1 evenly
// spaced values Min + i·Res, i = 0 … Steps(). The quantized value is the
// one nearest to the input (ties round up). Res is in the unit of the
// value (metres for a position); a power of two (1/512, 1/4096) makes
// every quantized value exact in binary.
type FloatRange struct {
	Min, Max float64
	Res      float64 // distance between neighbouring quantized values, > 0
}

// maxSteps keeps quantized indices exact in float64 and in 62 bits.
const maxSteps = 1 << 52

// Steps returns the largest quantized index, round((Max-Min)/Res), or 0
// for an invalid range.
func (r FloatRange) Steps() uint64 {
	if !r.valid() {
		return 0
	}
	return uint64(math.Floor((r.Max-r.Min)/r.Res + 0.5))
}

// Bits returns the bit count of one quantized value.
func (r FloatRange) Bits() int { return BitsRequired(r.Steps()) }

func (r FloatRange) valid() bool {
	span := (r.Max - r.Min) / r.Res
	return r.Res > 0 && r.Max >= r.Min && span < maxSteps && !math.IsNaN(span) &&
		!math.IsInf(r.Min, 0)
}

// Value returns the value of quantized index i.
func (r FloatRange) Value(i uint64) float64 { return r.Min + float64(float64(i)*r.Res) }

// Index returns the quantized index of v. A v outside [Min, Max] (or past
// the top quantized value, which rounding may put an ulp above Max), NaN
// or ±Inf is ErrRange: quantization never clamps.
func (r FloatRange) Index(v float64) (uint64, error) {
	if !r.valid() {
		return 0, fmt.Errorf("wire: float range %+v: %w", r, ErrConfig)
	}
	steps := r.Steps()
	if !r.holds(v, steps) {
		return 0, &rangeError{v: v, min: r.Min, max: r.Max, axis: -1}
	}
	return min(uint64(math.Floor((v-r.Min)/r.Res+0.5)), steps), nil
}

// Contains reports whether Index quantizes v without an error: a sender
// asking whether a value fits pays for no error.
func (r FloatRange) Contains(v float64) bool { return r.valid() && r.holds(v, r.Steps()) }

// holds reports whether v is within the valid range r, whose largest
// index is steps.
func (r FloatRange) holds(v float64, steps uint64) bool {
	return v >= r.Min && v <= math.Max(r.Max, r.Value(steps))
}

// rangeError is the ErrRange of a value outside a FloatRange (axis -1) or
// an axis of Bounds. It is one allocation and its message is formatted
// only when read: senders that try a value against a range and take
// another way when it does not fit (statesync's hands) meet it every
// packet, and fmt.Errorf cost them seven allocations a miss.
type rangeError struct {
	v, min, max float64
	axis        int
}

func (e *rangeError) Error() string {
	msg := fmt.Sprintf("wire: %v outside [%v, %v]: %v", e.v, e.min, e.max, ErrRange)
	if e.axis >= 0 {
		msg = fmt.Sprintf("wire: axis %d: %s", e.axis, msg)
	}
	return msg
}

func (e *rangeError) Unwrap() error { return ErrRange }

// Quantize returns the value the receiver decodes for v.
func (r FloatRange) Quantize(v float64) (float64, error) {
	i, err := r.Index(v)
	if err != nil {
		return 0, err
	}
	return r.Value(i), nil
}

// SerializeFloat codes *v quantized by r in r.Bits() bits. Reading stores
// the quantized value; writing leaves *v untouched (use r.Quantize to get
// what the receiver will see).
func SerializeFloat(s Stream, v *float64, r FloatRange) error {
	var i uint64
	if s.Mode() != Reading {
		var err error
		if i, err = r.Index(*v); err != nil {
			return err
		}
	} else if !r.valid() {
		return fmt.Errorf("wire: float range %+v: %w", r, ErrConfig)
	}
	if err := SerializeInt(s, &i, 0, r.Steps()); err != nil {
		return err
	}
	if s.Mode() == Reading {
		*v = r.Value(i)
	}
	return nil
}

// Bounds quantizes a Vec3 inside the box [Min, Max] at Res per axis.
type Bounds struct {
	Min, Max vecmath.Vec3
	Res      float64 // in the vector's unit, e.g. 1.0/512 metres
}

// Axis returns the FloatRange of axis i (0 = X, 1 = Y, 2 = Z).
func (b Bounds) Axis(i int) FloatRange {
	return FloatRange{Min: b.Min.Comp(i), Max: b.Max.Comp(i), Res: b.Res}
}

// Bits returns the bit count of one quantized vector.
func (b Bounds) Bits() int { return b.Axis(0).Bits() + b.Axis(1).Bits() + b.Axis(2).Bits() }

// Clamp returns v moved inside the bounds, axis by axis. Writing rejects
// out-of-range values; a caller that would rather send a body at the edge
// than not at all clamps first, on purpose. NaN components stay NaN, so
// they are still rejected.
func (b Bounds) Clamp(v vecmath.Vec3) vecmath.Vec3 { return v.Max(b.Min).Min(b.Max) }

// Index returns the quantized indices of v.
func (b Bounds) Index(v vecmath.Vec3) ([3]uint64, error) {
	var q [3]uint64
	for i := range q {
		var err error
		if q[i], err = b.Axis(i).Index(v.Comp(i)); err != nil {
			if re, ok := err.(*rangeError); ok {
				re.axis = i
				return q, re
			}
			return q, fmt.Errorf("wire: axis %d: %w", i, err)
		}
	}
	return q, nil
}

// Contains reports whether Index quantizes v without an error.
func (b Bounds) Contains(v vecmath.Vec3) bool {
	return b.Axis(0).Contains(v.X) && b.Axis(1).Contains(v.Y) && b.Axis(2).Contains(v.Z)
}

// Value returns the vector of quantized indices q.
func (b Bounds) Value(q [3]uint64) vecmath.Vec3 {
	return vecmath.Vec3{X: b.Axis(0).Value(q[0]), Y: b.Axis(1).Value(q[1]), Z: b.Axis(2).Value(q[2])}
}

// Quantize returns the vector the receiver decodes for v.
func (b Bounds) Quantize(v vecmath.Vec3) (vecmath.Vec3, error) {
	q, err := b.Index(v)
	if err != nil {
		return vecmath.Vec3{}, err
	}
	return b.Value(q), nil
}

// SerializeVec3 codes *v quantized within b, axis by axis.
func SerializeVec3(s Stream, v *vecmath.Vec3, b Bounds) error {
	c := [3]float64{v.X, v.Y, v.Z}
	for i := range c {
		if err := SerializeFloat(s, &c[i], b.Axis(i)); err != nil {
			return fmt.Errorf("wire: axis %d: %w", i, err)
		}
	}
	if s.Mode() == Reading {
		*v = vecmath.Vec3{X: c[0], Y: c[1], Z: c[2]}
	}
	return nil
}
