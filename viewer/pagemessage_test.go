package viewer

import (
	"errors"
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
	}
	for _, tt := range tests {
		got, err := ParsePageMessage([]byte(tt.msg))
		if err != nil || got != tt.want {
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
	} {
		if m, err := ParsePageMessage([]byte(msg)); !errors.Is(err, ErrPageMessage) {
			t.Errorf("ParsePageMessage(%.40q) = %+v, %v; want ErrPageMessage", msg, m, err)
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
	for in := range keyBits + 1 {
		msg := AppendInput(nil, in)
		if len(msg) > MaxPageMessage {
			t.Errorf("%v: %d bytes", in, len(msg))
		}
		got, err := ParsePageMessage(msg)
		if err != nil || got != (PageMessage{Type: PageInput, Keys: in}) {
			t.Errorf("ParsePageMessage(%s) = %+v, %v; want input %v", msg, got, err, in)
		}
	}
	for _, seq := range []FrameSeq{0, 1, 1 << 31, 1<<32 - 1} {
		got, err := ParsePageMessage(AppendAck(nil, seq))
		if err != nil || got != (PageMessage{Type: PageAck, Seq: seq}) {
			t.Errorf("ack %d parses as %+v, %v", seq, got, err)
		}
	}
}

// FuzzParsePageMessage checks that an accepted message means what its
// canonical encoding means, and that nothing panics.
func FuzzParsePageMessage(f *testing.F) {
	for _, in := range []Input{0, KeyLeft, KeyUp | KeyZ, keyBits} {
		f.Add(AppendInput(nil, in))
	}
	f.Add(AppendAck(nil, 17))
	f.Add([]byte(`{"type":"input","keys":["left","left"]}`))
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
			canonical = AppendInput(nil, m.Keys)
		case PageAck:
			if m.Keys != 0 {
				t.Fatalf("ack %+v with keys", m)
			}
			canonical = AppendAck(nil, m.Seq)
		default:
			t.Fatalf("accepted message of type %d", m.Type)
		}
		again, err := ParsePageMessage(canonical)
		if err != nil || again != m {
			t.Fatalf("canonical form %s of %+v parses as %+v, %v", canonical, m, again, err)
		}
	})
}
