package interpreport

import (
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/wire/snapshot"
)

// sharedGame lets several servers show one scene: the report steps the
// scene once a tick and every server's Step and Capture read that tick.
type sharedGame struct {
	input uint32
	cubes []snapshot.Cube // the current tick's real state
}

func (g *sharedGame) Objects() int                { return len(g.cubes) }
func (g *sharedGame) Step() uint32                { return g.input }
func (g *sharedGame) Capture(dst []snapshot.Cube) { copy(dst, g.cubes) }

// history keeps the real state of the last ticks, to measure a view
// against the state at the (fractional) tick it shows.
type history struct {
	ticks []histTick
}

type histTick struct {
	tick  int64
	cubes []snapshot.Cube
}

func newHistory(n, cubes int) *history {
	h := &history{ticks: make([]histTick, n)}
	for i := range h.ticks {
		h.ticks[i] = histTick{tick: -1, cubes: make([]snapshot.Cube, cubes)}
	}
	return h
}

func (h *history) put(tick int64, sc *scene.Scene) {
	e := &h.ticks[tick%int64(len(h.ticks))]
	e.tick = tick
	sc.Capture(e.cubes)
}

func (h *history) at(tick int64) []snapshot.Cube {
	if tick < 0 {
		return nil
	}
	e := &h.ticks[tick%int64(len(h.ticks))]
	if e.tick != tick {
		return nil
	}
	return e.cubes
}
