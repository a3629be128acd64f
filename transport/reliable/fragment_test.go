package reliable

import (
	"bytes"
	"errors"
	"testing"
)

// testPayload returns n bytes counting up from 0, wrapping at 256: the
// payload the reference used for its TX vectors.
func testPayload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// sendFragments returns the fragment datagrams of one n-byte packet, as
// a fresh default endpoint sends it (sequence 0).
func sendFragments(t testing.TB, n int) [][]byte {
	t.Helper()
	e, err := NewEndpoint(DefaultConfig(), t0)
	if err != nil {
		t.Fatal(err)
	}
	_, dgs, err := e.SendPacket(t0, testPayload(n))
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]byte, len(dgs))
	for i, d := range dgs {
		out[i] = bytes.Clone(d)
	}
	return out
}

func TestFragmentRoundTrip(t *testing.T) {
	dgs := sendFragments(t, 3000)
	if len(dgs) != 3 {
		t.Fatalf("3000 bytes sent as %d datagrams, want 3 fragments", len(dgs))
	}
	var joined []byte
	for i, d := range dgs {
		f, err := ParseFragment(d, 16, 1024)
		if err != nil {
			t.Fatalf("fragment %d: %v", i, err)
		}
		if f.ID != i || f.Count != 3 || f.Sequence != 0 {
			t.Fatalf("fragment %d parsed as %+v", i, f)
		}
		if enc := AppendFragment(nil, f); !bytes.Equal(enc, d) {
			t.Fatalf("fragment %d re-encoded %x, want %x", i, enc, d)
		}
		joined = append(joined, f.Payload...)
	}
	if !bytes.Equal(joined, testPayload(3000)) {
		t.Fatal("fragment payloads do not join to the packet")
	}
}

func TestFragmentTruncatedAtEveryByte(t *testing.T) {
	dgs := sendFragments(t, 3000)
	first := dgs[0]
	// Fragment 0 cut inside its headers is truncated; cut inside its
	// payload it is a non-last fragment of the wrong size.
	for n := range len(first) {
		_, err := ParseFragment(first[:n], 16, 1024)
		if err == nil || !errors.Is(err, ErrInvalid) {
			t.Fatalf("fragment 0 cut at %d: err = %v", n, err)
		}
		if n < FragmentHeaderSize+MinHeaderSize && !errors.Is(err, ErrTruncated) {
			t.Fatalf("fragment 0 cut at %d: err = %v, want ErrTruncated", n, err)
		}
	}
	for n := range FragmentHeaderSize {
		if _, err := ParseFragment(dgs[2][:n], 16, 1024); !errors.Is(err, ErrTruncated) {
			t.Fatalf("last fragment cut at %d: err = %v, want ErrTruncated", n, err)
		}
	}
}

func TestFragmentRejectsMalicious(t *testing.T) {
	dgs := sendFragments(t, 3000)
	mod := func(i int, f func(b []byte) []byte) []byte { return f(bytes.Clone(dgs[i])) }
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"count above receiver's limit", mod(1, func(b []byte) []byte { b[4] = 255; return b }), ErrFragmentCount},
		{"id equal to count", mod(1, func(b []byte) []byte { b[3] = 3; return b }), ErrFragmentID},
		{"id above count", mod(1, func(b []byte) []byte { b[3] = 200; return b }), ErrFragmentID},
		{"short middle fragment", mod(1, func(b []byte) []byte { return b[:len(b)-1] }), ErrFragmentSize},
		{"long last fragment", mod(2, func(b []byte) []byte { return append(b, make([]byte, 100)...) }), ErrFragmentSize},
		{"empty last fragment", mod(2, func(b []byte) []byte { return b[:FragmentHeaderSize] }), ErrFragmentSize},
		{"header sequence differs", mod(0, func(b []byte) []byte { b[6] ^= 1; return b }), ErrFragmentSeq},
		{"non-canonical header", mod(0, func(b []byte) []byte { b[5] |= 0x40; return b }), ErrNonCanonical},
		{"wrong prefix", mod(1, func(b []byte) []byte { b[0] = 3; return b }), ErrPrefix},
	} {
		if _, err := ParseFragment(tc.b, 16, 1024); !errors.Is(err, tc.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func FuzzParseFragment(f *testing.F) {
	addDatagramSeeds(f)
	for _, d := range sendFragments(f, 1025) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		const maxFrags, size = 16, 1024
		fr, err := ParseFragment(b, maxFrags, size)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if fr.ID < 0 || fr.ID >= fr.Count || fr.Count > maxFrags || len(fr.Payload) == 0 || len(fr.Payload) > size {
			t.Fatalf("accepted out-of-bounds fragment %+v", fr)
		}
		if enc := AppendFragment(nil, fr); !bytes.Equal(enc, b) {
			t.Fatalf("ParseFragment(%x) re-encoded %x", b, enc)
		}
	})
}

// addDatagramSeeds seeds a fuzz target with the complete datagrams of the
// reference vectors and the fragments of a 3000-byte packet.
func addDatagramSeeds(f *testing.F) {
	_, txs := loadVectors(f)
	for _, v := range txs {
		if v.complete {
			f.Add(v.prefix)
		}
	}
	for _, d := range sendFragments(f, 3000) {
		f.Add(d)
	}
}
