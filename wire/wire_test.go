package wire

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// message exercises every encoding of the package in one Serialize.
type message struct {
	Flag     bool
	Raw      uint64 // 64 raw bits
	Small    int16  // [-100, 27]
	Seq      uint16 // 16 bits
	F32      float32
	F        float64 // in testRange
	V        vecmath.Vec3
	Q        vecmath.Quat
	Prev     int
	Index    int // after Prev, up to 899
	Rel      int64
	Block    []byte
	NoBits   int8 // [5, 5]: costs nothing
	Constant bool
}

var (
	testRange  = FloatRange{Min: -10, Max: 10, Res: 1.0 / 256}
	testBounds = Bounds{Min: vecmath.V3(-256, 0, -256), Max: vecmath.V3(256, 32, 256), Res: 1.0 / 512}
	testBase   = int64(1000)
	testRel    = Classes{4, 7, 10}
)

func (m *message) Serialize(s Stream) error {
	steps := []func() error{
		func() error { return SerializeBool(s, &m.Flag) },
		func() error { return SerializeBits(s, &m.Raw, 64) },
		func() error { return SerializeInt(s, &m.Small, -100, 27) },
		func() error { return SerializeBits(s, &m.Seq, 16) },
		func() error { return SerializeFloat32(s, &m.F32) },
		func() error { return SerializeFloat(s, &m.F, testRange) },
		func() error { return SerializeCheck(s, CheckMagic) },
		func() error { return SerializeVec3(s, &m.V, testBounds) },
		func() error { return SerializeQuat(s, &m.Q, 11) },
		func() error { return SerializeIndexDelta(s, m.Prev, &m.Index, 899) },
		func() error { return SerializeRelative(s, &m.Rel, testBase, 0, 1<<20, testRel) },
		func() error { return SerializeBytes(s, &m.Block, 40) },
		func() error { return SerializeInt(s, &m.NoBits, 5, 5) },
		func() error { return SerializeBool(s, &m.Constant) },
	}
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

func sampleMessages() []message {
	q := vecmath.QuatAxisAngle(vecmath.V3(0.6, 0, 0.8), 2.5)
	return []message{
		{Small: -100, F: -10, V: testBounds.Min, Q: vecmath.QuatIdentity, Prev: -1, Index: 0, Rel: 0, NoBits: 5},
		{Flag: true, Raw: math.MaxUint64, Small: 27, Seq: 65535, F32: -1.5e30, F: 10, V: testBounds.Max,
			Q: q, Prev: 10, Index: 899, Rel: 1 << 20, Block: bytes.Repeat([]byte{0xAB}, 40), NoBits: 5, Constant: true},
		{Raw: 12345, Small: 3, Seq: 7, F32: 0.1, F: 1.0 / 3, V: vecmath.V3(1.1, 2.2, -3.3), Q: q.Neg(),
			Prev: 4, Index: 5, Rel: 1003, Block: []byte("hello"), NoBits: 5},
		{F: 9.99, V: vecmath.V3(0, 16, 0), Q: vecmath.Quat{X: 0.5, Y: 0.5, Z: 0.5, W: 0.5}, Prev: 100, Index: 230,
			Rel: 990, NoBits: 5},
	}
}

// writeMessage encodes m and checks that measuring agrees bit for bit.
func writeMessage(t testing.TB, m message) []byte {
	t.Helper()
	w := NewWriter(make([]byte, 256))
	if err := m.Serialize(w); err != nil {
		t.Fatalf("write %+v: %v", m, err)
	}
	var ms Measurer
	if err := m.Serialize(&ms); err != nil {
		t.Fatalf("measure: %v", err)
	}
	if ms.BitCount() != w.BitsWritten() || ms.Bytes() != len(w.Bytes()) {
		t.Fatalf("measured %d bits, wrote %d", ms.BitCount(), w.BitsWritten())
	}
	return bytes.Clone(w.Bytes())
}

// quantized returns what a receiver decodes for m.
func quantized(t testing.TB, m message) message {
	t.Helper()
	var err error
	if m.F, err = testRange.Quantize(m.F); err != nil {
		t.Fatal(err)
	}
	if m.V, err = testBounds.Quantize(m.V); err != nil {
		t.Fatal(err)
	}
	if m.Q, err = QuantizeQuatValue(m.Q, 11); err != nil {
		t.Fatal(err)
	}
	if m.Block == nil {
		m.Block = []byte{}
	}
	return m
}

func TestMessageRoundTrip(t *testing.T) {
	for _, m := range sampleMessages() {
		b := writeMessage(t, m)
		got := message{Prev: m.Prev}
		r := NewReader(b)
		if err := got.Serialize(r); err != nil {
			t.Fatalf("read %+v: %v", m, err)
		}
		if r.BitsLeft() >= 8 {
			t.Errorf("%d bits left unread", r.BitsLeft())
		}
		want := quantized(t, m)
		if !equalMessages(got, want) {
			t.Errorf("decoded\n%+v\nwant\n%+v", got, want)
		}
		if again := writeMessage(t, got); !bytes.Equal(again, b) {
			t.Errorf("re-encoding the decoded message changed the bytes")
		}
	}
}

func equalMessages(a, b message) bool {
	return a.Flag == b.Flag && a.Raw == b.Raw && a.Small == b.Small && a.Seq == b.Seq && a.F32 == b.F32 &&
		a.F == b.F && a.V == b.V && a.Q == b.Q && a.Prev == b.Prev && a.Index == b.Index && a.Rel == b.Rel &&
		bytes.Equal(a.Block, b.Block) && a.NoBits == b.NoBits && a.Constant == b.Constant
}

func TestTruncatedMessagesFail(t *testing.T) {
	for _, m := range sampleMessages() {
		b := writeMessage(t, m)
		for n := range len(b) {
			got := message{Prev: m.Prev}
			err := got.Serialize(NewReader(b[:n]))
			if !errors.Is(err, ErrTruncated) {
				t.Fatalf("message cut to %d of %d bytes: err = %v, want ErrTruncated", n, len(b), err)
			}
		}
	}
}

func TestWriterOverflow(t *testing.T) {
	m := sampleMessages()[1]
	b := writeMessage(t, m)
	for n := range len(b) {
		err := m.Serialize(NewWriter(make([]byte, n)))
		if !errors.Is(err, ErrOverflow) {
			t.Fatalf("buffer of %d of %d bytes: err = %v, want ErrOverflow", n, len(b), err)
		}
	}
}

// TestOutOfRangeRejected checks that writers and measurers refuse values
// they cannot represent instead of clamping them.
func TestOutOfRangeRejected(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		f    func(Stream) error
	}{
		{"int above", func(s Stream) error { v := 28; return SerializeInt(s, &v, -100, 27) }},
		{"int below", func(s Stream) error { v := int8(-101); return SerializeInt(s, &v, -100, 27) }},
		{"bits overflow", func(s Stream) error { v := uint32(256); return SerializeBits(s, &v, 8) }},
		{"bits negative", func(s Stream) error { v := -1; return SerializeBits(s, &v, 8) }},
		{"float32 NaN", func(s Stream) error { v := float32(nan); return SerializeFloat32(s, &v) }},
		{"float32 Inf", func(s Stream) error { v := float32(inf); return SerializeFloat32(s, &v) }},
		{"float NaN", func(s Stream) error { v := nan; return SerializeFloat(s, &v, testRange) }},
		{"float Inf", func(s Stream) error { v := -inf; return SerializeFloat(s, &v, testRange) }},
		{"float above", func(s Stream) error { v := 10.001; return SerializeFloat(s, &v, testRange) }},
		{"float below", func(s Stream) error { v := -10.001; return SerializeFloat(s, &v, testRange) }},
		{"vec3 above", func(s Stream) error { v := vecmath.V3(0, 32.01, 0); return SerializeVec3(s, &v, testBounds) }},
		{"vec3 NaN", func(s Stream) error { v := vecmath.V3(nan, 1, 0); return SerializeVec3(s, &v, testBounds) }},
		{"quat NaN", func(s Stream) error { q := vecmath.Quat{X: nan, W: 1}; return SerializeQuat(s, &q, 9) }},
		{"quat zero", func(s Stream) error { q := vecmath.Quat{}; return SerializeQuat(s, &q, 9) }},
		{"quat long", func(s Stream) error { q := vecmath.Quat{W: 1.1}; return SerializeQuat(s, &q, 9) }},
		{"index not after", func(s Stream) error { v := 4; return SerializeIndexDelta(s, 4, &v, 899) }},
		{"index beyond", func(s Stream) error { v := 900; return SerializeIndexDelta(s, 4, &v, 899) }},
		{"relative above", func(s Stream) error { v := int64(1<<20 + 1); return SerializeRelative(s, &v, 0, 0, 1<<20, testRel) }},
		{"bytes too long", func(s Stream) error { b := make([]byte, 41); return SerializeBytes(s, &b, 40) }},
		{"smallest three", func(s Stream) error {
			q := SmallestThree{Largest: 3, C: [3]int32{256, 0, 0}}
			return SerializeSmallestThree(s, &q, 9)
		}},
	}
	for _, c := range cases {
		for _, s := range []Stream{NewWriter(make([]byte, 64)), &Measurer{}} {
			if err := c.f(s); !errors.Is(err, ErrRange) {
				t.Errorf("%s (%v): err = %v, want ErrRange", c.name, s.Mode(), err)
			}
		}
	}
}

// TestInvalidReads feeds codes the writer never produces.
func TestInvalidReads(t *testing.T) {
	nanBits := uint64(math.Float32bits(float32(math.NaN())))
	cases := []struct {
		name  string
		write func(Stream) error
		read  func(Stream) error
		want  error
	}{
		{"int beyond range", func(s Stream) error { v := uint64(127); return bitsErr(s.Bits(v, 7)) },
			func(s Stream) error { var v int; return SerializeInt(s, &v, 0, 100) }, ErrInvalid},
		{"float32 NaN", func(s Stream) error { return bitsErr(s.Bits(nanBits, 32)) },
			func(s Stream) error { var v float32; return SerializeFloat32(s, &v) }, ErrInvalid},
		{"quat unused code", func(s Stream) error { v := uint64(0x1FFFFFFF); return bitsErr(s.Bits(v, 29)) },
			func(s Stream) error { var q vecmath.Quat; return SerializeQuat(s, &q, 9) }, ErrInvalid},
		{"quat not largest", func(s Stream) error {
			t := SmallestThree{Largest: 0, C: [3]int32{255, 255, 0}}
			v := uint64(t.Largest)
			if _, err := s.Bits(v, 2); err != nil {
				return err
			}
			for _, c := range t.C {
				u := uint64(c + 255)
				if _, err := s.Bits(u, 9); err != nil {
					return err
				}
			}
			return nil
		}, func(s Stream) error { var q vecmath.Quat; return SerializeQuat(s, &q, 9) }, ErrInvalid},
		{"check marker", func(s Stream) error { return SerializeCheck(s, 1234) },
			func(s Stream) error { return SerializeCheck(s, CheckMagic) }, ErrCheck},
		{"padding", func(s Stream) error { v := uint64(0xFF); return bitsErr(s.Bits(v, 8)) },
			func(s Stream) error {
				var b bool
				if err := SerializeBool(s, &b); err != nil {
					return err
				}
				return s.Align()
			}, ErrInvalid},
		// Five "not in this class" bits, then a tail gap of 62+63 > 99.
		{"index beyond max", func(s Stream) error { v := uint64(0x7E0); return bitsErr(s.Bits(v, 11)) },
			func(s Stream) error { v := 0; return SerializeIndexDelta(s, 800, &v, 899) }, ErrInvalid},
		{"relative beyond", func(s Stream) error { v := uint64(0xFFFF); return bitsErr(s.Bits(v, 16)) },
			func(s Stream) error { var v int64; return SerializeRelative(s, &v, 0, 0, 3, Classes{1}) }, ErrInvalid},
	}
	for _, c := range cases {
		w := NewWriter(make([]byte, 64))
		if err := c.write(w); err != nil {
			t.Fatalf("%s: write: %v", c.name, err)
		}
		if err := c.read(NewReader(w.Bytes())); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
}

func TestBitsRequired(t *testing.T) {
	for span, want := range map[uint64]int{0: 0, 1: 1, 2: 2, 3: 2, 4: 3, 255: 8, 256: 9, math.MaxUint64: 64} {
		if got := BitsRequired(span); got != want {
			t.Errorf("BitsRequired(%d) = %d, want %d", span, got, want)
		}
	}
}

// TestBitLayout checks the documented bit order on the byte-wise path (a
// buffer too short for 8-byte stores) and on the 8-byte path.
func TestBitLayout(t *testing.T) {
	for _, size := range []int{2, 16} {
		w := NewWriter(make([]byte, size))
		if _, err := w.Bits(0x2A5, 10); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Bits(5, 3); err != nil {
			t.Fatal(err)
		}
		if got, want := w.Bytes(), []byte{0xA5, 0x16}; !bytes.Equal(got, want) {
			t.Errorf("buffer of %d: layout % x, want % x", size, got, want)
		}
		r := NewReader(append(w.Bytes(), make([]byte, size-2)...))
		if x, err := r.Bits(0, 10); err != nil || x != 0x2A5 {
			t.Errorf("buffer of %d: read %#x (%v)", size, x, err)
		}
	}
}

// TestFastAndSlowPathsAgree writes random values into buffers of every
// size from exact to roomy and checks the bytes and the values read.
func TestFastAndSlowPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for range 200 {
		var vals []uint64
		var widths []int
		total := 0
		for range 1 + rng.IntN(20) {
			n := 1 + rng.IntN(64)
			vals = append(vals, rng.Uint64()>>(64-n))
			widths = append(widths, n)
			total += n
		}
		var ref []byte
		for extra := range 10 {
			w := NewWriter(make([]byte, (total+7)/8+extra))
			for i, v := range vals {
				if _, err := w.Bits(v, widths[i]); err != nil {
					t.Fatal(err)
				}
			}
			if ref == nil {
				ref = bytes.Clone(w.Bytes())
			} else if !bytes.Equal(w.Bytes(), ref) {
				t.Fatalf("buffer with %d spare bytes wrote % x, want % x", extra, w.Bytes(), ref)
			}
			r := NewReader(append(bytes.Clone(ref), make([]byte, extra)...))
			for i, v := range vals {
				if x, err := r.Bits(0, widths[i]); err != nil || x != v {
					t.Fatalf("value %d: read %#x (%v), want %#x", i, x, err, v)
				}
			}
		}
	}
}

func TestFloatRangeEdges(t *testing.T) {
	r := FloatRange{Min: -1, Max: 1, Res: 0.1} // inexact resolution
	for _, v := range []float64{-1, 1, 0, 0.05, -0.05, 0.999} {
		q, err := r.Quantize(v)
		if err != nil {
			t.Fatalf("Quantize(%v): %v", v, err)
		}
		if math.Abs(q-v) > r.Res/2+1e-12 {
			t.Errorf("Quantize(%v) = %v: error beyond half a step", v, q)
		}
		if qq, err := r.Quantize(q); err != nil || qq != q {
			t.Errorf("Quantize(Quantize(%v)) = %v, %v; want %v", v, qq, err, q)
		}
	}
	if _, err := (FloatRange{Min: 0, Max: 1, Res: 0}).Quantize(0.5); !errors.Is(err, ErrConfig) {
		t.Errorf("zero resolution: err = %v", err)
	}
	if n := (FloatRange{Min: -256, Max: 256 - 1.0/512, Res: 1.0 / 512}).Bits(); n != 18 {
		t.Errorf("512 m at 512/m: %d bits, want 18", n)
	}
}

// bitsErr drops the value of a Stream.Bits call.
func bitsErr(_ uint64, err error) error { return err }

// TestMeasuredEqualsWritten is the property test of the Measurer: for
// random messages, measuring counts exactly the bits the Writer writes,
// and the Reader consumes exactly those bits.
func TestMeasuredEqualsWritten(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for range 3000 {
		prev := rng.IntN(900) - 1
		m := message{
			Flag: rng.IntN(2) == 0, Raw: rng.Uint64(), Small: int16(rng.IntN(128) - 100), Seq: uint16(rng.Uint32()),
			F32: float32(rng.NormFloat64() * 1e3), F: rng.Float64()*20 - 10,
			V: vecmath.V3(rng.Float64()*512-256, rng.Float64()*32, rng.Float64()*512-256),
			Q: randomQuat(rng), Prev: prev, Index: prev + 1 + rng.IntN(899-prev),
			Rel:   max(0, min(1<<20, testBase+int64(rng.NormFloat64()*float64(int64(1)<<rng.IntN(20))))),
			Block: make([]byte, rng.IntN(41)), NoBits: 5, Constant: rng.IntN(2) == 0,
		}
		b := writeMessage(t, m) // checks measured == written
		got := message{Prev: prev}
		r := NewReader(b)
		if err := got.Serialize(r); err != nil || !equalMessages(got, quantized(t, m)) {
			t.Fatalf("%+v: read back %+v (%v)", m, got, err)
		}
		if (r.BitsRead()+7)/8 != len(b) {
			t.Fatalf("read %d bits of %d bytes", r.BitsRead(), len(b))
		}
	}
}
