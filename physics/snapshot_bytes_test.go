package physics

import (
	"errors"
	"testing"
)

// TestStateBytesRoundTrip writes restScript's world as bytes every ten
// ticks, restores each into a fresh world of the same bodies and steps it
// beside the original to the end, comparing checksums every step: the
// byte form is as lossless as a Snapshot, whichever lists the contacts
// are in. Every truncation of one state is refused, the world unchanged.
func TestStateBytesRoundTrip(t *testing.T) {
	orig := newRestWorld(t)
	var want []uint64
	states := map[Tick][]byte{}
	for range restScriptTicks {
		if orig.Tick()%10 == 0 {
			states[orig.Tick()] = orig.AppendState(nil)
		}
		restScript(t, orig)
		orig.Step()
		want = append(want, orig.Checksum())
	}
	for tick := Tick(0); tick < restScriptTicks; tick += 10 {
		w := newRestWorld(t)
		// The script adds a tenth body at tick 100 (the one destroyed at
		// 200 leaves a free slot that 205 reuses): a fresh world needs as
		// many slots as the state to take it.
		if tick > 100 {
			addCube(t, w, orig.pos[9])
		}
		if err := w.UnmarshalState(states[tick], nil); err != nil {
			t.Fatalf("tick %d: %v", tick, err)
		}
		for w.Tick() < restScriptTicks {
			restScript(t, w)
			w.Step()
			if got := w.Checksum(); got != want[w.Tick()-1] {
				t.Fatalf("restored at tick %d: tick %d checksum %016x, want %016x", tick, w.Tick(), got, want[w.Tick()-1])
			}
		}
	}
	b := states[150]
	w := newRestWorld(t)
	addCube(t, w, orig.pos[9])
	before := w.Checksum()
	for n := range len(b) {
		if err := w.UnmarshalState(b[:n], nil); !errors.Is(err, ErrSnapshot) {
			t.Fatalf("the first %d of %d bytes: %v, want ErrSnapshot", n, len(b), err)
		}
	}
	if err := newRestWorld(t).UnmarshalState(b, nil); !errors.Is(err, ErrSnapshot) {
		t.Fatalf("a state of 10 bodies into a world of 9: %v, want ErrSnapshot", err)
	}
	if w.Checksum() != before {
		t.Fatal("a refused state changed the world")
	}
	if err := w.UnmarshalState(b, nil); err != nil || w.Tick() != 150 {
		t.Fatalf("the whole state: %v at tick %d", err, w.Tick())
	}
}

// FuzzUnmarshalState feeds bytes to UnmarshalState: it must return an
// error or restore a world, never panic, and a restored world must write
// the same bytes back.
func FuzzUnmarshalState(f *testing.F) {
	orig := newRestWorld(f)
	for range 120 {
		restScript(f, orig)
		orig.Step()
		if orig.Tick()%40 == 0 {
			f.Add(orig.AppendState(nil))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		w := newRestWorld(t)
		addCube(t, w, orig.pos[9])
		if err := w.UnmarshalState(b, nil); err != nil {
			if !errors.Is(err, ErrSnapshot) {
				t.Fatalf("error %v does not wrap ErrSnapshot", err)
			}
			return
		}
		if again := w.AppendState(nil); string(again) != string(b) {
			t.Fatalf("restored from %d bytes, writes %d different ones back", len(b), len(again))
		}
	})
}
