package snapshot

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/wire"
)

// TestBitModelCounts checks the counting start (the first bit moves a
// fresh model half way), convergence to the source's frequency, and that
// a model sure of its bit makes the bit nearly free: a model driven to
// the edge must never hand the coder wire's "fresh" probability.
func TestBitModelCounts(t *testing.T) {
	var m bitModel
	if p := m.prob(); p != 32768 {
		t.Fatalf("fresh model at %d/65536, want 32768", p)
	}
	m.update(false)
	if p := m.prob(); p != 49151 {
		t.Errorf("after one 0: %d/65536, want 49151 (half way to 1)", p)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	m = bitModel{}
	for range 4000 {
		m.update(rng.Float64() >= 0.9)
	}
	if p := float64(m.prob()) / 65536; p < 0.8 || p > 0.97 {
		t.Errorf("after 4000 bits with P(0) = 0.9 the model says %.3f", p)
	}

	buf := make([]byte, 4096)
	e := wire.NewRangeEncoder(buf)
	m = bitModel{}
	const n = 10000
	for range n {
		one := true
		if err := m.code(e, &one); err != nil {
			t.Fatal(err)
		}
	}
	size, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if size > 16 {
		t.Errorf("%d certain bits cost %d bytes", n, size)
	}
	d := wire.NewRangeDecoder(buf[:size])
	m = bitModel{}
	for i := range n {
		var got bool
		if err := m.code(d, &got); err != nil || !got {
			t.Fatalf("bit %d: %v, %v", i, got, err)
		}
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
}

func TestNewBitModelCapsCount(t *testing.T) {
	m := newBitModel(60000, 255)
	m.update(true) // indexes the rate table by the count: must not panic
	if m.n != rateLimit {
		t.Errorf("count %d, want %d", m.n, rateLimit)
	}
}

// codeAll codes values under per-trend signedModels and a tree2, on any
// stream.
func codeAll(s wire.Stream, vals []int64, trends []int64, tree []uint32) error {
	var m signedModel
	var tr tree2
	for i := range vals {
		if err := m.code(s, &vals[i], trends[i]); err != nil {
			return err
		}
	}
	for i := range tree {
		if err := tr.code(s, &tree[i]); err != nil {
			return err
		}
	}
	return nil
}

// TestSignedModelRoundTrip codes residuals from zero to the largest
// magnitude, under every kind of trend, on the range coder and on the bit
// packer, and rejects magnitudes beyond the bound.
func TestSignedModelRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vals := []int64{0, 1, -1, 2, -2, 3, 1<<expBits - 1, -(1<<expBits - 1), 1 << 18, -(1 << 18)}
	for range 500 {
		vals = append(vals, int64(rng.NormFloat64()*30))
	}
	trends := make([]int64, len(vals))
	for i := range trends {
		trends[i] = int64(i%3) - 1
	}
	tree := []uint32{0, 1, 2, 3, 3, 3, 0}
	for _, rc := range []bool{true, false} {
		buf := make([]byte, 8192)
		var w wire.Stream
		if rc {
			w = wire.NewRangeEncoder(buf)
		} else {
			w = wire.NewWriter(buf)
		}
		in := append([]int64(nil), vals...)
		if err := codeAll(w, in, trends, append([]uint32(nil), tree...)); err != nil {
			t.Fatal(err)
		}
		var r wire.Stream
		if rc {
			n, err := w.(*wire.RangeEncoder).Finish()
			if err != nil {
				t.Fatal(err)
			}
			r = wire.NewRangeDecoder(buf[:n])
		} else {
			r = wire.NewReader(w.(*wire.Writer).Bytes())
		}
		got := make([]int64, len(vals))
		gotTree := make([]uint32, len(tree))
		if err := codeAll(r, got, trends, gotTree); err != nil {
			t.Fatalf("range coder %v: %v", rc, err)
		}
		for i := range vals {
			if got[i] != vals[i] {
				t.Fatalf("range coder %v: value %d decoded as %d", rc, vals[i], got[i])
			}
		}
		for i := range tree {
			if gotTree[i] != tree[i] {
				t.Fatalf("range coder %v: tree value %d decoded as %d", rc, tree[i], gotTree[i])
			}
		}
	}
	var m signedModel
	for _, v := range []int64{1 << expBits, -(1 << expBits)} {
		if err := m.code(wire.NewRangeMeasurer(), &v, 0); !errors.Is(err, wire.ErrRange) {
			t.Errorf("%d: err = %v, want ErrRange", v, err)
		}
	}
	var tr tree2
	four := uint32(4)
	if err := tr.code(wire.NewRangeMeasurer(), &four); !errors.Is(err, wire.ErrRange) {
		t.Errorf("tree value 4: err = %v, want ErrRange", err)
	}
}
