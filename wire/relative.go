package wire

import "fmt"

// Relative (class) encodings code a value that is usually small, such as
// the gap between two changed object indices or a coordinate's change
// from a baseline, in few bits while still allowing any value.
//
// Classes is a list of bit widths. Class k holds the next 2^Classes[k]
// values after those of the classes before it; a value is coded as one
// "in this class" bit per class until its class (1 = here), then its
// offset in the class. A value beyond every class is coded after a run of
// zero bits as an integer up to the encoding's maximum:
//
//	class 0:   1 | offset (w0 bits)
//	class 1:   0 1 | offset (w1 bits)
//	...
//	beyond:    0 0 … 0 | value - first beyond (minimal bits up to max)
type Classes []uint8

// IndexClasses are the classes of the snapshot-compression article's
// relative index encoding for gaps ≥ 1: +1 in one bit, [2, 5] in 2+2,
// [6, 13] in 3+3, [14, 29] in 4+4, [30, 61] in 5+5, [62, 125] in 6+6, and
// anything larger in 6 bits plus an absolute gap.
var IndexClasses = Classes{0, 2, 3, 4, 5, 6}

// SerializeClassed codes *v ≥ first, *v ≤ last, with classes c starting at
// first. Values outside [first, last] are ErrRange (writing) or ErrInvalid
// (reading).
func SerializeClassed(s Stream, v *uint64, first, last uint64, c Classes) error {
	return SerializeClassedModel(s, v, first, last, c, nil)
}

// SerializeClassedModel is SerializeClassed with the "in this class" bit of
// class k coded under the adaptive model p[k] (SerializeModelBit), so that
// on a range coder the usual class costs a fraction of a bit; classes
// beyond len(p) code plain bits. On the bit packer it writes exactly what
// SerializeClassed writes.
func SerializeClassedModel(s Stream, v *uint64, first, last uint64, c Classes, p []Prob) error {
	if last < first {
		return fmt.Errorf("wire: classed range [%d, %d]: %w", first, last, ErrConfig)
	}
	if s.Mode() != Reading && (*v < first || *v > last) {
		return fmt.Errorf("wire: %d outside [%d, %d]: %w", *v, first, last, ErrRange)
	}
	start := first
	for k, w := range c {
		if w > 63 {
			return fmt.Errorf("wire: class of %d bits: %w", w, ErrConfig)
		}
		end := start + (uint64(1) << w) // one past the class
		if end <= start || end > last {
			// The class would reach past last: code the rest as the tail.
			break
		}
		in := *v >= start && *v < end
		if err := serializeFlag(s, p, k, &in); err != nil {
			return err
		}
		if in {
			off := *v - start
			if err := SerializeInt(s, &off, 0, end-start-1); err != nil {
				return err
			}
			*v = start + off
			return nil
		}
		start = end
	}
	return SerializeInt(s, v, start, last)
}

// serializeFlag codes *b under p[k], or as a plain bit past the models.
func serializeFlag(s Stream, p []Prob, k int, b *bool) error {
	if k < len(p) {
		return SerializeModelBit(s, &p[k], b)
	}
	return SerializeBool(s, b)
}

// SerializeIndexDelta codes the index *cur of a changed object after the
// previous one, prev (use -1 for the first), with IndexClasses; indices
// are in [0, last] and strictly increasing.
func SerializeIndexDelta(s Stream, prev int, cur *int, last int) error {
	if last < 0 || prev < -1 || prev >= last {
		return fmt.Errorf("wire: index after %d up to %d: %w", prev, last, ErrConfig)
	}
	gap := uint64(*cur - prev)
	if s.Mode() != Reading && (*cur <= prev || *cur > last) {
		return fmt.Errorf("wire: index %d after %d up to %d: %w", *cur, prev, last, ErrRange)
	}
	if err := SerializeClassed(s, &gap, 1, uint64(last-prev), IndexClasses); err != nil {
		return err
	}
	*cur = prev + int(gap)
	return nil
}

// zigzag maps 0, -1, 1, -2, … to 0, 1, 2, 3, …
func zigzag(d int64) uint64 { return uint64(d<<1) ^ uint64(d>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// SerializeRelative codes *v in [lo, hi] as its signed difference from
// base (also in [lo, hi]), zigzag-mapped and coded with classes c, so a
// value near its baseline costs a few bits. Reading validates the result
// against [lo, hi].
func SerializeRelative(s Stream, v *int64, base, lo, hi int64, c Classes) error {
	return SerializeRelativeModel(s, v, base, lo, hi, c, nil)
}

// SerializeRelativeModel is SerializeRelative with the class bits under
// the adaptive models p, as SerializeClassedModel.
func SerializeRelativeModel(s Stream, v *int64, base, lo, hi int64, c Classes, p []Prob) error {
	if hi < lo || base < lo || base > hi || hi-lo < 0 {
		return fmt.Errorf("wire: relative to %d in [%d, %d]: %w", base, lo, hi, ErrConfig)
	}
	if s.Mode() != Reading && (*v < lo || *v > hi) {
		return fmt.Errorf("wire: %d outside [%d, %d]: %w", *v, lo, hi, ErrRange)
	}
	// The largest zigzag code a difference in [lo-base, hi-base] can take.
	top := max(zigzag(lo-base), zigzag(hi-base))
	u := zigzag(*v - base)
	if err := SerializeClassedModel(s, &u, 0, top, c, p); err != nil {
		return err
	}
	r := base + unzigzag(u)
	if r < lo || r > hi {
		return fmt.Errorf("wire: relative value %d outside [%d, %d]: %w", r, lo, hi, ErrInvalid)
	}
	*v = r
	return nil
}
