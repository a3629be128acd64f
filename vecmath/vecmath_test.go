package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestTrigMatchesStdlib(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		x := (rng.Float64() - 0.5) * 200
		s, c := SinCos(x)
		if d := math.Abs(s - math.Sin(x)); d > 1e-14 {
			t.Fatalf("Sin(%v) = %v, want %v", x, s, math.Sin(x))
		}
		if d := math.Abs(c - math.Cos(x)); d > 1e-14 {
			t.Fatalf("Cos(%v) = %v, want %v", x, c, math.Cos(x))
		}
		y := (rng.Float64() - 0.5) * 20
		if d := math.Abs(Atan2(y, x) - math.Atan2(y, x)); d > 1e-14 {
			t.Fatalf("Atan2(%v, %v) = %v, want %v", y, x, Atan2(y, x), math.Atan2(y, x))
		}
		a := rng.Float64()*2 - 1
		if d := math.Abs(Acos(a) - math.Acos(a)); d > 1e-7 {
			t.Fatalf("Acos(%v) = %v, want %v", a, Acos(a), math.Acos(a))
		}
	}
	if s, c := SinCos(math.NaN()); !math.IsNaN(s) || !math.IsNaN(c) {
		t.Fatal("SinCos(NaN) is not NaN")
	}
}

func TestQuatRotateMatchesMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 1000; i++ {
		axis, _ := V3(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()).Normalize()
		q := QuatAxisAngle(axis, rng.Float64()*10)
		v := V3(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64())
		m := QuatToMat3(q)
		a, b := q.Rotate(v), m.MulVec(v)
		if a.Sub(b).Length() > 1e-12 {
			t.Fatalf("Rotate %v, matrix %v", a, b)
		}
		if back := q.InvRotate(a); back.Sub(v).Length() > 1e-12 {
			t.Fatalf("InvRotate(Rotate(v)) = %v, want %v", back, v)
		}
		if ang := q.Angle(QuatIdentity); math.Abs(math.Cos(ang/2)-math.Abs(q.W)) > 1e-9 {
			t.Fatalf("Angle %v does not match W %v", ang, q.W)
		}
	}
}

func TestMat3Inverse(t *testing.T) {
	m := Mat3{V3(2, 1, 0), V3(0, 3, 1), V3(1, 0, 4)}
	id := m.Mul(m.Inverse())
	want := Diag(V3(1, 1, 1))
	for _, d := range []Vec3{id.C0.Sub(want.C0), id.C1.Sub(want.C1), id.C2.Sub(want.C2)} {
		if d.Length() > 1e-12 {
			t.Fatalf("m·m⁻¹ = %v", id)
		}
	}
	if (Mat3{}).Inverse() != (Mat3{}) {
		t.Fatal("singular inverse is not zero")
	}
}

func TestTransformInverse(t *testing.T) {
	tr := Transform{Pos: V3(1, 2, 3), Rot: QuatAxisAngle(V3(0, 1, 0), 0.7)}
	p := V3(-4, 5, 0.5)
	if got := tr.ApplyInv(tr.Apply(p)); got.Sub(p).Length() > 1e-12 {
		t.Fatalf("ApplyInv(Apply(p)) = %v", got)
	}
	if got := tr.Inverse().Apply(tr.Apply(p)); got.Sub(p).Length() > 1e-12 {
		t.Fatalf("Inverse().Apply(Apply(p)) = %v", got)
	}
}

func TestPerpendicularIsOrthonormal(t *testing.T) {
	for _, n := range []Vec3{V3(0, 1, 0), V3(0, 0, -1), V3(0.6, 0, -0.8), V3(1, 0, 0)} {
		t1, t2 := Perpendicular(n)
		if math.Abs(t1.Dot(n)) > 1e-12 || math.Abs(t2.Dot(n)) > 1e-12 || math.Abs(t1.Dot(t2)) > 1e-12 {
			t.Fatalf("basis of %v not orthogonal: %v %v", n, t1, t2)
		}
		if t1.Cross(t2).Sub(n).Length() > 1e-12 {
			t.Fatalf("basis of %v not right-handed", n)
		}
	}
}
