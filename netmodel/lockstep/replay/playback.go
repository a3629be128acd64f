package replay

import (
	"fmt"

	"github.com/netphys/netphys/netmodel/lockstep"
)

// Playback steps a game through a replay: forward tick by tick, checking
// every recorded checksum, and to any tick by re-simulating from the
// nearest state it saved on the way (the game's Save and Load, one slot
// every KeepEvery ticks). A lockstep file holds no states to seek to:
// it is inputs and checksums, kilobytes a minute.
type Playback[I any] struct {
	rep  *Replay[I]
	game lockstep.Game[I]
	next lockstep.Tick // the tick the next Step simulates
	// keepEvery: the state before every multiple of it is saved in slot
	// tick/keepEvery, up to saved.
	keepEvery lockstep.Tick
	saved     lockstep.Tick // slots [0, saved) hold the states before 0, keepEvery, ...
	checked   int           // checksums compared, the last pass up to next
	agreed    int
	first     *MismatchError // the first tick whose checksum differed
}

// MismatchError is a tick whose re-simulated checksum differs from the
// recorded one.
type MismatchError struct {
	Tick      lockstep.Tick
	Want, Got uint32
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("replay: tick %d: checksum %#08x, the recording says %#08x", e.Tick, e.Got, e.Want)
}

func (e *MismatchError) Unwrap() error { return ErrMismatch }

// NewPlayback plays rep with game, which must be in its starting state.
// keepEvery > 0 saves the game every keepEvery ticks for Seek, in slots
// 0 to Ticks()/keepEvery: the game's Save must take that many (a 10
// minute match saved every 10 s takes 61); 0 saves nothing, and seeking
// back re-simulates from a fresh game, which the caller then provides.
func NewPlayback[I any](rep *Replay[I], game lockstep.Game[I], keepEvery lockstep.Tick) *Playback[I] {
	return &Playback[I]{rep: rep, game: game, keepEvery: keepEvery}
}

// Tick is the tick the next Step simulates: the game is in the state
// after Tick()-1.
func (p *Playback[I]) Tick() lockstep.Tick { return p.next }

// Game returns the game.
func (p *Playback[I]) Game() lockstep.Game[I] { return p.game }

// Ticks is the number of ticks of the replay.
func (p *Playback[I]) Ticks() lockstep.Tick { return p.rep.Ticks() }

// Done reports whether every tick has been played.
func (p *Playback[I]) Done() bool { return p.next >= p.rep.Ticks() }

// Step simulates the next tick and checks its checksum when the file
// holds one. It returns a *MismatchError when the checksum differs (the
// playback can go on: the error is also kept, see Checked), and false
// when the replay is over.
func (p *Playback[I]) Step() (bool, error) {
	if p.Done() {
		return false, nil
	}
	t := p.next
	if p.keepEvery > 0 && t%p.keepEvery == 0 && t/p.keepEvery == p.saved {
		p.game.Save(int(p.saved))
		p.saved++
	}
	p.game.Step(p.rep.At(t))
	p.next++
	want, ok := p.rep.Sum(t)
	if !ok {
		return true, nil
	}
	p.checked++
	if got := uint32(p.game.Checksum()); got != want {
		e := &MismatchError{Tick: t, Want: want, Got: got}
		if p.first == nil || e.Tick < p.first.Tick {
			p.first = e
		}
		return true, e
	}
	p.agreed++
	return true, nil
}

// Checked returns the checksums compared and agreed on the way to
// Tick() since the last Seek back, and the first that differed.
func (p *Playback[I]) Checked() (checked, agreed int, first *MismatchError) {
	return p.checked, p.agreed, p.first
}

// Seek brings the game to the state before tick t (0 ≤ t ≤ Ticks()):
// forward it steps; back it loads the last state saved before t and
// steps from there. Without saves (keepEvery 0), seeking back needs a
// fresh game: fresh returns one in the starting state.
func (p *Playback[I]) Seek(t lockstep.Tick, fresh func() (lockstep.Game[I], error)) error {
	if t < 0 || t > p.rep.Ticks() {
		return fmt.Errorf("replay: seek to tick %d, the replay holds 0 to %d", t, p.rep.Ticks())
	}
	if t < p.next {
		if p.keepEvery > 0 && p.saved > 0 {
			slot := min(t/p.keepEvery, p.saved-1)
			p.game.Load(int(slot))
			p.next = slot * p.keepEvery
		} else {
			g, err := fresh()
			if err != nil {
				return err
			}
			p.game, p.next = g, 0
		}
		p.checked, p.agreed, p.first = 0, 0, nil
	}
	for p.next < t {
		if _, err := p.Step(); err != nil {
			if _, ok := err.(*MismatchError); !ok {
				return err
			}
		}
	}
	return nil
}

// Verify plays rep through from the start with game and returns the
// checksums compared and agreed, and the first that differed.
func Verify[I any](rep *Replay[I], game lockstep.Game[I]) (checked, agreed int, first *MismatchError) {
	p := NewPlayback(rep, game, 0)
	for !p.Done() {
		p.Step()
	}
	return p.Checked()
}
