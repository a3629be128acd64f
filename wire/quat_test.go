package wire

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

func randomQuat(rng *rand.Rand) vecmath.Quat {
	for {
		q := vecmath.Quat{X: rng.Float64()*2 - 1, Y: rng.Float64()*2 - 1, Z: rng.Float64()*2 - 1, W: rng.Float64()*2 - 1}
		if n := q.Dot(q); n > 0.01 && n <= 1 {
			return q.Normalize()
		}
	}
}

func TestQuatSmallestThreeProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, b := range []int{MinQuatBits, 9, 15, 20, MaxQuatBits} {
		_, scale := quatScale(b)
		for range 2000 {
			q := randomQuat(rng)
			st, err := QuantizeQuat(q, b)
			if err != nil {
				t.Fatal(err)
			}
			neg, err := QuantizeQuat(q.Neg(), b)
			if err != nil || neg != st {
				t.Fatalf("bits %d: q and -q encode differently: %+v vs %+v (%v)", b, st, neg, err)
			}
			d := st.Quat(b)
			again, err := QuantizeQuat(d, b)
			if err != nil || again != st {
				t.Fatalf("bits %d: re-quantizing %+v gives %+v, want %+v (%v)", b, d, again, st, err)
			}
			if n := d.Dot(d); math.Abs(n-1) > 1e-9 {
				t.Fatalf("bits %d: decoded |q|² = %v", b, n)
			}
			// Error bound: half a step per component, plus the rebuilt
			// largest and the fix-up step.
			if b >= 9 {
				if e := quatDistance(q, d); e > 4/scale {
					t.Fatalf("bits %d: error %v beyond %v", b, e, 4/scale)
				}
			}
		}
	}
}

func TestQuatEdges(t *testing.T) {
	for _, q := range []vecmath.Quat{
		vecmath.QuatIdentity,
		{X: 1}, {Y: -1}, {Z: 1},
		{X: 0.5, Y: 0.5, Z: 0.5, W: 0.5},
		{X: -0.5, Y: 0.5, Z: -0.5, W: 0.5},
		{X: math.Sqrt(0.5), W: math.Sqrt(0.5)},
		{X: math.Sqrt(0.5), W: -math.Sqrt(0.5)},
		{Y: math.Sqrt(0.5) + 1e-9, Z: math.Sqrt(0.5) - 1e-9},
	} {
		for _, b := range []int{2, 9, 15} {
			st, err := QuantizeQuat(q, b)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			d := st.Quat(b)
			if again, _ := QuantizeQuat(d, b); again != st {
				t.Errorf("%+v bits %d: not idempotent: %+v then %+v", q, b, st, again)
			}
			if q.Angle(d) > 0.5 && b > 2 {
				t.Errorf("%+v bits %d: decoded %+v", q, b, d)
			}
		}
	}
	if d, _ := QuantizeQuatValue(vecmath.QuatIdentity, 9); d != vecmath.QuatIdentity {
		t.Errorf("identity decodes to %+v", d)
	}
}

// TestQuatLargestChanges moves a rotation across the boundary where the
// largest component changes and checks every step round-trips.
func TestQuatLargestChanges(t *testing.T) {
	seen := map[uint8]bool{}
	for i := range 200 {
		q := vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), float64(i)*0.0314)
		var st SmallestThree
		w := NewWriter(make([]byte, 8))
		if err := SerializeQuat(w, &q, 9); err != nil {
			t.Fatal(err)
		}
		var got vecmath.Quat
		if err := SerializeQuat(NewReader(w.Bytes()), &got, 9); err != nil {
			t.Fatal(err)
		}
		st, _ = QuantizeQuat(q, 9)
		seen[st.Largest] = true
		if want := st.Quat(9); got != want {
			t.Fatalf("step %d: decoded %+v, want %+v", i, got, want)
		}
	}
	if !seen[1] || !seen[3] {
		t.Errorf("sweep never changed the largest component: %v", seen)
	}
}

// quatDistance returns the largest component difference between the
// rotations q and r (sign-aligned). Unlike an angle through Acos it stays
// accurate for tiny differences.
func quatDistance(q, r vecmath.Quat) float64 {
	if q.Dot(r) < 0 {
		r = r.Neg()
	}
	return max(math.Abs(q.X-r.X), math.Abs(q.Y-r.Y), math.Abs(q.Z-r.Z), math.Abs(q.W-r.W))
}
