package wire

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/vecmath"
)

// Smallest-three quaternion encoding. A unit quaternion's largest
// component (in magnitude) is at least 1/2, and because q and -q are the
// same rotation its sign can be made positive; the other three components
// then lie in [-1/√2, 1/√2] and the largest is rebuilt from
// sqrt(1 - a² - b² - c²). Bit layout for B bits per component:
//
//	+---------+---------+---------+---------+
//	| largest |    a    |    b    |    c    |
//	| 2 bits  | B bits  | B bits  | B bits  |
//	+---------+---------+---------+---------+
//
// a, b, c are the remaining components in X, Y, Z, W order. Each is a
// signed integer k in [-K, K], K = 2^(B-1) - 1, standing for k/K · 1/√2,
// stored as k + K; the code 2^B - 1 is unused and rejected when reading.
// The grid is symmetric so that 0 is exact (an upright cube stays exactly
// upright).
//
// Quantization keeps one more invariant: the rebuilt largest component is
// strictly larger in magnitude than the three others, so re-encoding a
// decoded quaternion chooses the same largest component and gives the same
// bits. Where rounding would break that (two components near 1/√2), the
// largest of the three is stepped towards zero until it holds.

// Quaternion component bits accepted by SmallestThree encodings.
const (
	MinQuatBits = 2
	MaxQuatBits = 30
)

// QuatTolerance bounds |1 - |q|²| for a quaternion to be accepted as a
// rotation; physics keeps its quaternions far closer to unit length.
const QuatTolerance = 1e-2

// SmallestThree is a quantized quaternion: the index of the largest
// component (0 = X … 3 = W) and the three others as signed steps.
type SmallestThree struct {
	Largest uint8
	C       [3]int32
}

var invSqrt2 = math.Sqrt(0.5)

// quatScale returns K and the steps per unit, K·√2. A bit count outside
// [MinQuatBits, MaxQuatBits] is clamped: exported callers validate it, and
// the few that cannot report errors (SmallestThree.Quat) must not panic.
func quatScale(b int) (int32, float64) {
	b = min(max(b, MinQuatBits), MaxQuatBits)
	k := int32(1)<<(b-1) - 1
	return k, float64(k) / invSqrt2
}

func checkQuatBits(b int) error {
	if b < MinQuatBits || b > MaxQuatBits {
		return fmt.Errorf("wire: %d bits per quaternion component: %w", b, ErrConfig)
	}
	return nil
}

// QuantizeQuat returns the smallest-three encoding of q with b bits per
// component. q and -q give the same result. A q that is not finite or not
// of unit length within QuatTolerance is ErrRange.
func QuantizeQuat(q vecmath.Quat, b int) (SmallestThree, error) {
	if err := checkQuatBits(b); err != nil {
		return SmallestThree{}, err
	}
	if n := q.Dot(q); !q.IsFinite() || math.Abs(1-n) > QuatTolerance {
		return SmallestThree{}, fmt.Errorf("wire: quaternion %+v is not a rotation: %w", q, ErrRange)
	}
	// Normalizing first bounds the fix-up loop below to a few steps.
	q = q.Normalize()
	c := [4]float64{q.X, q.Y, q.Z, q.W}
	var largest uint8
	for i := 1; i < 4; i++ {
		if math.Abs(c[i]) > math.Abs(c[largest]) {
			largest = uint8(i)
		}
	}
	sign := 1.0
	if c[largest] < 0 {
		sign = -1
	}
	k, scale := quatScale(b)
	t := SmallestThree{Largest: largest}
	j := 0
	for i := range 4 {
		if uint8(i) == largest {
			continue
		}
		x := math.Floor(float64(float64(sign*c[i])*scale) + 0.5)
		t.C[j] = int32(math.Max(-float64(k), math.Min(float64(k), x)))
		j++
	}
	// Keep the rebuilt largest component strictly the largest.
	for {
		w := t.largestValue(scale)
		m := 0
		for i := 1; i < 3; i++ {
			if abs32(t.C[i]) > abs32(t.C[m]) {
				m = i
			}
		}
		if w > float64(abs32(t.C[m]))/scale {
			return t, nil
		}
		if t.C[m] > 0 {
			t.C[m]--
		} else {
			t.C[m]++
		}
	}
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// largestValue rebuilds the largest component from the three others.
func (t SmallestThree) largestValue(scale float64) float64 {
	sum := 0.0
	for _, c := range t.C {
		v := float64(c) / scale
		sum += float64(v * v)
	}
	return math.Sqrt(math.Max(0, 1-sum))
}

// Quat returns the rotation t encodes with b bits per component: exactly
// what a receiver decodes. t must be Valid(b).
func (t SmallestThree) Quat(b int) vecmath.Quat {
	_, scale := quatScale(b)
	var c [4]float64
	j := 0
	for i := range 4 {
		if uint8(i) == t.Largest {
			c[i] = t.largestValue(scale)
			continue
		}
		c[i] = float64(t.C[j]) / scale
		j++
	}
	return vecmath.Quat{X: c[0], Y: c[1], Z: c[2], W: c[3]}
}

// QuantizeQuatValue returns the rotation the receiver decodes for q.
func QuantizeQuatValue(q vecmath.Quat, b int) (vecmath.Quat, error) {
	t, err := QuantizeQuat(q, b)
	if err != nil {
		return vecmath.Quat{}, err
	}
	return t.Quat(b), nil
}

// Valid reports whether t is an encoding QuantizeQuat can produce with b
// bits per component: components in [-K, K] and the rebuilt largest
// component strictly the largest.
func (t SmallestThree) Valid(b int) bool {
	if t.Largest > 3 || checkQuatBits(b) != nil {
		return false
	}
	k, scale := quatScale(b)
	w := t.largestValue(scale)
	for _, c := range t.C {
		if c < -k || c > k || w <= float64(abs32(c))/scale {
			return false
		}
	}
	return true
}

// SerializeSmallestThree codes t with b bits per component (layout above).
// Reading rejects codes QuantizeQuat never produces with ErrInvalid.
func SerializeSmallestThree(s Stream, t *SmallestThree, b int) error {
	if err := checkQuatBits(b); err != nil {
		return err
	}
	if s.Mode() != Reading && !t.Valid(b) {
		return fmt.Errorf("wire: smallest three %+v: %w", *t, ErrRange)
	}
	if err := SerializeInt(s, &t.Largest, 0, 3); err != nil {
		return err
	}
	k, _ := quatScale(b)
	for i := range t.C {
		if err := SerializeInt(s, &t.C[i], -k, k); err != nil {
			return err
		}
	}
	if !t.Valid(b) {
		return fmt.Errorf("wire: smallest three %+v: %w", *t, ErrInvalid)
	}
	return nil
}

// SerializeQuat codes the rotation *q as smallest three with b bits per
// component. Reading stores the decoded rotation; writing leaves *q
// untouched (QuantizeQuatValue gives what the receiver will see).
func SerializeQuat(s Stream, q *vecmath.Quat, b int) error {
	var t SmallestThree
	if s.Mode() != Reading {
		var err error
		if t, err = QuantizeQuat(*q, b); err != nil {
			return err
		}
	}
	if err := SerializeSmallestThree(s, &t, b); err != nil {
		return err
	}
	if s.Mode() == Reading {
		*q = t.Quat(b)
	}
	return nil
}
