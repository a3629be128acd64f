package collide

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/netphys/netphys/vecmath"
)

// fuzzInput decodes a fuzzer's bytes as numbers, zeros once the bytes run
// out. If the first byte is even, each number is a raw float64 (8 bytes),
// so every bit pattern (NaN, ±Inf, huge, subnormal) reaches the geometry;
// if it is odd, each is an int16 in 1/1024 m (2 bytes), so that most
// inputs are sane scenes of up to ±32 m, zero sizes and coincident shapes
// included, where the outputs are checked.
type fuzzInput struct {
	b       []byte
	compact bool
}

func newFuzzInput(data []byte) *fuzzInput {
	if len(data) == 0 {
		return &fuzzInput{}
	}
	return &fuzzInput{b: data[1:], compact: data[0]&1 != 0}
}

func (in *fuzzInput) float() float64 {
	if in.compact {
		if len(in.b) < 2 {
			in.b = nil
			return 0
		}
		v := int16(binary.LittleEndian.Uint16(in.b))
		in.b = in.b[2:]
		return float64(v) / 1024
	}
	if len(in.b) < 8 {
		in.b = nil
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(in.b))
	in.b = in.b[8:]
	return v
}

func (in *fuzzInput) vec() vecmath.Vec3 { return vecmath.V3(in.float(), in.float(), in.float()) }

func (in *fuzzInput) shape() *Shape {
	k := Kind(uint64(math.Abs(in.float())) % 4)
	return &Shape{Kind: k, HalfExtents: in.vec(), Radius: in.float(), HalfHeight: in.float()}
}

func (in *fuzzInput) pose() vecmath.Transform {
	return vecmath.Transform{Pos: in.vec(), Rot: vecmath.Quat{X: in.float(), Y: in.float(), Z: in.float(), W: in.float()}}
}

// fuzzCase is one decoded input: two shapes, their poses, a margin and a
// ray or sweep.
type fuzzCase struct {
	a, b         *Shape
	xa, xb       vecmath.Transform
	margin       float64
	origin, move vecmath.Vec3
}

func decodeFuzz(data []byte) fuzzCase {
	in := newFuzzInput(data)
	var c fuzzCase
	c.a, c.xa = in.shape(), in.pose()
	c.b, c.xb = in.shape(), in.pose()
	c.margin = in.float()
	c.origin, c.move = in.vec(), in.vec()
	return c
}

// encodeFuzz writes c in the raw form of fuzzInput.
func encodeFuzz(c fuzzCase) []byte {
	b := []byte{0}
	put := func(vs ...float64) {
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	for _, s := range []struct {
		s  *Shape
		xf vecmath.Transform
	}{{c.a, c.xa}, {c.b, c.xb}} {
		h, p, q := s.s.HalfExtents, s.xf.Pos, s.xf.Rot
		put(float64(s.s.Kind), h.X, h.Y, h.Z, s.s.Radius, s.s.HalfHeight, p.X, p.Y, p.Z, q.X, q.Y, q.Z, q.W)
	}
	put(c.margin, c.origin.X, c.origin.Y, c.origin.Z, c.move.X, c.move.Y, c.move.Z)
	return b
}

// sane reports whether the case is one a game can produce: finite values of
// at most 10 km and non-zero rotations (which it then normalizes).
func (c *fuzzCase) sane() bool {
	ok := func(vs ...float64) bool {
		for _, v := range vs {
			if !(math.Abs(v) <= 1e4) {
				return false
			}
		}
		return true
	}
	for _, s := range []*Shape{c.a, c.b} {
		if !ok(s.HalfExtents.X, s.HalfExtents.Y, s.HalfExtents.Z, s.Radius, s.HalfHeight) {
			return false
		}
	}
	for _, xf := range []*vecmath.Transform{&c.xa, &c.xb} {
		q := xf.Rot
		if !ok(xf.Pos.X, xf.Pos.Y, xf.Pos.Z, q.X, q.Y, q.Z, q.W) || !(q.Dot(q) > 1e-6) {
			return false
		}
		xf.Rot = q.Normalize()
	}
	return ok(c.origin.X, c.origin.Y, c.origin.Z, c.move.X, c.move.Y, c.move.Z, c.margin)
}

func FuzzQueries(f *testing.F) {
	cube := box(0.5, 0.5, 0.5)
	seeds := []fuzzCase{
		{cube, cube, at(0, 0, 0), at(0, 0.999, 0), 0.02, vecmath.V3(0, 5, 0), vecmath.V3(0, -10, 0)},
		{cube, cube, atRot(0, 0, 0, vecmath.V3(0, 0, 1), math.Pi/4), atRot(0.1, 1.4, 0, vecmath.V3(1, 0, 0), math.Pi/4), 0.02, vecmath.V3(-3, 0.2, 0), vecmath.V3(6, 0, 0)},
		{ball(0.5), cube, at(0.3, 1.2, 0), at(0, 0, 0), 0.02, vecmath.V3(0, 3, 0), vecmath.V3(0, -3, 0)},
		{capsule(0.2, 1), cube, atRot(0, 0.69, 0, vecmath.V3(0, 0, 1), math.Pi/2), at(0, 0, 0), 0.02, vecmath.V3(2, 2, 2), vecmath.V3(-4, -4, -4)},
		{capsule(0.5, 1), capsule(0.5, 1), at(0, 0, 0), at(0.99, 0.5, 0), 0.02, vecmath.V3(-5, 0, 0), vecmath.V3(10, 0, 0)},
		{cube, ground, at(0, 0.499, 0), at(0, 0, 0), 0.02, vecmath.V3(0, 2, 0), vecmath.V3(0, -4, 0)},
		{box(0, 0, 0), box(0, 0, 0), at(0, 0, 0), at(0, 0, 0), 0, vecmath.Vec3{}, vecmath.Vec3{}},
	}
	for _, s := range seeds {
		f.Add(encodeFuzz(s))
	}
	// Compact form: two unit boxes (512/1024 m) one metre apart, rotated.
	f.Add([]byte{1, 1, 0, 0, 2, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4,
		1, 0, 0, 2, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 4, 20})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := decodeFuzz(data)
		sane := c.sane()
		var m Manifold
		Collide(c.a, c.xa, c.b, c.xb, c.margin, &m)
		if m.Count < 0 || m.Count > MaxManifoldPoints {
			t.Fatalf("count %d", m.Count)
		}
		fr, n, ok := RayCast(c.b, c.xb, c.origin, c.move)
		sf, sp, sn, sok := ShapeCast(c.a, c.xa, c.move, c.b, c.xb)
		overlap := Overlap(c.a, c.xa, c.b, c.xb)
		if !sane {
			return
		}
		if m.Count > 0 {
			if !m.Normal.IsFinite() || !near(m.Normal.Length(), 1, 1e-9) {
				t.Fatalf("normal %v", m.Normal)
			}
			for _, p := range m.Points[:m.Count] {
				if !p.Point.IsFinite() || !finite(p.Separation) || !(p.Separation < c.margin) {
					t.Fatalf("point %+v", p)
				}
			}
		}
		if ok && (!(fr >= 0 && fr <= 1) || !near(n.Length(), 1, 1e-9)) {
			t.Fatalf("ray cast %v %v", fr, n)
		}
		if sok && (!(sf >= 0 && sf <= 1) || !sp.IsFinite() || !near(sn.Length(), 1, 1e-9)) {
			t.Fatalf("shape cast %v %v %v", sf, sp, sn)
		}
		if sok && sf == 0 && !overlap && c.a.Kind != Box && c.a.Kind != Plane {
			// A sweep that hits at once starts touching.
			var w Manifold
			Collide(c.a, c.xa, c.b, c.xb, 1e-6, &w)
			if w.Count == 0 {
				t.Fatalf("cast hit at 0 without contact")
			}
		}
	})
}
