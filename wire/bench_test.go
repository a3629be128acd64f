package wire

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkWriterMessage(b *testing.B) {
	m := sampleMessages()[2]
	w := NewWriter(make([]byte, 256))
	for b.Loop() {
		w.Reset(w.buf)
		if err := m.Serialize(w); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(w.Bytes())))
}

func BenchmarkReaderMessage(b *testing.B) {
	m := sampleMessages()[2]
	buf := writeMessage(b, m)
	r := NewReader(buf)
	var got message
	for b.Loop() {
		r.Reset(buf)
		got.Prev = m.Prev
		if err := got.Serialize(r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

// BenchmarkWriterBits writes 9-bit values: raw bit-packing throughput.
func BenchmarkWriterBits(b *testing.B) {
	w := NewWriter(make([]byte, 9*1024/8))
	for b.Loop() {
		w.Reset(w.buf)
		for i := range uint64(1024) {
			v := i & 511
			if _, err := w.Bits(v, 9); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.SetBytes(9 * 1024 / 8)
}

func BenchmarkReaderBits(b *testing.B) {
	buf := make([]byte, 9*1024/8)
	r := NewReader(buf)
	for b.Loop() {
		r.Reset(buf)
		for range 1024 {
			var v uint64
			if _, err := r.Bits(v, 9); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.SetBytes(int64(len(buf)))
}

// rcBenchBits is a skewed bit sequence like a snapshot's changed flags.
func rcBenchBits() []bool {
	rng := rand.New(rand.NewPCG(1, 2))
	bits := make([]bool, 8192)
	for i := range bits {
		bits[i] = rng.IntN(10) == 0
	}
	return bits
}

func BenchmarkRangeEncodeModelBits(b *testing.B) {
	bits := rcBenchBits()
	buf := make([]byte, 8192)
	var p Prob
	for b.Loop() {
		e := NewRangeEncoder(buf)
		p = ProbInit
		for i := range bits {
			if _, err := e.ModelBit(&p, bits[i]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := e.Finish(); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(bits) / 8))
}

func BenchmarkRangeDecodeModelBits(b *testing.B) {
	bits := rcBenchBits()
	e := NewRangeEncoder(make([]byte, 8192))
	p := ProbInit
	for i := range bits {
		if _, err := e.ModelBit(&p, bits[i]); err != nil {
			b.Fatal(err)
		}
	}
	n, _ := e.Finish()
	for b.Loop() {
		d := NewRangeDecoder(e.buf[:n])
		p = ProbInit
		var bit bool
		for range bits {
			if _, err := d.ModelBit(&p, bit); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.SetBytes(int64(len(bits) / 8))
}
