package viewer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

// sampleViews is a frame with every feature of the encoding: two views, a
// player, each flag, owners from the smallest to MaxOwner, a rotated cube,
// a name with non-ASCII UTF-8, an empty view.
func sampleViews() []View {
	return []View{
		{Name: "authority", Cubes: []Cube{
			{ID: 0, Position: [3]float32{1, 0.75, -2}, Rotation: [4]float32{0, 0, 0, 1}, HalfExtents: [3]float32{0.75, 0.75, 0.75}, Player: true, Interacting: true},
			{ID: 1, Position: [3]float32{3.5, 0.5, 4}, Rotation: [4]float32{0, 0.38268343, 0, 0.9238795}, HalfExtents: [3]float32{0.5, 0.5, 0.5}, Interacting: true, Owner: 1},
			{ID: 2, Position: [3]float32{-7, 0.5, 1e-3}, Rotation: [4]float32{0.5, 0.5, 0.5, 0.5}, HalfExtents: [3]float32{0.5, 0.25, 1}, AtRest: true},
			{ID: 3, Position: [3]float32{0, 1, 0}, Rotation: [4]float32{0, 0, 0, 1}, HalfExtents: [3]float32{0.1, 0.1, 0.1}, Player: true, Owner: MaxOwner},
		}},
		{Name: "remote · 100 ms", Cubes: []Cube{
			{ID: 0xFFFFFFFF, Position: [3]float32{float32(math.Inf(1)), -0, 0}, Rotation: [4]float32{0, 0, 0, 1}},
		}, Facing: [2]float32{0.6, -0.8}},
		{Name: "", Overview: true},
	}
}

func TestFrameRoundTrip(t *testing.T) {
	views := sampleViews()
	b, err := AppendFrame(nil, 42, views)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != FrameSize(views) {
		t.Errorf("encoded %d bytes, FrameSize says %d", len(b), FrameSize(views))
	}
	seq, got, err := DecodeFrame(b)
	if err != nil {
		t.Fatal(err)
	}
	if seq != 42 {
		t.Errorf("seq %d, want 42", seq)
	}
	if len(got) != len(views) {
		t.Fatalf("%d views, want %d", len(got), len(views))
	}
	for i := range views {
		if got[i].Name != views[i].Name || len(got[i].Cubes) != len(views[i].Cubes) || got[i].Facing != views[i].Facing || got[i].Overview != views[i].Overview {
			t.Fatalf("view %d: got %q with %d cubes, want %q with %d", i, got[i].Name, len(got[i].Cubes), views[i].Name, len(views[i].Cubes))
		}
		for j := range views[i].Cubes {
			if got[i].Cubes[j] != views[i].Cubes[j] {
				t.Errorf("view %d cube %d: got %+v, want %+v", i, j, got[i].Cubes[j], views[i].Cubes[j])
			}
		}
	}
}

// TestFrameLayout pins the bytes of one cube, so that the page's decoder
// (static/viewer.js), which reads the same offsets, cannot drift silently.
func TestFrameLayout(t *testing.T) {
	c := Cube{ID: 7, Position: [3]float32{1, 2, 3}, Rotation: [4]float32{4, 5, 6, 7}, HalfExtents: [3]float32{8, 9, 10}, Interacting: true, AtRest: true, Owner: 5}
	b, err := AppendFrame(nil, 0x01020304, []View{{Name: "ab", Cubes: []Cube{c}, Facing: [2]float32{-1, 0}, Overview: true}})
	if err != nil {
		t.Fatal(err)
	}
	head := []byte{FrameVersion, 1, 0, 0, 4, 3, 2, 1, 2, 'a', 'b', 1, 0, 0, 0, 0, 0, 0x80, 0xbf, 0, 0, 0, 0, viewOverview}
	if !bytes.Equal(b[:len(head)], head) {
		t.Fatalf("header and view: % x, want % x", b[:len(head)], head)
	}
	cube := b[len(head):]
	if len(cube) != cubeBytes {
		t.Fatalf("cube takes %d bytes, want %d", len(cube), cubeBytes)
	}
	u32 := func(off int) uint32 { return binary.LittleEndian.Uint32(cube[off:]) }
	if u32(0) != 7 {
		t.Errorf("id at 0: %d", u32(0))
	}
	for i, want := range []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10} {
		if got := math.Float32frombits(u32(4 + 4*i)); got != want {
			t.Errorf("float at %d: %g, want %g", 4+4*i, got, want)
		}
	}
	if u32(44) != flagInteracting|flagAtRest|5<<3 {
		t.Errorf("flags at 44: %#x", u32(44))
	}
}

func TestFrameTruncated(t *testing.T) {
	b, err := AppendFrame(nil, 9, sampleViews())
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(b) {
		if _, _, err := DecodeFrame(b[:n]); !errors.Is(err, ErrTruncated) {
			t.Errorf("cut at %d of %d bytes: err %v, want ErrTruncated", n, len(b), err)
		}
	}
}

func TestFrameRejects(t *testing.T) {
	good, err := AppendFrame(nil, 1, sampleViews())
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	firstFlags := headerBytes + len("authority") + viewFixed + 44
	secondFacing := headerBytes + len("authority") + viewFixed + 4*cubeBytes + 1 + len("remote · 100 ms") + 4
	secondViewFlags := secondFacing + facingBytes
	tests := []struct {
		name string
		b    []byte
		want error
	}{
		{"version", mutate(func(b []byte) []byte { b[0] = FrameVersion + 1; return b }), ErrFrameVersion},
		{"old version", mutate(func(b []byte) []byte { b[0] = 1; return b }), ErrFrameVersion},
		{"too many views", mutate(func(b []byte) []byte { b[1] = MaxViews + 1; return b }), ErrLimit},
		{"reserved", mutate(func(b []byte) []byte { b[3] = 1; return b }), ErrMalformed},
		{"undefined flag", mutate(func(b []byte) []byte { b[firstFlags] |= 1 << 6; return b }), ErrMalformed},
		{"undefined high flag", mutate(func(b []byte) []byte { b[firstFlags+3] |= 0x80; return b }), ErrMalformed},
		{"trailing byte", append(bytes.Clone(good), 0), ErrMalformed},
		{"undefined view flag", mutate(func(b []byte) []byte { b[secondViewFlags] |= 1 << 1; return b }), ErrMalformed},
		{"facing not unit", mutate(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[secondFacing:], math.Float32bits(0.5))
			return b
		}), ErrMalformed},
		{"facing NaN", mutate(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[secondFacing+4:], math.Float32bits(float32(math.NaN())))
			return b
		}), ErrMalformed},
		{"long name", mutate(func(b []byte) []byte { b[headerBytes] = MaxViewName + 1; return b }), ErrLimit},
		{"bad UTF-8 name", mutate(func(b []byte) []byte { b[headerBytes+1] = 0xff; return b }), ErrMalformed},
		// A count announcing 4 billion cubes must not allocate them.
		{"huge count", mutate(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[headerBytes+1+len("authority"):], math.MaxUint32)
			return b
		}), ErrLimit},
		{"count beyond the bytes", mutate(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[headerBytes+1+len("authority"):], MaxCubes)
			return b
		}), ErrTruncated},
	}
	for _, tt := range tests {
		if _, _, err := DecodeFrame(tt.b); !errors.Is(err, tt.want) {
			t.Errorf("%s: err %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestAppendFrameLimits(t *testing.T) {
	tests := []struct {
		name  string
		views []View
	}{
		{"too many views", make([]View, MaxViews+1)},
		{"long name", []View{{Name: strings.Repeat("x", MaxViewName+1)}}},
		{"bad UTF-8 name", []View{{Name: "\xff"}}},
		{"too many cubes", []View{{Cubes: make([]Cube, MaxCubes+1)}}},
		{"owner beyond three bits", []View{{Cubes: []Cube{{Owner: MaxOwner + 1}}}}},
		{"facing not unit", []View{{Facing: [2]float32{1, 1}}}},
		{"facing infinite", []View{{Facing: [2]float32{float32(math.Inf(1)), 0}}}},
	}
	for _, tt := range tests {
		b, err := AppendFrame([]byte("keep"), 1, tt.views)
		if !errors.Is(err, ErrLimit) {
			t.Errorf("%s: err %v, want ErrLimit", tt.name, err)
		}
		if string(b) != "keep" {
			t.Errorf("%s: the buffer was changed on error: %q", tt.name, b)
		}
	}
	if _, err := AppendFrame(nil, 1, []View{{Name: strings.Repeat("é", MaxViewName/2), Cubes: make([]Cube, MaxCubes)}}); err != nil {
		t.Errorf("a frame at the limits: %v", err)
	}
}

// FuzzDecodeFrame checks that any message the decoder accepts re-encodes to
// the same bytes, and that nothing panics.
func FuzzDecodeFrame(f *testing.F) {
	for _, views := range [][]View{sampleViews(), nil, {{Name: "a"}}} {
		b, err := AppendFrame(nil, 3, views)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{FrameVersion, 1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		seq, views, err := DecodeFrame(b)
		if err != nil {
			return
		}
		again, err := AppendFrame(nil, seq, views)
		if err != nil {
			t.Fatalf("decoded frame does not encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoded\n% x\nwant\n% x", again, b)
		}
		if FrameSize(views) != len(b) {
			t.Fatalf("FrameSize %d, message %d bytes", FrameSize(views), len(b))
		}
	})
}
