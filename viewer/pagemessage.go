package viewer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// A page sends two kinds of text message, JSON objects told apart by
// "type":
//
//	{"type":"input","keys":["left","space"]}   on every key or button change, and every inputResendMs
//	{"type":"input","keys":[],"pointer":{"from":[0,9.8,24],"dir":[0,-0.6,-0.8],"lift":0,"grip":true}}
//	{"type":"ack","seq":17}                      on receiving binary frame 17
//
// keys lists the held keys, each at most once, from left, right, up, down,
// space, z. pointer, optional (null is the same as none), is the mouse
// (Pointer): a page sends it with every input message once the mouse
// moved over the views, and an input at most once a frame while the mouse
// moves; a world whose player does not point (the cube world) ignores it.
// The acks are the flow control: the server keeps at most
// Config.FramesInFlight frames unacknowledged per page, so a page that
// draws slowly gets the newest frame when it is ready for one, not a
// frame that waited seconds in the socket buffers.

// MaxPageMessage is the longest message a page may send, in bytes. An
// input with all six keys and a pointer whose numbers the page rounds (to
// the millimetre, the direction to 1e-4) takes under 200; the rest is room
// for numbers written in full and for whitespace.
const MaxPageMessage = 512

// ErrPageMessage reports a page message that breaks the protocol; the
// server closes the connection with it as the reason.
var ErrPageMessage = errors.New("viewer: bad page message")

// PageMessageType tells the messages of a page apart.
type PageMessageType uint8

const (
	PageInput PageMessageType = iota + 1 // the keys held and the mouse
	PageAck                              // a frame received
)

// PageMessage is one message from a page.
type PageMessage struct {
	Type    PageMessageType
	Keys    Input    // for PageInput
	Pointer *Pointer // for PageInput: the mouse, nil when the page sent none
	Seq     FrameSeq // for PageAck
}

type pageMessageJSON struct {
	Type    string       `json:"type"`
	Keys    *[]string    `json:"keys"`
	Pointer *pointerJSON `json:"pointer"`
	Seq     *uint32      `json:"seq"`
}

// pointerJSON is a Pointer as a page writes it; every field is required.
// The vectors are slices, not arrays, so that a wrong length is an error
// rather than silently cut or padded (MaxPageMessage bounds them), of
// pointers, so that a null is an error rather than a zero.
type pointerJSON struct {
	From []*float64 `json:"from"`
	Dir  []*float64 `json:"dir"`
	Lift *float64   `json:"lift"`
	Grip *bool      `json:"grip"`
}

func (j *pointerJSON) pointer() (*Pointer, error) {
	if j.From == nil || j.Dir == nil || j.Lift == nil || j.Grip == nil {
		return nil, fmt.Errorf("%w: a pointer has from, dir, lift and grip", ErrPageMessage)
	}
	p := &Pointer{Lift: *j.Lift, Grip: *j.Grip}
	for _, v := range []struct {
		dst *[3]float64
		src []*float64
	}{{&p.From, j.From}, {&p.Dir, j.Dir}} {
		if len(v.src) != 3 {
			return nil, fmt.Errorf("%w: pointer from and dir have three numbers each", ErrPageMessage)
		}
		for i, x := range v.src {
			if x == nil {
				return nil, fmt.Errorf("%w: null in a pointer vector", ErrPageMessage)
			}
			v.dst[i] = *x
		}
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// ParsePageMessage reads a message from a page. It rejects messages longer
// than MaxPageMessage, unknown types and fields, fields of the other type,
// unknown or repeated keys, a pointer with a missing field, a coordinate
// beyond MaxPointerCoord or a direction that is not a unit vector, and
// trailing data. JSON has no NaN or infinity, and a number beyond float64
// is an error, so an accepted pointer is finite.
func ParsePageMessage(b []byte) (PageMessage, error) {
	if len(b) > MaxPageMessage {
		return PageMessage{}, fmt.Errorf("%w: %d bytes, at most %d", ErrPageMessage, len(b), MaxPageMessage)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m pageMessageJSON
	if err := dec.Decode(&m); err != nil {
		return PageMessage{}, fmt.Errorf("%w: %w", ErrPageMessage, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return PageMessage{}, fmt.Errorf("%w: data after the message", ErrPageMessage)
	}
	switch m.Type {
	case "input":
		if m.Keys == nil || m.Seq != nil {
			return PageMessage{}, fmt.Errorf("%w: an input has keys and no seq", ErrPageMessage)
		}
		in, err := parseKeys(*m.Keys)
		if err != nil {
			return PageMessage{}, err
		}
		msg := PageMessage{Type: PageInput, Keys: in}
		if m.Pointer != nil {
			if msg.Pointer, err = m.Pointer.pointer(); err != nil {
				return PageMessage{}, err
			}
		}
		return msg, nil
	case "ack":
		if m.Seq == nil || m.Keys != nil || m.Pointer != nil {
			return PageMessage{}, fmt.Errorf("%w: an ack has a seq and no keys or pointer", ErrPageMessage)
		}
		return PageMessage{Type: PageAck, Seq: FrameSeq(*m.Seq)}, nil
	}
	return PageMessage{}, fmt.Errorf("%w: type %q", ErrPageMessage, m.Type)
}

func parseKeys(names []string) (Input, error) {
	var in Input
	for _, name := range names {
		k := keyByName(name)
		if k == 0 {
			return 0, fmt.Errorf("%w: unknown key %q", ErrPageMessage, name)
		}
		if in&k != 0 {
			return 0, fmt.Errorf("%w: key %q twice", ErrPageMessage, name)
		}
		in |= k
	}
	return in, nil
}

// AppendInput appends the input message a page sends for in and, when p
// is not nil, its pointer. Bits beyond the keys are left out.
func AppendInput(b []byte, in Input, p *Pointer) []byte {
	b = append(b, `{"type":"input","keys":[`...)
	first := true
	for i, name := range keyNames {
		if in&(1<<i) == 0 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"')
	}
	b = append(b, ']')
	if p != nil {
		b = append(b, `,"pointer":`...)
		b = appendPointer(b, p)
	}
	return append(b, '}')
}

// AppendAck appends the message a page sends on receiving frame seq.
func AppendAck(b []byte, seq FrameSeq) []byte {
	b = append(b, `{"type":"ack","seq":`...)
	b = strconv.AppendUint(b, uint64(seq), 10)
	return append(b, '}')
}
