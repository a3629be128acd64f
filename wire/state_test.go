package wire

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

func randomBodyState(rng *rand.Rand) BodyState {
	f := func(lim float64) float64 { return (rng.Float64()*2 - 1) * lim }
	return BodyState{
		Position:        vecmath.V3(f(255), 100+f(100), f(255)),
		Rotation:        randomQuat(rng),
		LinearVelocity:  vecmath.V3(f(60), f(60), f(60)),
		AngularVelocity: vecmath.V3(f(30), f(30), f(30)),
		AtRest:          rng.IntN(3) == 0,
	}
}

func TestBodyStateQuantizeBothSides(t *testing.T) {
	spec := DefaultStateSpec()
	rng := rand.New(rand.NewPCG(13, 14))
	for range 3000 {
		c := randomBodyState(rng)
		q, err := c.Quantize(spec)
		if err != nil {
			t.Fatal(err)
		}
		// The receiver decodes exactly the quantized state.
		w := NewWriter(make([]byte, 64))
		if err := c.Serialize(w, spec); err != nil {
			t.Fatal(err)
		}
		if w.BitsWritten() != c.Bits(spec) {
			t.Fatalf("wrote %d bits, Bits says %d", w.BitsWritten(), c.Bits(spec))
		}
		var got BodyState
		if err := got.Serialize(NewReader(w.Bytes()), spec); err != nil {
			t.Fatal(err)
		}
		if got != q {
			t.Fatalf("decoded %+v\nquantized %+v", got, q)
		}
		// Idempotent, down to the bits.
		qq, err := q.Quantize(spec)
		if err != nil || qq != q {
			t.Fatalf("quantizing again: %+v, %v", qq, err)
		}
		w2 := NewWriter(make([]byte, 64))
		if err := q.Serialize(w2, spec); err != nil || string(w2.Bytes()) != string(w.Bytes()) {
			t.Fatalf("re-encoding the quantized state changed the bits (%v)", err)
		}
		if d := q.Position.Sub(c.Position).Abs(); d.X > 1.0/8192 || d.Y > 1.0/8192 || d.Z > 1.0/8192 {
			t.Fatalf("position error %+v beyond half a step", d)
		}
	}
}

func TestBodyStateRejectsOutOfBounds(t *testing.T) {
	spec := DefaultStateSpec()
	c := BodyState{Position: vecmath.V3(0, 1, 0), Rotation: vecmath.QuatIdentity, LinearVelocity: vecmath.V3(64, 0, 0)}
	if _, err := c.Quantize(spec); !errors.Is(err, ErrRange) {
		t.Errorf("64 m/s: err = %v, want ErrRange", err)
	}
	c.AtRest = true // velocities are not sent, so not checked
	if _, err := c.Quantize(spec); err != nil {
		t.Errorf("at rest: %v", err)
	}
	c.Position.Y = 240
	if err := c.Serialize(&Measurer{}, spec); !errors.Is(err, ErrRange) {
		t.Errorf("y = 240: err = %v, want ErrRange", err)
	}
}

func TestBodyStateTruncated(t *testing.T) {
	spec := DefaultStateSpec()
	rng := rand.New(rand.NewPCG(15, 16))
	for range 20 {
		c := randomBodyState(rng)
		w := NewWriter(make([]byte, 64))
		if err := c.Serialize(w, spec); err != nil {
			t.Fatal(err)
		}
		for n := range len(w.Bytes()) {
			var got BodyState
			if err := got.Serialize(NewReader(w.Bytes()[:n]), spec); !errors.Is(err, ErrTruncated) {
				t.Fatalf("cut to %d bytes: err = %v", n, err)
			}
		}
	}
}

func TestBoundsClamp(t *testing.T) {
	b := DefaultStateSpec().Position
	got := b.Clamp(vecmath.V3(1e6, -1e6, 3))
	if got != vecmath.V3(b.Max.X, b.Min.Y, 3) {
		t.Fatalf("Clamp = %v", got)
	}
	if _, err := b.Quantize(got); err != nil {
		t.Fatalf("clamped value does not quantize: %v", err)
	}
	if nan := b.Clamp(vecmath.V3(math.NaN(), 0, 0)); !math.IsNaN(nan.X) {
		t.Fatalf("Clamp turned NaN into %v; it must stay rejectable", nan.X)
	}
}
