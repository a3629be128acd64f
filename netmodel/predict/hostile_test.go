package predict

import "testing"

// TestInputsStampedBeforeTickZeroAreTooOld: early in a match the
// reconciliation window reaches before tick 0. A client stamping its
// inputs a few ticks before it (the 32-bit tick wrapped round) used to
// make the server rewind to a tick the world never was at, load a state
// never saved, and step the game from it (the tiny game panics, another
// game's world is corrupted for everyone). Such inputs are beyond the
// history: dropped and counted, and the world is the one of a match
// without them.
func TestInputsStampedBeforeTickZeroAreTooOld(t *testing.T) {
	ctl := testServer(t)
	runTo(t, ctl, 30)
	for _, first := range []Tick{^Tick(4), ^Tick(0), Tick(0) - Tick(ctl.window)} {
		s := testServer(t)
		now := runTo(t, s, 10)
		if err := newRawClient(t).send(t, s, now, 0, inputs(first, right, right, right)); err != nil {
			t.Fatal(err)
		}
		runTo(t, s, 30)
		// The three inputs name ticks before 0 but for ^0+1 and ^0+2 (0
		// and 1, stepped already: late inputs that rewind, and move the
		// sender's own character).
		tooOld, late, own := uint64(3), uint64(0), true
		if first == ^Tick(0) {
			tooOld, late, own = 1, 2, false
		}
		for b := range 2 {
			if got, want := s.Game().Body(b), ctl.Game().Body(b); got != want && (b == 1 || own) {
				t.Fatalf("stamped %d: body %d at %v, without the inputs %v", int32(first), b, got.Position, want.Position)
			}
		}
		if c := s.Counters(); c.InputsTooOld != tooOld || c.InputsLate != late {
			t.Fatalf("stamped %d: %d too old, %d late; want %d and %d", int32(first), c.InputsTooOld, c.InputsLate, tooOld, late)
		}
	}
}
