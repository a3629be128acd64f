package wire

import (
	"fmt"
	"math"
)

// Integer is any integer type, including the typed integers of ticks,
// sequences and ids.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// SerializeBool codes *b as one bit.
func SerializeBool(s Stream, b *bool) error {
	var x uint64
	if *b {
		x = 1
	}
	x, err := s.Bits(x, 1)
	if err != nil {
		return err
	}
	*b = x == 1
	return nil
}

// SerializeBits codes the low n bits of *v, 1 ≤ n ≤ 64.
func SerializeBits[T Integer](s Stream, v *T, n int) error {
	if n < 1 || n > 64 {
		return fmt.Errorf("wire: %d bits: %w", n, ErrConfig)
	}
	if s.Mode() != Reading && n < 64 && uint64(*v)>>n != 0 {
		return fmt.Errorf("wire: %d does not fit in %d bits: %w", *v, n, ErrRange)
	}
	x, err := s.Bits(uint64(*v), n)
	if err != nil {
		return err
	}
	if s.Mode() == Reading {
		*v = T(x)
		if uint64(*v) != x {
			return fmt.Errorf("wire: %d bits overflow %T: %w", n, *v, ErrInvalid)
		}
	}
	return nil
}

// SerializeInt codes *v, which must lie in [lo, hi], as v-lo in the
// minimal number of bits, BitsRequired(hi-lo); a range of one value costs
// no bits. Out-of-range values are ErrRange when writing and ErrInvalid
// when reading.
func SerializeInt[T Integer](s Stream, v *T, lo, hi T) error {
	if hi < lo {
		return fmt.Errorf("wire: integer range [%d, %d]: %w", lo, hi, ErrConfig)
	}
	// Differences are taken modulo 2⁶⁴, which is exact for signed and
	// unsigned T alike once the bounds are known to hold.
	span := uint64(hi) - uint64(lo)
	n := BitsRequired(span)
	if s.Mode() != Reading && (*v < lo || *v > hi) {
		return fmt.Errorf("wire: %d outside [%d, %d]: %w", *v, lo, hi, ErrRange)
	}
	if n == 0 {
		*v = lo
		return nil
	}
	d, err := s.Bits(uint64(*v)-uint64(lo), n)
	if err != nil {
		return err
	}
	if d > span {
		return fmt.Errorf("wire: %d beyond range of %d values: %w", d, span+1, ErrInvalid)
	}
	*v = T(uint64(lo) + d)
	return nil
}

// SerializeFloat32 codes *f as its 32 raw IEEE 754 bits. NaN and ±Inf are
// rejected in both directions.
func SerializeFloat32(s Stream, f *float32) error {
	if s.Mode() != Reading && !finite32(*f) {
		return fmt.Errorf("wire: float %v: %w", *f, ErrRange)
	}
	x, err := s.Bits(uint64(math.Float32bits(*f)), 32)
	if err != nil {
		return err
	}
	*f = math.Float32frombits(uint32(x))
	if !finite32(*f) {
		return fmt.Errorf("wire: decoded float %v: %w", *f, ErrInvalid)
	}
	return nil
}

func finite32(f float32) bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }

// CheckMagic is a conventional check marker value; any 32-bit value works
// as long as both sides use the same one at the same place.
const CheckMagic uint32 = 0x6e706879 // "nphy"

// SerializeCheck aligns and codes a 32-bit marker. Reading a different
// marker is ErrCheck: sprinkled between the parts of a message while
// debugging, markers pinpoint where a writer and a reader went out of step.
func SerializeCheck(s Stream, magic uint32) error {
	if err := s.Align(); err != nil {
		return err
	}
	x, err := s.Bits(uint64(magic), 32)
	if err != nil {
		return err
	}
	if uint32(x) != magic {
		return fmt.Errorf("wire: check marker %#08x, want %#08x: %w", x, magic, ErrCheck)
	}
	return nil
}

// SerializeBytes codes a block of at most maxLen bytes: its length in
// BitsRequired(maxLen) bits, alignment, then the bytes. When reading, the
// block is appended to (*b)[:0], reusing its capacity; it grows one byte
// per byte actually present in the input, so the allocation is bounded by
// both maxLen and the input's real size, never by a length it claims.
func SerializeBytes(s Stream, b *[]byte, maxLen int) error {
	if maxLen < 0 {
		return fmt.Errorf("wire: byte block of at most %d bytes: %w", maxLen, ErrConfig)
	}
	n := len(*b)
	if err := SerializeInt(s, &n, 0, maxLen); err != nil {
		return err
	}
	if err := s.Align(); err != nil {
		return err
	}
	if s.Mode() != Reading {
		for _, c := range *b {
			if _, err := s.Bits(uint64(c), 8); err != nil {
				return err
			}
		}
		return nil
	}
	out := (*b)[:0]
	for range n {
		x, err := s.Bits(0, 8)
		if err != nil {
			*b = out
			return err
		}
		out = append(out, byte(x))
	}
	*b = out
	return nil
}
