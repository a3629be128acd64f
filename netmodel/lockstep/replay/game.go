package replay

import (
	"fmt"

	"github.com/netphys/netphys/netmodel/lockstep"
)

// keepStates is how many checksum ticks' states a wrapped game keeps:
// a desync names a tick the server compared after every player reported
// it, a few checksum intervals back at most.
const keepStates = 4

// Game is a lockstep.Game that records every tick it steps: give it to
// the session in place of the game (lockstep.NewClient, or the server's
// referee). It follows a rollback client's Save and Load: a tick undone
// by a Load is forgotten, and the recorder keeps Header.Rollback ticks
// unwritten so that it never writes one a rollback may still undo.
//
// When the game is an Inspector, Game keeps its state after each of the
// last few ticks that are multiples of Header.ChecksumEvery; Desync
// writes the one a desync names into the replay.
type Game[I comparable, P lockstep.Input[I]] struct {
	rec   *Recorder[I, P]
	game  lockstep.Game[I]
	ins   Inspector // nil when the game is not one
	slots []lockstep.Tick
	// The checksum after the last Step, which the session usually asks
	// for again.
	sum    uint64
	hasSum bool
	kept   [keepStates]State
	keptOK [keepStates]bool
}

// Wrap returns game recording into r. game must be in its starting
// state: the first Step is tick 0.
func (r *Recorder[I, P]) Wrap(game lockstep.Game[I]) *Game[I, P] {
	g := &Game[I, P]{rec: r, game: game}
	g.ins, _ = game.(Inspector)
	return g
}

// Unwrap returns the wrapped game.
func (g *Game[I, P]) Unwrap() lockstep.Game[I] { return g.game }

// Recorder returns the recorder.
func (g *Game[I, P]) Recorder() *Recorder[I, P] { return g.rec }

// Step implements lockstep.Game: it steps the game and records the tick.
func (g *Game[I, P]) Step(inputs []I) {
	tick := g.rec.next
	g.game.Step(inputs)
	g.hasSum = false
	var sum uint64
	if g.rec.NeedsSum() {
		sum = g.Checksum()
	}
	g.rec.Record(inputs, sum)
	if g.ins != nil && tick%g.rec.h.ChecksumEvery == 0 {
		k := int(tick/g.rec.h.ChecksumEvery) % keepStates
		Capture(g.ins, tick, "", &g.kept[k])
		g.keptOK[k] = true
	}
}

// Checksum implements lockstep.Game.
func (g *Game[I, P]) Checksum() uint64 {
	if !g.hasSum {
		g.sum, g.hasSum = g.game.Checksum(), true
	}
	return g.sum
}

// Save implements lockstep.Game.
func (g *Game[I, P]) Save(slot int) {
	g.game.Save(slot)
	for len(g.slots) <= slot {
		g.slots = append(g.slots, 0)
	}
	g.slots[slot] = g.rec.next
}

// Load implements lockstep.Game: the ticks from the slot's on are
// forgotten, to be recorded again as the session re-simulates them.
func (g *Game[I, P]) Load(slot int) {
	g.game.Load(slot)
	g.hasSum = false
	if slot >= len(g.slots) {
		g.rec.err = fmt.Errorf("%w: Load of slot %d, never saved", ErrRecord, slot)
		return
	}
	t := g.slots[slot]
	g.rec.rewind(t)
	for k := range g.kept {
		if g.keptOK[k] && g.kept[k].Tick >= t {
			g.keptOK[k] = false
		}
	}
}

// Objects implements Inspector: the wrapped game's, or none.
func (g *Game[I, P]) Objects() int {
	if g.ins == nil {
		return 0
	}
	return g.ins.Objects()
}

// Inspect implements Inspector.
func (g *Game[I, P]) Inspect(i int, dst []Field) (string, []Field) { return g.ins.Inspect(i, dst) }

// Desync writes the state kept after tick (the tick a *lockstep.DesyncError
// names) into the replay with note, and the ticks before it. It fails
// when the game is no Inspector or that state is no longer kept.
func (g *Game[I, P]) Desync(tick lockstep.Tick, note string) error {
	if g.ins == nil {
		return fmt.Errorf("%w: the game is no replay.Inspector, so no state is kept", ErrRecord)
	}
	for k := range g.kept {
		if g.keptOK[k] && g.kept[k].Tick == tick {
			g.kept[k].Note = note
			return g.rec.WriteState(&g.kept[k])
		}
	}
	return fmt.Errorf("%w: the state after tick %d is no longer kept (the last %d multiples of %d are)", ErrRecord, tick, keepStates, g.rec.h.ChecksumEvery)
}
