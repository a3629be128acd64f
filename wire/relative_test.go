package wire

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestIndexDeltaArticleSizes(t *testing.T) {
	// Gap → bits, as in the snapshot-compression article.
	for gap, want := range map[int]int{1: 1, 2: 4, 5: 4, 6: 6, 13: 6, 14: 8, 29: 8, 30: 10, 61: 10, 62: 12, 125: 12, 126: 16, 899: 16} {
		var m Measurer
		cur := gap - 1
		if err := SerializeIndexDelta(&m, -1, &cur, 899); err != nil {
			t.Fatal(err)
		}
		if m.BitCount() != want {
			t.Errorf("gap %d: %d bits, want %d", gap, m.BitCount(), want)
		}
	}
}

func TestRelativeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	classes := []Classes{nil, {0}, {4, 7, 10}, {2, 5, 63}, {1, 1, 1, 1}}
	for range 5000 {
		lo := rng.Int64N(2000) - 1000
		hi := lo + rng.Int64N(5000)
		base := lo + rng.Int64N(hi-lo+1)
		v := lo + rng.Int64N(hi-lo+1)
		if rng.IntN(2) == 0 { // mostly near the base
			v = max(lo, min(hi, base+rng.Int64N(41)-20))
		}
		c := classes[rng.IntN(len(classes))]
		w := NewWriter(make([]byte, 32))
		if err := SerializeRelative(w, &v, base, lo, hi, c); err != nil {
			t.Fatalf("v %d base %d [%d,%d] %v: %v", v, base, lo, hi, c, err)
		}
		var m Measurer
		if err := SerializeRelative(&m, &v, base, lo, hi, c); err != nil || m.BitCount() != w.BitsWritten() {
			t.Fatalf("measured %d bits, wrote %d (%v)", m.BitCount(), w.BitsWritten(), err)
		}
		var got int64
		r := NewReader(w.Bytes())
		if err := SerializeRelative(r, &got, base, lo, hi, c); err != nil || got != v {
			t.Fatalf("v %d base %d [%d,%d] %v: read %d, %v", v, base, lo, hi, c, got, err)
		}
		if r.BitsRead() != w.BitsWritten() {
			t.Fatalf("read %d bits, wrote %d", r.BitsRead(), w.BitsWritten())
		}
	}
}

func TestIndexDeltaSequence(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const max = 899
	var idx []int
	for i := 0; i <= max; i++ {
		if rng.IntN(7) == 0 {
			idx = append(idx, i)
		}
	}
	w := NewWriter(make([]byte, 1024))
	prev := -1
	for _, i := range idx {
		if err := SerializeIndexDelta(w, prev, &i, max); err != nil {
			t.Fatal(err)
		}
		prev = i
	}
	r := NewReader(w.Bytes())
	prev = -1
	for _, want := range idx {
		var got int
		if err := SerializeIndexDelta(r, prev, &got, max); err != nil || got != want {
			t.Fatalf("read %d (%v), want %d", got, err, want)
		}
		prev = got
	}
	if err := SerializeIndexDelta(NewReader(nil), max, new(int), max); !errors.Is(err, ErrConfig) {
		t.Errorf("index after the last: err = %v, want ErrConfig", err)
	}
}

// TestModelledCodesRoundTrip codes a stream of skewed relative values
// with adaptive models on the range coder and on the bit packer: both
// decode what was written, the bit packer writes exactly the unmodelled
// bits, and the range coder spends less on the skewed source.
func TestModelledCodesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	items := make([]int64, 400)
	for i := range items {
		items[i] = 100 + rng.Int64N(5) - 2
		if rng.IntN(20) == 0 {
			items[i] = rng.Int64N(1001)
		}
	}
	code := func(s Stream, got []int64) error {
		var cls [4]Prob
		for i := range got {
			if err := SerializeRelativeModel(s, &got[i], 100, 0, 1000, Classes{2, 5}, cls[:]); err != nil {
				return err
			}
		}
		return nil
	}
	var plain Measurer
	if err := code(&plain, slices.Clone(items)); err != nil {
		t.Fatal(err)
	}
	var unmodelled Measurer
	for _, v := range items {
		if err := SerializeRelative(&unmodelled, &v, 100, 0, 1000, Classes{2, 5}); err != nil {
			t.Fatal(err)
		}
	}
	if plain.BitCount() != unmodelled.BitCount() {
		t.Fatalf("bit packer: %d bits with models, %d without", plain.BitCount(), unmodelled.BitCount())
	}
	buf := make([]byte, 4096)
	e := NewRangeEncoder(buf)
	if err := code(e, slices.Clone(items)); err != nil {
		t.Fatal(err)
	}
	n, err := e.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if 8*n >= plain.BitCount() {
		t.Fatalf("range coded in %d bytes, bit packed in %d bits", n, plain.BitCount())
	}
	got := make([]int64, len(items))
	d := NewRangeDecoder(buf[:n])
	if err := code(d, got); err != nil || d.Finish() != nil || !slices.Equal(got, items) {
		t.Fatalf("range round trip: %v", err)
	}
	w := NewWriter(buf)
	if err := code(w, slices.Clone(items)); err != nil {
		t.Fatal(err)
	}
	got = make([]int64, len(items))
	if err := code(NewReader(w.Bytes()), got); err != nil || !slices.Equal(got, items) {
		t.Fatalf("bit packer round trip: %v", err)
	}
	t.Logf("%d bits packed, %d range coded", plain.BitCount(), 8*n)
}
