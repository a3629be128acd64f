package interpreport

import "github.com/netphys/netphys/wire/snapshot"

// sharedGame lets several servers show one scene: the report steps the
// scene once a tick and every server's Step and Capture read that tick.
type sharedGame struct {
	input uint32
	cubes []snapshot.Cube // the current tick's real state
}

func (g *sharedGame) Objects() int                { return len(g.cubes) }
func (g *sharedGame) Step() uint32                { return g.input }
func (g *sharedGame) Capture(dst []snapshot.Cube) { copy(dst, g.cubes) }
