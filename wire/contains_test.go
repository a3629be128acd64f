package wire

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// TestContainsAgreesWithIndex: Contains is true exactly when Index has
// no error, at the edges, just past them, for NaN and ±Inf and for
// random values; a miss is ErrRange with the message fmt.Errorf gave.
func TestContainsAgreesWithIndex(t *testing.T) {
	r := FloatRange{Min: -3, Max: 5, Res: 1.0 / 3}
	vals := []float64{-3, 5, r.Value(r.Steps()), math.Nextafter(-3, -4), math.Nextafter(5, 6), math.NaN(), math.Inf(1), math.Inf(-1), 0}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		vals = append(vals, rng.Float64()*12-5)
	}
	for _, v := range vals {
		_, err := r.Index(v)
		if r.Contains(v) != (err == nil) {
			t.Fatalf("Contains(%v) = %v, Index error %v", v, r.Contains(v), err)
		}
		if err != nil {
			want := fmt.Errorf("wire: %v outside [%v, %v]: %w", v, r.Min, r.Max, ErrRange).Error()
			if !errors.Is(err, ErrRange) || err.Error() != want {
				t.Fatalf("Index(%v): %q, want %q wrapping ErrRange", v, err, want)
			}
		}
	}
	if (FloatRange{Min: 1, Max: 0, Res: 1}).Contains(0.5) {
		t.Error("an invalid range contains a value")
	}
	b := Bounds{Min: vecmath.Vec3{X: -1, Y: 0, Z: -1}, Max: vecmath.Vec3{X: 1, Y: 2, Z: 1}, Res: 1.0 / 64}
	for range 1000 {
		v := vecmath.Vec3{X: rng.Float64()*3 - 1.5, Y: rng.Float64()*3 - 0.5, Z: rng.Float64()*3 - 1.5}
		_, err := b.Index(v)
		if b.Contains(v) != (err == nil) {
			t.Fatalf("Bounds.Contains(%v) = %v, Index error %v", v, b.Contains(v), err)
		}
		if err == nil {
			continue
		}
		axis := 0
		for ; b.Axis(axis).Contains(v.Comp(axis)); axis++ {
		}
		a := b.Axis(axis)
		want := fmt.Errorf("wire: axis %d: %w", axis, fmt.Errorf("wire: %v outside [%v, %v]: %w", v.Comp(axis), a.Min, a.Max, ErrRange)).Error()
		if !errors.Is(err, ErrRange) || err.Error() != want {
			t.Fatalf("Bounds.Index(%v): %q, want %q wrapping ErrRange", v, err, want)
		}
	}
}

// TestRangeMissIsOneAllocation: a value that does not fit costs Index
// one allocation and Contains none.
func TestRangeMissIsOneAllocation(t *testing.T) {
	b := Bounds{Min: vecmath.Vec3{X: -1, Y: -1, Z: -1}, Max: vecmath.Vec3{X: 1, Y: 1, Z: 1}, Res: 1.0 / 64}
	out := vecmath.Vec3{X: 0.5, Y: 3}
	if a := testing.AllocsPerRun(100, func() { _, _ = b.Index(out) }); a > 1 {
		t.Errorf("Bounds.Index of a miss: %v allocations", a)
	}
	if a := testing.AllocsPerRun(100, func() { _ = b.Contains(out) }); a != 0 {
		t.Errorf("Bounds.Contains: %v allocations", a)
	}
}
