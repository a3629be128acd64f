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
//	{"type":"input","keys":["left","space"]}   on every key change and every inputResendMs
//	{"type":"ack","seq":17}                      on receiving binary frame 17
//
// keys lists the held keys, each at most once, from left, right, up, down,
// space, z. The acks are the flow control: the server keeps at most
// Config.FramesInFlight frames unacknowledged per page, so a page that
// draws slowly gets the newest frame when it is ready for one, not a
// frame that waited seconds in the socket buffers.

// MaxPageMessage is the longest message a page may send, in bytes. The
// longest valid one, an input with all six keys, is 70 bytes; the rest is
// room for whitespace.
const MaxPageMessage = 256

// ErrPageMessage reports a page message that breaks the protocol; the
// server closes the connection with it as the reason.
var ErrPageMessage = errors.New("viewer: bad page message")

// PageMessageType tells the messages of a page apart.
type PageMessageType uint8

const (
	PageInput PageMessageType = iota + 1 // the keys held
	PageAck                              // a frame received
)

// PageMessage is one message from a page.
type PageMessage struct {
	Type PageMessageType
	Keys Input    // for PageInput
	Seq  FrameSeq // for PageAck
}

type pageMessageJSON struct {
	Type string    `json:"type"`
	Keys *[]string `json:"keys"`
	Seq  *uint32   `json:"seq"`
}

// ParsePageMessage reads a message from a page. It rejects messages longer
// than MaxPageMessage, unknown types and fields, fields of the other type,
// unknown or repeated keys, and trailing data.
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
		return PageMessage{Type: PageInput, Keys: in}, err
	case "ack":
		if m.Seq == nil || m.Keys != nil {
			return PageMessage{}, fmt.Errorf("%w: an ack has a seq and no keys", ErrPageMessage)
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

// AppendInput appends the input message a page sends for in. Bits beyond
// the keys are left out.
func AppendInput(b []byte, in Input) []byte {
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
	return append(b, "]}"...)
}

// AppendAck appends the message a page sends on receiving frame seq.
func AppendAck(b []byte, seq FrameSeq) []byte {
	b = append(b, `{"type":"ack","seq":`...)
	b = strconv.AppendUint(b, uint64(seq), 10)
	return append(b, '}')
}
