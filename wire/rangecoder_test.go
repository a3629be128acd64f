package wire

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// rcMessage is a mixed sequence of model bits and raw bits, coded
// through the Stream interfaces.
type rcMessage struct {
	Bits    []bool
	Raw     []uint64 // 13 bits each
	Payload int      // 0–1000 via SerializeInt on the same stream
}

type rcModels struct {
	bit [4]Prob
}

func newRCModels() *rcModels {
	m := &rcModels{}
	ResetProbs(m.bit[:])
	return m
}

func (msg *rcMessage) Serialize(s Stream) error {
	m := newRCModels()
	prev := false
	for i := range msg.Bits {
		ctx := 0
		if prev {
			ctx = 1
		}
		if err := SerializeModelBit(s, &m.bit[ctx], &msg.Bits[i]); err != nil {
			return err
		}
		prev = msg.Bits[i]
	}
	for i := range msg.Raw {
		if err := SerializeBits(s, &msg.Raw[i], 13); err != nil {
			return err
		}
	}
	return SerializeInt(s, &msg.Payload, 0, 1000)
}

func randomRCMessage(rng *rand.Rand, n int, p float64) rcMessage {
	msg := rcMessage{Payload: rng.IntN(1001)}
	for range n {
		msg.Bits = append(msg.Bits, rng.Float64() < p)
		msg.Raw = append(msg.Raw, rng.Uint64N(1<<13))
	}
	return msg
}

// encodeRC range-codes msg and checks the measurer agrees.
func encodeRC(t testing.TB, msg rcMessage) []byte {
	t.Helper()
	e := NewRangeEncoder(make([]byte, 1<<16))
	if err := msg.Serialize(e); err != nil {
		t.Fatal(err)
	}
	n, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	m := NewRangeMeasurer()
	if err := msg.Serialize(m); err != nil {
		t.Fatal(err)
	}
	if mn, _ := m.Finish(); mn != n {
		t.Fatalf("measured %d bytes, wrote %d", mn, n)
	}
	return e.buf[:n]
}

func decodeRC(b []byte, n int) (rcMessage, error) {
	msg := rcMessage{
		Bits: make([]bool, n), Raw: make([]uint64, n),
	}
	d := NewRangeDecoder(b)
	if err := msg.Serialize(d); err != nil {
		return msg, err
	}
	return msg, d.Finish()
}

func TestRangeCoderRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 2, 10, 100, 3000} {
		for _, p := range []float64{0, 0.02, 0.5, 0.97, 1} {
			msg := randomRCMessage(rng, n, p)
			b := encodeRC(t, msg)
			got, err := decodeRC(b, n)
			if err != nil {
				t.Fatalf("n %d p %v: %v", n, p, err)
			}
			if !equalRC(got, msg) {
				t.Fatalf("n %d p %v: decoded message differs", n, p)
			}
		}
	}
}

func equalRC(a, b rcMessage) bool {
	if a.Payload != b.Payload || len(a.Bits) != len(b.Bits) {
		return false
	}
	for i := range a.Bits {
		if a.Bits[i] != b.Bits[i] || a.Raw[i] != b.Raw[i] {
			return false
		}
	}
	return true
}

// TestRangeCoderCompresses checks that skewed bits cost close to their
// entropy: 10000 bits at P(1) = 0.02 carry 1414 bits of information. The
// fast-adapting models pay about 15 % on such a long stationary source.
func TestRangeCoderCompresses(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var p [2]Prob
	ResetProbs(p[:])
	m := NewRangeMeasurer()
	for range 10000 {
		b := rng.Float64() < 0.02
		if _, err := m.ModelBit(&p[0], b); err != nil {
			t.Fatal(err)
		}
	}
	n, _ := m.Finish()
	entropy := 10000 * -(0.02*math.Log2(0.02) + 0.98*math.Log2(0.98)) / 8
	if float64(n) > entropy*1.2 {
		t.Errorf("%d bytes for %.0f bytes of entropy", n, entropy)
	}
	if e := NewRangeMeasurer(); true {
		if n, _ := e.Finish(); n != 0 {
			t.Errorf("empty message: %d bytes, want 0", n)
		}
	}
}

func TestRangeCoderTruncatedAndCorrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	msg := randomRCMessage(rng, 200, 0.1)
	b := encodeRC(t, msg)
	for n := range len(b) {
		// A truncated input either fails or is the complete encoding of
		// another message.
		got, err := decodeRC(b[:n], 200)
		if err == nil && !bytes.Equal(encodeRC(t, got), b[:n]) {
			t.Errorf("cut to %d of %d bytes decoded to a message that encodes differently", n, len(b))
		}
		if err == nil && equalRC(got, msg) {
			t.Errorf("cut to %d of %d bytes decoded to the original message", n, len(b))
		}
	}
	if _, err := decodeRC(append(b, 1, 2, 3, 4, 5), 200); !errors.Is(err, ErrInvalid) {
		t.Errorf("trailing bytes: err = %v, want ErrInvalid", err)
	}
	for i := range 300 {
		c := append([]byte(nil), b...)
		c[rng.IntN(len(c))] ^= byte(1 + i%255)
		// An error, or garbage that is the canonical encoding of itself.
		if got, err := decodeRC(c, 200); err == nil && !bytes.Equal(encodeRC(t, got), c) {
			t.Errorf("corrupt input decoded to a message that encodes differently")
		}
	}
}

func TestRangeEncoderOverflow(t *testing.T) {
	msg := randomRCMessage(rand.New(rand.NewPCG(1, 1)), 100, 0.5)
	full := encodeRC(t, msg)
	for n := range len(full) {
		e := NewRangeEncoder(make([]byte, n))
		err := msg.Serialize(e)
		if err == nil {
			_, err = e.Finish()
		}
		if !errors.Is(err, ErrOverflow) {
			t.Fatalf("buffer of %d of %d bytes: err = %v, want ErrOverflow", n, len(full), err)
		}
	}
}

// TestModelBitsOnBitPacker runs the model-coded message through the bit
// packer: one bit per model bit, same values back.
func TestModelBitsOnBitPacker(t *testing.T) {
	msg := randomRCMessage(rand.New(rand.NewPCG(2, 2)), 50, 0.3)
	w := NewWriter(make([]byte, 4096))
	if err := msg.Serialize(w); err != nil {
		t.Fatal(err)
	}
	got := rcMessage{Bits: make([]bool, 50), Raw: make([]uint64, 50)}
	if err := got.Serialize(NewReader(w.Bytes())); err != nil || !equalRC(got, msg) {
		t.Fatalf("bit-packed model message: %v", err)
	}
}

// TestRangeEncoderSize checks that Size predicts Finish exactly at every
// point of a message and does not disturb the encoding.
func TestRangeEncoderSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	var p [2]Prob
	ResetProbs(p[:])
	buf := make([]byte, 4096)
	e := NewRangeEncoder(buf)
	var bits []bool
	for i := range 3000 {
		if i%97 == 0 {
			full := NewRangeEncoder(make([]byte, 4096))
			var q [2]Prob
			ResetProbs(q[:])
			for _, b := range bits {
				full.ModelBit(&q[0], b)
			}
			want, _ := full.Finish()
			if got := e.Size(); got != want {
				t.Fatalf("after %d bits: Size %d, Finish %d", len(bits), got, want)
			}
		}
		b := rng.IntN(8) == 0
		bits = append(bits, b)
		if _, err := e.ModelBit(&p[0], b); err != nil {
			t.Fatal(err)
		}
	}
	n, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	d := NewRangeDecoder(buf[:n])
	ResetProbs(p[:])
	for i, want := range bits {
		if got, err := d.ModelBit(&p[0], false); err != nil || got != want {
			t.Fatalf("bit %d: %v (%v), want %v", i, got, err, want)
		}
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
}

// TestProbZeroAndOutOfRange checks that a zero-value model is ProbInit and
// that hand-set extremes are clamped instead of stalling the coder.
func TestProbZeroAndOutOfRange(t *testing.T) {
	for _, start := range []Prob{0, 1, ProbInit, 4095, 65535} {
		p, q := start, start
		e := NewRangeEncoder(make([]byte, 64))
		bits := []bool{true, false, true, true, false}
		for _, b := range bits {
			if _, err := e.ModelBit(&p, b); err != nil {
				t.Fatal(err)
			}
		}
		n, err := e.Finish()
		if err != nil {
			t.Fatal(err)
		}
		d := NewRangeDecoder(e.buf[:n])
		for i, want := range bits {
			if got, err := d.ModelBit(&q, false); err != nil || got != want {
				t.Fatalf("start %d bit %d: %v (%v)", start, i, got, err)
			}
		}
	}
	var zero, init Prob = 0, ProbInit
	a, b := NewRangeMeasurer(), NewRangeMeasurer()
	for range 50 {
		a.ModelBit(&zero, false)
		b.ModelBit(&init, false)
	}
	if na, _ := a.Finish(); true {
		if nb, _ := b.Finish(); na != nb || zero != init {
			t.Errorf("zero-value model differs from ProbInit: %d vs %d bytes", na, nb)
		}
	}
}

// TestStreamsRewind checks what a packet builder relies on: a Writer or
// RangeEncoder restored to an earlier copy of itself writes on as if
// nothing had been written after the copy, whatever was (here random
// symbols, overflowing the buffer or not), also where the Writer takes
// its slow path at the end of its buffer.
func TestStreamsRewind(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type op struct {
		model bool
		v     uint64
		n     int
	}
	ops := func(k int) []op {
		var out []op
		for range k {
			if rng.IntN(2) == 0 {
				out = append(out, op{model: true, v: uint64(rng.IntN(2)), n: rng.IntN(4)})
			} else {
				n := 1 + rng.IntN(30)
				out = append(out, op{v: rng.Uint64N(1 << n), n: n})
			}
		}
		return out
	}
	code := func(s Stream, m *[4]Prob, ops []op) error {
		for _, o := range ops {
			if o.model {
				b := o.v == 1
				if err := SerializeModelBit(s, &m[o.n], &b); err != nil {
					return err
				}
				continue
			}
			if _, err := s.Bits(o.v, o.n); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range 500 {
		prefix, garbage, suffix := ops(rng.IntN(20)), ops(1+rng.IntN(20)), ops(rng.IntN(20))
		// The reference: prefix and suffix on a fresh stream.
		var mw, mr [4]Prob
		ref := NewWriter(make([]byte, 256))
		refRC := NewRangeEncoder(make([]byte, 256))
		if err := code(ref, &mw, append(slices.Clone(prefix), suffix...)); err != nil {
			t.Fatal(err)
		}
		if err := code(refRC, &mr, append(slices.Clone(prefix), suffix...)); err != nil {
			t.Fatal(err)
		}
		refN, err := refRC.Finish()
		if err != nil {
			t.Fatal(err)
		}
		// The same with garbage written on a copy in between, into a
		// buffer just long enough for the reference.
		size := len(ref.Bytes()) + rng.IntN(3)
		w := NewWriter(bytes.Repeat([]byte{0xA5}, size))
		var m [4]Prob
		if err := code(w, &m, prefix); err != nil {
			t.Fatal(err)
		}
		saved, savedM := *w, m
		_ = code(w, &m, garbage) // may overflow: that is the point
		*w, m = saved, savedM
		if err := code(w, &m, suffix); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w.Bytes(), ref.Bytes()) {
			t.Fatalf("case %d: rewound Writer wrote %x, want %x", i, w.Bytes(), ref.Bytes())
		}
		e := NewRangeEncoder(bytes.Repeat([]byte{0xA5}, refN+rng.IntN(3)))
		m = [4]Prob{}
		if err := code(e, &m, prefix); err != nil {
			t.Fatal(err)
		}
		savedE, savedM := *e, m
		_ = code(e, &m, garbage)
		*e, m = savedE, savedM
		if err := code(e, &m, suffix); err != nil {
			t.Fatal(err)
		}
		n, err := e.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(e.buf[:n], refRC.buf[:refN]) {
			t.Fatalf("case %d: rewound RangeEncoder wrote %x, want %x", i, e.buf[:n], refRC.buf[:refN])
		}
	}
}

// TestResetRangeCoders checks that a reset encoder and decoder work as
// new ones.
func TestResetRangeCoders(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	e, d := NewRangeEncoder(make([]byte, 10)), NewRangeDecoder([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF})
	for range 20 {
		msg := randomRCMessage(rng, rng.IntN(200), 0.1)
		want := encodeRC(t, msg)
		e.Reset(make([]byte, 1<<12))
		if err := msg.Serialize(e); err != nil {
			t.Fatal(err)
		}
		n, err := e.Finish()
		if err != nil || !bytes.Equal(e.buf[:n], want) {
			t.Fatalf("reset encoder wrote %x (%v), want %x", e.buf[:n], err, want)
		}
		got := rcMessage{Bits: make([]bool, len(msg.Bits)), Raw: make([]uint64, len(msg.Raw))}
		d.Reset(want)
		if err := got.Serialize(d); err != nil {
			t.Fatal(err)
		}
		if err := d.Finish(); err != nil || !equalRC(got, msg) {
			t.Fatalf("reset decoder: %v, message equal %v", err, equalRC(got, msg))
		}
	}
}

// TestRangeEncoderSizeBound checks SizeBound's promises over random bits
// of skewed and extreme models and raw bits: it is never below Size, and
// one more bit raises it by at most two.
func TestRangeEncoderSizeBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, skew := range []int{2, 8, 64, 4096} {
		e := NewRangeEncoder(make([]byte, 1<<16))
		var p [3]Prob
		p[2] = 1 // clamped to the floor: the dearest bit there is
		for i := range 5000 {
			before := e.SizeBound()
			if rng.IntN(5) == 0 {
				if _, err := e.Bits(rng.Uint64N(1<<3), 3); err != nil {
					t.Fatal(err)
				}
			} else {
				k := rng.IntN(3)
				if _, err := e.ModelBit(&p[k], rng.IntN(skew) == 0); err != nil {
					t.Fatal(err)
				}
				if after := e.SizeBound(); after > before+2 {
					t.Fatalf("skew %d, bit %d: one bit raised the bound %d -> %d", skew, i, before, after)
				}
			}
			if s, b := e.Size(), e.SizeBound(); s > b {
				t.Fatalf("skew %d, symbol %d: Size %d above SizeBound %d", skew, i, s, b)
			}
		}
	}
}
