package udpdrive

import (
	"errors"
	"strconv"

	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/wire"
)

// The drivers' own messages, before and after a model's: the client's
// hello with the description of the match it was set up for, the
// server's welcome or refusal, and the bye that tells a client why the
// server is closing its connection. They travel as netcode payloads like
// a model's datagrams and are told apart by their first four bytes,
// controlMagic: a reliable.Endpoint's packets never begin with 0xFF (its
// prefix byte has its top two bits clear), and a tcpsim segment would
// have to begin 4 GB into its stream.
//
//	magic                 4 bytes: 0xFF 'N' 'P' 'C'
//	kind                  2 bits: hello, welcome, refuse, bye
//	length                8 bits, at most maxControlText
//	text                  length bytes: the description (hello), the
//	                      client's slot in its match in decimal
//	                      (welcome; empty from older servers), or the
//	                      reason (refuse, bye); UTF-8, never trusted
//	                      beyond printing
type control struct {
	kind controlKind
	text string
}

type controlKind uint8

const (
	ctlHello controlKind = iota
	ctlWelcome
	ctlRefuse
	ctlBye
)

var controlMagic = [4]byte{0xFF, 'N', 'P', 'C'}

// maxControlText bounds a control message's text in bytes.
const maxControlText = 240

// errNotControl: the payload is a model's datagram.
var errNotControl = errors.New("udpdrive: not a control message")

// isControl reports whether a payload is one of the drivers' messages.
func isControl(b []byte) bool {
	return len(b) >= len(controlMagic) && [4]byte(b[:4]) == controlMagic
}

// Serialize codes m after the magic, which the caller writes or checks.
func (m *control) Serialize(s wire.Stream) error {
	reading := s.Mode() == wire.Reading
	if err := wire.SerializeInt(s, &m.kind, ctlHello, ctlBye); err != nil {
		return err
	}
	text := []byte(m.text)
	if !reading && len(text) > maxControlText {
		text = text[:maxControlText]
	}
	n := len(text)
	if err := wire.SerializeInt(s, &n, 0, maxControlText); err != nil {
		return err
	}
	if reading {
		text = make([]byte, n) // at most maxControlText: bounded
	}
	for i := range n {
		if err := wire.SerializeBits(s, &text[i], 8); err != nil {
			return err
		}
	}
	m.text = string(text)
	return nil
}

// encodeControl returns the payload of a control message.
func encodeControl(kind controlKind, text string) []byte {
	m := control{kind: kind, text: text}
	buf := make([]byte, len(controlMagic)+2+maxControlText)
	copy(buf, controlMagic[:])
	w := wire.NewWriter(buf[len(controlMagic):])
	if err := m.Serialize(w); err != nil {
		return nil // only a kind out of range gets here: a bug of this package
	}
	return buf[:len(controlMagic)+len(w.Bytes())]
}

// decodeControl reads a control message's payload.
func decodeControl(b []byte) (control, error) {
	var m control
	if !isControl(b) {
		return m, errNotControl
	}
	err := m.Serialize(wire.NewReader(b[len(controlMagic):]))
	return m, err
}

// RefusedError is what Dial or Step return when the server refused the
// client or closed its connection and said why. errors.Is(err,
// ErrDisconnected) holds.
type RefusedError struct {
	// Reason is the server's text, such as "server runs lockstep on
	// tower20 for 4 players; you asked for lockstep on pyramid10 for 2".
	Reason string
	// Joined: the client had been in a match (a bye), not refused at
	// the door.
	Joined bool
}

func (e *RefusedError) Error() string {
	if e.Joined {
		return "udpdrive: the server ended this client's match: " + e.Reason
	}
	return "udpdrive: the server refused this client: " + e.Reason
}

// Is makes errors.Is(err, ErrDisconnected) hold.
func (e *RefusedError) Is(target error) bool { return target == ErrDisconnected }

// welcomeSlot reads the slot a welcome names: -1 for none, or for text
// that is not a slot (at most netcode.MaxClients-1).
func welcomeSlot(text string) int {
	n, err := strconv.Atoi(text)
	if err != nil || n < 0 || n >= netcode.MaxClients {
		return -1
	}
	return n
}
