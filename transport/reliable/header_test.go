package reliable

import (
	"bytes"
	"errors"
	"testing"
)

func TestHeaderVectors(t *testing.T) {
	hdrs, _ := loadVectors(t)
	for _, v := range hdrs {
		got := AppendHeader(nil, v.h)
		if !bytes.Equal(got, v.want) {
			t.Errorf("AppendHeader(%+v) = %x, want %x", v.h, got, v.want)
		}
		if v.h.Size() != len(v.want) {
			t.Errorf("Size(%+v) = %d, want %d", v.h, v.h.Size(), len(v.want))
		}
		h, n, err := ParseHeader(append(v.want, 0xAA, 0xBB)) // payload after the header
		if err != nil || n != len(v.want) || h != v.h {
			t.Errorf("ParseHeader(%x) = %+v, %d, %v; want %+v, %d", v.want, h, n, err, v.h, len(v.want))
		}
	}
}

func TestHeaderTruncatedAtEveryByte(t *testing.T) {
	hdrs, _ := loadVectors(t)
	for _, v := range hdrs {
		for n := range len(v.want) {
			if _, _, err := ParseHeader(v.want[:n]); !errors.Is(err, ErrTruncated) {
				t.Errorf("ParseHeader(%x) err = %v, want ErrTruncated", v.want[:n], err)
			}
		}
	}
}

func TestHeaderRejectsNonCanonical(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"fragment prefix", []byte{0x01, 0, 0, 0, 0}, ErrPrefix},
		{"bit 6 set", []byte{0x60, 0, 0, 1}, ErrNonCanonical},
		{"bit 7 set", []byte{0xA0, 0, 0, 1}, ErrNonCanonical},
		// seq=5 ack=4 written as 16 bits: the delta form is canonical.
		{"16-bit ack with small delta", []byte{0x00, 5, 0, 4, 0}, ErrNonCanonical},
		// delta 0 as 16 bits
		{"16-bit ack equal to sequence", []byte{0x00, 7, 0, 7, 0}, ErrNonCanonical},
		// ack bits byte 0 present but all ones
		{"explicit 0xff ack byte", []byte{0x22, 0, 0, 1, 0xFF}, ErrNonCanonical},
		{"explicit 0xff ack byte 3", []byte{0x30, 0, 0, 1, 0xFF}, ErrNonCanonical},
	} {
		if _, _, err := ParseHeader(tc.b); !errors.Is(err, tc.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: ParseHeader(%x) err = %v, want %v", tc.name, tc.b, err, tc.want)
		}
	}
}

func TestHeaderRoundTripWraparound(t *testing.T) {
	// Every delta around the 255/256 boundary and across 65535 -> 0.
	for _, seq := range []Sequence{0, 1, 255, 256, 32767, 32768, 65280, 65535} {
		for _, delta := range []Sequence{0, 1, 254, 255, 256, 257, 32768, 65535} {
			for _, bits := range []uint32{0, 0xFFFFFFFF, 0x00FF00FF, 0xFF00FF00, 0x80000001} {
				h := Header{Sequence: seq, Ack: seq - delta, AckBits: bits}
				b := AppendHeader(nil, h)
				got, n, err := ParseHeader(b)
				if err != nil || n != len(b) || got != h || h.Size() != len(b) {
					t.Fatalf("round trip %+v: %x -> %+v, %d, %v", h, b, got, n, err)
				}
				if wantDelta := delta <= 255; (b[0]&prefixAckDelta != 0) != wantDelta {
					t.Fatalf("%+v: delta form %v, want %v", h, !wantDelta, wantDelta)
				}
			}
		}
	}
}

func TestSequenceGreaterThan(t *testing.T) {
	for _, tc := range []struct {
		a, b Sequence
		want bool
	}{
		{1, 0, true},
		{0, 1, false},
		{0, 65535, true}, // wrapped: 0 follows 65535
		{65535, 0, false},
		{32768, 0, true}, // exactly half the circle ahead counts as newer
		{32769, 0, false},
		{0, 32769, true},
		{5, 5, false},
	} {
		if got := SequenceGreaterThan(tc.a, tc.b); got != tc.want {
			t.Errorf("SequenceGreaterThan(%d, %d) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := SequenceLessThan(tc.b, tc.a); got != tc.want {
			t.Errorf("SequenceLessThan(%d, %d) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

func FuzzParseHeader(f *testing.F) {
	hdrs, _ := loadVectors(f)
	for _, v := range hdrs {
		f.Add(v.want)
	}
	f.Add([]byte{0x00, 5, 0, 4, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := ParseHeader(b)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		// Only the canonical encoding parses, so re-encoding gives back
		// exactly the bytes read.
		if enc := AppendHeader(nil, h); !bytes.Equal(enc, b[:n]) || h.Size() != n {
			t.Fatalf("ParseHeader(%x) = %+v, %d; re-encoded %x", b, h, n, enc)
		}
	})
}
