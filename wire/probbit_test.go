package wire

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// probBits codes bits under a model kept outside the stream, loaded into
// SerializeProbBit's p and updated by hand: what an adaptive model of
// the caller's own does (wire/snapshot's bitModel).
func probBits(s Stream, bits []bool, prob func(Stream, Prob, *bool) error) error {
	model := ProbInit
	for i := range bits {
		if err := prob(s, model, &bits[i]); err != nil {
			return err
		}
		if bits[i] {
			model -= model >> probShift
		} else {
			model += (probOne - model) >> probShift
		}
	}
	return nil
}

// viaModelBit is SerializeProbBit written with SerializeModelBit: the
// reference it must code exactly as.
func viaModelBit(s Stream, p Prob, bit *bool) error { return SerializeModelBit(s, &p, bit) }

// TestSerializeProbBitCodesAsModelBit: on the range coder and on the bit
// packer, bits coded with SerializeProbBit are the same bytes as with
// SerializeModelBit under the same probabilities, and read back.
func TestSerializeProbBitCodesAsModelBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	bits := make([]bool, 500)
	for i := range bits {
		bits[i] = rng.Float64() < 0.2
	}
	for _, kind := range []string{"range", "bits"} {
		var got, want []byte
		for _, f := range []func(Stream, Prob, *bool) error{SerializeProbBit, viaModelBit} {
			buf := make([]byte, 200)
			var n int
			if kind == "range" {
				e := NewRangeEncoder(buf)
				if err := probBits(e, bits, f); err != nil {
					t.Fatal(err)
				}
				var err error
				if n, err = e.Finish(); err != nil {
					t.Fatal(err)
				}
			} else {
				w := NewWriter(buf)
				if err := probBits(w, bits, f); err != nil {
					t.Fatal(err)
				}
				n = len(w.Bytes())
			}
			if got == nil {
				got = buf[:n]
			} else {
				want = buf[:n]
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: SerializeProbBit wrote %x, SerializeModelBit %x", kind, got, want)
		}
		read := make([]bool, len(bits))
		var s Stream = NewReader(got)
		if kind == "range" {
			s = NewRangeDecoder(got)
		}
		if err := probBits(s, read, SerializeProbBit); err != nil {
			t.Fatal(err)
		}
		for i := range bits {
			if read[i] != bits[i] {
				t.Fatalf("%s: bit %d read %v, wrote %v", kind, i, read[i], bits[i])
			}
		}
		if kind == "range" && len(got) >= len(bits)/8 {
			t.Errorf("range: %d bytes for %d bits at 20 %%: the probabilities were not used", len(got), len(bits))
		}
	}
}

// TestSerializeProbBitDoesNotAllocate on the range coder, either way.
func TestSerializeProbBitDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 64)
	e := NewRangeEncoder(buf)
	bit := true
	if a := testing.AllocsPerRun(100, func() { _ = SerializeProbBit(e, ProbInit, &bit) }); a != 0 {
		t.Errorf("encoding: %v allocations per bit", a)
	}
	d := NewRangeDecoder(buf)
	if a := testing.AllocsPerRun(100, func() { _ = SerializeProbBit(d, ProbInit, &bit) }); a != 0 {
		t.Errorf("decoding: %v allocations per bit", a)
	}
}
