package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// FuzzMessage decodes arbitrary bytes as a message. A decode either fails
// with one of the package's errors or yields a message that re-encodes to
// the same bits and decodes to itself.
func FuzzMessage(f *testing.F) {
	for _, m := range sampleMessages() {
		f.Add(writeMessage(f, m), m.Prev)
	}
	f.Fuzz(func(t *testing.T, b []byte, prev int) {
		if prev < -1 || prev >= 899 {
			return
		}
		got := message{Prev: prev}
		r := NewReader(b)
		if err := got.Serialize(r); err != nil {
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrCheck) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		again := writeMessage(t, got)
		n := r.BitsRead()
		if !equalBitPrefix(again, b, n) || len(again) != (n+7)/8 {
			t.Fatalf("re-encoding differs in the first %d bits:\n% x\n% x", n, again, b)
		}
		var back message
		back.Prev = prev
		if err := back.Serialize(NewReader(again)); err != nil || !equalMessages(back, got) {
			t.Fatalf("re-decoding: %v", err)
		}
	})
}

// equalBitPrefix reports whether a and b agree in their first n bits.
func equalBitPrefix(a, b []byte, n int) bool {
	full := n / 8
	if len(a) < (n+7)/8 || len(b) < (n+7)/8 || !bytes.Equal(a[:full], b[:full]) {
		return false
	}
	if r := n % 8; r != 0 {
		mask := byte(1)<<r - 1
		return a[full]&mask == b[full]&mask
	}
	return true
}

// FuzzQuat checks the smallest-three invariants for any input quaternion:
// decode(encode(q)) == quantize(q), -q gives the same bits, quantizing is
// idempotent.
func FuzzQuat(f *testing.F) {
	f.Add(0.0, 0.0, 0.0, 1.0, 9)
	f.Add(0.5, 0.5, 0.5, 0.5, 15)
	f.Add(math.Sqrt(0.5), 0.0, 0.0, -math.Sqrt(0.5), 2)
	f.Add(0.1, -0.7, 0.7, 0.1, 30)
	f.Fuzz(func(t *testing.T, x, y, z, w float64, b int) {
		q := vecmath.Quat{X: x, Y: y, Z: z, W: w}
		st, err := QuantizeQuat(q, b)
		if err != nil {
			if !errors.Is(err, ErrRange) && !errors.Is(err, ErrConfig) {
				t.Fatal(err)
			}
			return
		}
		buf := NewWriter(make([]byte, 16))
		if err := SerializeQuat(buf, &q, b); err != nil {
			t.Fatal(err)
		}
		var got vecmath.Quat
		if err := SerializeQuat(NewReader(buf.Bytes()), &got, b); err != nil {
			t.Fatal(err)
		}
		if got != st.Quat(b) {
			t.Fatalf("decoded %+v, quantized %+v", got, st.Quat(b))
		}
		if neg, err := QuantizeQuat(q.Neg(), b); err != nil || neg != st {
			t.Fatalf("-q: %+v vs %+v (%v)", neg, st, err)
		}
		if again, err := QuantizeQuat(got, b); err != nil || again != st {
			t.Fatalf("not idempotent: %+v vs %+v (%v)", again, st, err)
		}
	})
}

// FuzzFloat checks decode(encode(v)) == Quantize(v) and idempotence for
// any range and value.
func FuzzFloat(f *testing.F) {
	f.Add(-10.0, 10.0, 1.0/256, 3.3)
	f.Add(-256.0, 256.0, 1.0/512, 256.0)
	f.Add(0.0, 1.0, 0.1, 0.05)
	f.Fuzz(func(t *testing.T, lo, hi, res, v float64) {
		r := FloatRange{Min: lo, Max: hi, Res: res}
		q, err := r.Quantize(v)
		if err != nil {
			return
		}
		w := NewWriter(make([]byte, 16))
		if err := SerializeFloat(w, &v, r); err != nil {
			t.Fatal(err)
		}
		var got float64
		if err := SerializeFloat(NewReader(w.Bytes()), &got, r); err != nil || got != q {
			t.Fatalf("decoded %v (%v), quantized %v", got, err, q)
		}
		if qq, err := r.Quantize(q); err != nil || qq != q {
			t.Fatalf("Quantize(%v) = %v (%v)", q, qq, err)
		}
	})
}

// FuzzRelative decodes arbitrary bytes as a relative value and checks that
// a successful decode re-encodes to the same bits.
func FuzzRelative(f *testing.F) {
	seed := func(v, base, lo, hi int64) []byte {
		w := NewWriter(make([]byte, 16))
		if err := SerializeRelative(w, &v, base, lo, hi, testRel); err != nil {
			f.Fatal(err)
		}
		return bytes.Clone(w.Bytes())
	}
	f.Add(seed(5, 3, 0, 100), int64(3), int64(0), int64(100))
	f.Add(seed(-900, 900, -1000, 1000), int64(900), int64(-1000), int64(1000))
	f.Add(seed(1<<30, 0, 0, 1<<40), int64(0), int64(0), int64(1<<40))
	f.Fuzz(func(t *testing.T, b []byte, base, lo, hi int64) {
		if hi < lo || base < lo || base > hi || hi-lo < 0 || hi-lo > 1<<50 {
			return
		}
		var v int64
		r := NewReader(b)
		if err := SerializeRelative(r, &v, base, lo, hi, testRel); err != nil {
			return
		}
		w := NewWriter(make([]byte, 16))
		if err := SerializeRelative(w, &v, base, lo, hi, testRel); err != nil {
			t.Fatal(err)
		}
		if w.BitsWritten() != r.BitsRead() || !equalBitPrefix(w.Bytes(), b, r.BitsRead()) {
			t.Fatalf("re-encoding %d differs", v)
		}
	})
}

// FuzzRangeDecoder decodes arbitrary bytes as a range-coded message:
// never a panic, and whatever decodes re-encodes and decodes to itself.
func FuzzRangeDecoder(f *testing.F) {
	f.Add(encodeRCSeed(f, 3, 0.1), 3)
	f.Add(encodeRCSeed(f, 40, 0.5), 40)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		got, err := decodeRC(b, n)
		if err != nil {
			return
		}
		again := encodeRC(t, got)
		if !bytes.Equal(again, b) {
			t.Fatalf("decoded input is not the canonical encoding:\n% x\n% x", b, again)
		}
	})
}

func encodeRCSeed(f *testing.F, n int, p float64) []byte {
	msg := rcMessage{Payload: n}
	for i := range n {
		msg.Bits = append(msg.Bits, float64(i%10)/10 < p)
		msg.Raw = append(msg.Raw, uint64(i*37))
	}
	return encodeRC(f, msg)
}

// FuzzBodyState decodes arbitrary bytes as a BodyState; a decoded state
// is already quantized and re-encodes to the same bits.
func FuzzBodyState(f *testing.F) {
	spec := DefaultStateSpec()
	for _, c := range []BodyState{
		{Position: vecmath.V3(1, 2, 3), Rotation: vecmath.QuatIdentity, AtRest: true},
		{Position: vecmath.V3(-256, -16, -256), Rotation: vecmath.Quat{X: 0.5, Y: 0.5, Z: 0.5, W: 0.5},
			LinearVelocity: vecmath.V3(-64, 63, 0), AngularVelocity: vecmath.V3(31, -32, 0.1)},
	} {
		w := NewWriter(make([]byte, 64))
		if err := c.Serialize(w, spec); err != nil {
			f.Fatal(err)
		}
		f.Add(bytes.Clone(w.Bytes()))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var c BodyState
		r := NewReader(b)
		if err := c.Serialize(r, spec); err != nil {
			return
		}
		if q, err := c.Quantize(spec); err != nil || q != c {
			t.Fatalf("decoded state is not quantized: %+v vs %+v (%v)", c, q, err)
		}
		w := NewWriter(make([]byte, 64))
		if err := c.Serialize(w, spec); err != nil || !equalBitPrefix(w.Bytes(), b, r.BitsRead()) {
			t.Fatalf("re-encoding differs (%v)", err)
		}
	})
}

// FuzzBytes decodes a byte block under a caller bound and checks that the
// result never exceeds it.
func FuzzBytes(f *testing.F) {
	w := NewWriter(make([]byte, 64))
	blk := []byte("snapshot")
	if err := SerializeBytes(w, &blk, 40); err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.Clone(w.Bytes()), 40)
	f.Add(binary.LittleEndian.AppendUint32(nil, 0xFFFFFFFF), 1<<20)
	f.Fuzz(func(t *testing.T, b []byte, maxLen int) {
		if maxLen < 0 || maxLen > 1<<20 {
			return
		}
		var out []byte
		if err := SerializeBytes(NewReader(b), &out, maxLen); err != nil {
			return
		}
		if len(out) > maxLen || len(out) > len(b) {
			t.Fatalf("decoded %d bytes from %d under %d", len(out), len(b), maxLen)
		}
	})
}
