package demo

import (
	"bytes"
	"errors"
	"testing"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

func sampleStates(n int) []EntityState {
	states := make([]EntityState, n)
	for i := range states {
		st := wire.BodyState{
			Position: vecmath.V3(float64(i)/4-10, 0.5+float64(i%3), float64(-i)/8),
			Rotation: vecmath.QuatAxisAngle(vecmath.V3(0, 1, 0), float64(i)/7),
			AtRest:   i%2 == 0,
		}
		if !st.AtRest {
			st.LinearVelocity = vecmath.V3(1, -2, float64(i)/100)
			st.AngularVelocity = vecmath.V3(0.5, 0, -3)
		}
		states[i] = EntityState{Index: i, State: st, Interacting: i%3 == 0}
	}
	return states
}

func encodeAll(t *testing.T, states []EntityState, budget int) [][]byte {
	t.Helper()
	var out [][]byte
	buf := make([]byte, budget)
	err := packStates(42, states, budget, buf, func(b []byte) error {
		if len(b) > budget {
			t.Fatalf("message of %d bytes over the %d-byte budget", len(b), budget)
		}
		out = append(out, append([]byte(nil), b...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStateMessagesRoundTrip(t *testing.T) {
	states := sampleStates(901)
	msgs := encodeAll(t, states, maxMessageBytes)
	if len(msgs) < 2 {
		t.Fatalf("901 bodies fit %d message; want a split", len(msgs))
	}
	next := 0
	for _, b := range msgs {
		var m StateMessage
		if err := m.Serialize(wire.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		if m.Tick != 42 {
			t.Fatalf("tick %d, want 42", m.Tick)
		}
		for _, e := range m.Entities {
			if e.Index != next {
				t.Fatalf("entity %d, want %d: messages must cover every body once, in order", e.Index, next)
			}
			want, err := states[next].State.Quantize(stateSpec)
			if err != nil {
				t.Fatal(err)
			}
			if e.State != want || e.Interacting != states[next].Interacting {
				t.Fatalf("entity %d decoded %+v, want %+v", next, e, want)
			}
			next++
		}
	}
	if next != len(states) {
		t.Fatalf("decoded %d entities, want %d", next, len(states))
	}
}

func TestStateMessageTruncatedIsAnError(t *testing.T) {
	msg := encodeAll(t, sampleStates(5), maxMessageBytes)[0]
	for n := 0; n < len(msg); n++ {
		var m StateMessage
		if err := m.Serialize(wire.NewReader(msg[:n])); err == nil {
			t.Fatalf("message cut to %d of %d bytes decoded without error", n, len(msg))
		}
	}
}

func TestClampStateKeepsEncodable(t *testing.T) {
	wild := wire.BodyState{
		Position:        vecmath.V3(1e6, -1e6, 3),
		Rotation:        vecmath.QuatIdentity,
		LinearVelocity:  vecmath.V3(500, 0, -500),
		AngularVelocity: vecmath.V3(0, 1e3, 0),
	}
	if _, err := wild.Quantize(stateSpec); !errors.Is(err, wire.ErrRange) {
		t.Fatalf("unclamped state quantized with %v; the test needs an out-of-range one", err)
	}
	if _, err := clampState(wild).Quantize(stateSpec); err != nil {
		t.Fatalf("clamped state does not encode: %v", err)
	}
}

func TestPackStatesRefusesTinyBudget(t *testing.T) {
	err := packStates(1, sampleStates(1), 8, make([]byte, 8), func([]byte) error { return nil })
	if !errors.Is(err, ErrMessage) {
		t.Fatalf("got %v, want ErrMessage", err)
	}
}

func FuzzStateMessage(f *testing.F) {
	for _, b := range encodeAll(&testing.T{}, sampleStates(40), 300) {
		f.Add(b)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var m StateMessage
		if err := m.Serialize(wire.NewReader(data)); err != nil {
			return
		}
		// What decodes re-encodes to the same bits.
		buf := make([]byte, len(data)+8)
		w := wire.NewWriter(buf)
		if err := m.Serialize(w); err != nil {
			t.Fatalf("decoded message does not re-encode: %v", err)
		}
		var again StateMessage
		if err := again.Serialize(wire.NewReader(w.Bytes())); err != nil {
			t.Fatal(err)
		}
		if len(again.Entities) != len(m.Entities) || again.Tick != m.Tick {
			t.Fatal("re-encoded message differs")
		}
		w2 := wire.NewWriter(make([]byte, len(buf)))
		if err := again.Serialize(w2); err != nil || !bytes.Equal(w2.Bytes(), w.Bytes()) {
			t.Fatal("encoding is not canonical")
		}
	})
}
