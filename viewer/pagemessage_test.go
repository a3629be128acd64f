package viewer

import (
	"errors"
	"math"
	"strings"
	"testing"
)

const keyBits = KeyZ<<1 - 1 // every key bit

func TestParsePageMessage(t *testing.T) {
	tests := []struct {
		msg  string
		want PageMessage
	}{
		{`{"type":"input","keys":[]}`, PageMessage{Type: PageInput}},
		{`{"type":"input","keys":["left"]}`, PageMessage{Type: PageInput, Keys: KeyLeft}},
		{`{"type":"input","keys":["up","space","z"]}`, PageMessage{Type: PageInput, Keys: KeyUp | KeySpace | KeyZ}},
		{`{"keys":["right","down"],"type":"input"}`, PageMessage{Type: PageInput, Keys: KeyRight | KeyDown}},
		{" \n{ \"type\" : \"input\", \"keys\" : [ \"left\" , \"right\" ] }\n", PageMessage{Type: PageInput, Keys: KeyLeft | KeyRight}},
		{`{"type":"input","keys":["left","right","up","down","space","z"]}`, PageMessage{Type: PageInput, Keys: keyBits}},
		{`{"type":"ack","seq":17}`, PageMessage{Type: PageAck, Seq: 17}},
		{`{"type":"ack","seq":4294967295}`, PageMessage{Type: PageAck, Seq: 4294967295}},
		{`{"type":"input","keys":["z"],"pointer":{"from":[0,9.8,24],"dir":[0,-0.6,-0.8],"lift":0.5,"grip":true}}`,
			PageMessage{Type: PageInput, Keys: KeyZ, Pointer: &Pointer{From: [3]float64{0, 9.8, 24}, Dir: [3]float64{0, -0.6, -0.8}, Lift: 0.5, Grip: true}}},
		{`{"pointer":{"grip":false,"lift":-1,"dir":[1,0,0],"from":[-1000,1000,0]},"keys":[],"type":"input"}`,
			PageMessage{Type: PageInput, Pointer: &Pointer{From: [3]float64{-1000, 1000, 0}, Dir: [3]float64{1, 0, 0}, Lift: -1}}},
		{`{"type":"input","keys":[],"pointer":null}`, PageMessage{Type: PageInput}}, // as if left out
		{`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0.001,-1.009,0],"lift":1e-400,"grip":false}}`, // rounded, near unit, an underflow is 0
			PageMessage{Type: PageInput, Pointer: &Pointer{Dir: [3]float64{0.001, -1.009, 0}}}},
	}
	for _, tt := range tests {
		got, err := ParsePageMessage([]byte(tt.msg))
		if err != nil || !samePageMessage(got, tt.want) {
			t.Errorf("ParsePageMessage(%s) = %+v, %v; want %+v", tt.msg, got, err, tt.want)
		}
	}
}

func TestParsePageMessageRejects(t *testing.T) {
	for _, msg := range []string{
		``,
		`null`,
		`[]`,
		`{}`,
		`{"type":"input"}`,
		`{"type":"input","keys":null}`,
		`{"type":"input","keys":[],"seq":1}`,
		`{"type":"figures","keys":[]}`,
		`{"type":"input","keys":["left","left"]}`,
		`{"type":"input","keys":["Left"]}`,
		`{"type":"input","keys":["jump"]}`,
		`{"type":"input","keys":[1]}`,
		`{"type":"input","keys":"left"}`,
		`{"type":"input","keys":[],"extra":1}`,
		`{"type":"input","keys":[]} {}`,
		`{"type":"input","keys":[]}x`,
		`{"type":"input","keys":[`,
		`{"type":"ack"}`,
		`{"type":"ack","seq":-1}`,
		`{"type":"ack","seq":1.5}`,
		`{"type":"ack","seq":4294967296}`,
		`{"type":"ack","seq":1,"keys":[]}`,
		`{"type":"input","keys":[]` + strings.Repeat(" ", MaxPageMessage) + `}`,
		// pointers: missing or extra fields, wrong lengths and types,
		// out of bounds, not a unit direction, not finite, misplaced
		`{"type":"input","keys":[],"pointer":{}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,-1,0],"lift":0}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,-1,0],"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"dir":[0,-1,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,-1,0],"lift":0,"grip":false,"x":1}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0],"dir":[0,-1,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0,0],"dir":[0,-1,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,-1],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,-1,0,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,-1,0],"lift":0,"grip":1}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,-1,0],"lift":"0","grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":["0",0,0],"dir":[0,-1,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,-1,null],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[1000.001,0,0],"dir":[0,-1,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,-2000,0],"dir":[0,-1,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,-1,0],"lift":1001,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,1e400],"dir":[0,-1,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,0,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,-2,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0.5,-0.5,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[1e200,1e200,0],"lift":0,"grip":false}}`,
		`{"type":"input","keys":[],"pointer":{"from":[0,0,0],"dir":[0,-1,0],"lift":NaN,"grip":false}}`,
		`{"type":"ack","seq":1,"pointer":{"from":[0,0,0],"dir":[0,-1,0],"lift":0,"grip":false}}`,
	} {
		if m, err := ParsePageMessage([]byte(msg)); !errors.Is(err, ErrPageMessage) {
			t.Errorf("ParsePageMessage(%q) = %+v, %v; want ErrPageMessage", msg, m, err)
		}
	}
}

func TestInputString(t *testing.T) {
	if s := (KeyLeft | KeySpace).String(); s != "left+space" {
		t.Errorf("String = %q", s)
	}
	if s := Input(0).String(); s != "none" {
		t.Errorf("String = %q", s)
	}
}

// TestInputBitsMatchScene pins the bit order that the demo relies on to
// convert with scene.InputFromBits.
func TestInputBitsMatchScene(t *testing.T) {
	for i, k := range []Input{KeyLeft, KeyRight, KeyUp, KeyDown, KeySpace, KeyZ} {
		if k != 1<<i {
			t.Errorf("key %d is bit %#x, want %#x", i, uint8(k), 1<<i)
		}
	}
}

func TestAppendPageMessages(t *testing.T) {
	// The longest pointer a page sends: every coordinate at its bound
	// with the page's rounding, and a direction written in full.
	long := &Pointer{From: [3]float64{-999.999, -999.999, -999.999}, Dir: [3]float64{-0.5773502691896258, -0.5773502691896258, -0.5773502691896258}, Lift: -999.999, Grip: true}
	for in := range keyBits + 1 {
		for _, p := range []*Pointer{nil, long} {
			msg := AppendInput(nil, in, p)
			if len(msg) > MaxPageMessage {
				t.Errorf("%v: %d bytes", in, len(msg))
			}
			got, err := ParsePageMessage(msg)
			if want := (PageMessage{Type: PageInput, Keys: in, Pointer: p}); err != nil || !samePageMessage(got, want) {
				t.Errorf("ParsePageMessage(%s) = %+v, %v; want %+v", msg, got, err, want)
			}
		}
	}
	for _, seq := range []FrameSeq{0, 1, 1 << 31, 1<<32 - 1} {
		got, err := ParsePageMessage(AppendAck(nil, seq))
		if err != nil || got != (PageMessage{Type: PageAck, Seq: seq}) {
			t.Errorf("ack %d parses as %+v, %v", seq, got, err)
		}
	}
}

// samePageMessage compares two messages, their pointers by value.
func samePageMessage(a, b PageMessage) bool {
	if (a.Pointer == nil) != (b.Pointer == nil) || (a.Pointer != nil && *a.Pointer != *b.Pointer) {
		return false
	}
	a.Pointer, b.Pointer = nil, nil
	return a == b
}

// FuzzParsePageMessage checks that an accepted message means what its
// canonical encoding means, that an accepted pointer is within its
// bounds, and that nothing panics.
func FuzzParsePageMessage(f *testing.F) {
	ptr := &Pointer{From: [3]float64{0, 9.8, 24}, Dir: [3]float64{0, -0.6, -0.8}, Lift: 0.5, Grip: true}
	for _, in := range []Input{0, KeyLeft, KeyUp | KeyZ, keyBits} {
		f.Add(AppendInput(nil, in, nil))
		f.Add(AppendInput(nil, in, ptr))
	}
	f.Add(AppendAck(nil, 17))
	f.Add([]byte(`{"type":"input","keys":["left","left"]}`))
	f.Add([]byte(`{"type":"input","keys":[],"pointer":{"from":[0,0,1e400],"dir":[0,-1,0],"lift":0,"grip":false}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParsePageMessage(b)
		if err != nil {
			return
		}
		var canonical []byte
		switch m.Type {
		case PageInput:
			if m.Keys&^keyBits != 0 || m.Seq != 0 {
				t.Fatalf("input %+v beyond the keys", m)
			}
			if p := m.Pointer; p != nil {
				for _, v := range [...]float64{p.From[0], p.From[1], p.From[2], p.Lift} {
					if !(math.Abs(v) <= MaxPointerCoord) {
						t.Fatalf("pointer %+v beyond its bounds", *p)
					}
				}
				if l := math.Sqrt(p.Dir[0]*p.Dir[0] + p.Dir[1]*p.Dir[1] + p.Dir[2]*p.Dir[2]); !(math.Abs(l-1) <= dirTolerance) {
					t.Fatalf("pointer direction %v of length %v", p.Dir, l)
				}
			}
			canonical = AppendInput(nil, m.Keys, m.Pointer)
		case PageAck:
			if m.Keys != 0 || m.Pointer != nil {
				t.Fatalf("ack %+v with keys or a pointer", m)
			}
			canonical = AppendAck(nil, m.Seq)
		default:
			t.Fatalf("accepted message of type %d", m.Type)
		}
		again, err := ParsePageMessage(canonical)
		if err != nil || !samePageMessage(again, m) {
			t.Fatalf("canonical form %s of %+v parses as %+v, %v", canonical, m, again, err)
		}
	})
}
