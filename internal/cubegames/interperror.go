package cubegames

import (
	"fmt"
	"sync"
	"time"

	"github.com/netphys/netphys/internal/interpreport"
	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
	"github.com/netphys/netphys/wire/snapshot"
)

// serverTruth is the interp server's real state by tick, shared by the
// sides one Sides builds in one process. Only the demo builds both: there
// each viewer measures what it draws against the state of the tick it
// shows, as `netphys bench interp` does (package interpreport). A `play`
// process has no server and measures nothing; `serve` keeps nothing.
type serverTruth struct {
	mu      sync.Mutex // the host's and the players' goroutines
	hosted  bool       // a host was built in this process
	objects int
	ticks   int                   // how many the history holds
	hist    *interpreport.History // nil until a player watches
	newest  int64                 // the newest tick in hist
}

// truthSpan is how far back the history reaches: beyond the render delay
// (at most interp.Config.MaxDelay) plus the one-way latency of any
// condition the demo is run with; older views are not compared.
const truthSpan = 2 // seconds

// host notes the process's host, of objects objects at tickRate. The
// first host's world is the one players of the process measure against
// (serve's later matches have no players in its process).
func (t *serverTruth) host(objects, tickRate int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.hosted {
		t.hosted, t.objects, t.ticks = true, objects, truthSpan*tickRate
	}
}

// watch starts the history for a player of this process and reports
// whether there is a server to compare with.
func (t *serverTruth) watch() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.hosted && t.hist == nil {
		t.hist = interpreport.NewHistory(t.ticks, t.objects)
	}
	return t.hosted
}

// recordedGame is the host's game: each tick's real state also goes to
// the truth, once a player watches.
type recordedGame struct {
	*scene.InterpGame
	truth *serverTruth
	tick  int64 // the server's: it steps the game once a tick
	state []snapshot.Cube
}

func (g *recordedGame) Step() uint32 {
	in := g.InterpGame.Step()
	g.tick++
	t := g.truth
	t.mu.Lock()
	watched := t.hist != nil
	t.mu.Unlock()
	if watched {
		// Captured outside the lock: the players measure meanwhile.
		g.Capture(g.state)
		t.mu.Lock()
		t.hist.Put(g.tick, g.state)
		t.newest = g.tick
		t.mu.Unlock()
	}
	return in
}

// viewError is one viewer's visual error: every frame's drawn objects
// against the server's real state at the tick shown, over the last whole
// second for the live figures and over the run for the summary.
type viewError struct {
	truth     *serverTruth // nil: no server in this process
	second    time.Time    // when the second being counted began
	cur, last *interpreport.ErrorStats
	all       *interpreport.ErrorStats
	// Frames drawn and compared in the last second and in the run. A
	// frame is not compared when its tick is ahead of the server's
	// simulation (a dry buffer while the server lags the wall clock) or
	// outside the history: older, or from before the viewer joined (the
	// first frames, while the render delay settles).
	curFrames, lastFrames, curCompared, lastCompared int
	frames, compared, ahead                          int
}

func newViewError(t *serverTruth, now time.Time) *viewError {
	if !t.watch() {
		return &viewError{}
	}
	return &viewError{
		truth: t, second: now, lastFrames: -1,
		cur: interpreport.NewErrorStats(), last: interpreport.NewErrorStats(), all: interpreport.NewErrorStats(),
	}
}

// measure compares the frame drawn at now, view at tick.
func (e *viewError) measure(now time.Time, view []snapshot.Cube, tick float64, drawn bool) {
	if e.truth == nil {
		return
	}
	if now.Sub(e.second) >= time.Second {
		e.cur, e.last = e.last, e.cur
		e.cur.Reset()
		e.lastFrames, e.lastCompared, e.curFrames, e.curCompared = e.curFrames, e.curCompared, 0, 0
		e.second = now
	}
	if !drawn {
		return
	}
	e.frames++
	e.curFrames++
	e.truth.mu.Lock()
	defer e.truth.mu.Unlock()
	a, b, u, ok := e.truth.hist.Between(tick)
	if !ok {
		if tick+1 > float64(e.truth.newest) {
			e.ahead++
		}
		return
	}
	e.compared++
	e.curCompared++
	interpreport.ViewErrors(view, a, b, u, func(x float64) {
		e.cur.Add(x)
		e.all.Add(x)
	})
}

// figures appends the last second's error, mm.
func (e *viewError) figures(dst []viewer.Figure) []viewer.Figure {
	const name = "error"
	switch {
	case e.truth == nil:
		return append(dst, viewer.Figure{Name: name, Text: "demo only: no server state here"})
	case e.lastFrames < 0:
		return append(dst, viewer.Figure{Name: name, Text: "measuring"})
	case e.lastCompared == 0:
		return append(dst, viewer.Figure{Name: name, Text: "no frame to compare"})
	case e.last.N() == 0:
		return append(dst, viewer.Figure{Name: name, Text: "nothing moving"})
	}
	return append(dst,
		viewer.Figure{Name: name + " mean", Value: 1000 * e.last.Mean(), Unit: "mm"},
		viewer.Figure{Name: name + " p95", Value: 1000 * e.last.Quantile(0.95), Unit: "mm"},
	)
}

// summary appends the run's error.
func (e *viewError) summary(dst []match.Line) []match.Line {
	if e.truth == nil {
		return append(dst, match.Line{Name: "error", Value: "not measured: only the demo holds the server's state to compare with"})
	}
	frames := fmt.Sprintf("%d of %d frames compared, %d ahead of the server's simulation, %d outside its %d s history (before the viewer joined, or older)",
		e.compared, e.frames, e.ahead, e.frames-e.compared-e.ahead, truthSpan)
	if e.all.N() == 0 {
		return append(dst, match.Line{Name: "error", Value: "nothing moving; " + frames})
	}
	return append(dst, match.Line{Name: "error", Value: fmt.Sprintf("mean %.2f mm, p95 %.2f mm, max %.1f mm of the moving objects; %s",
		1000*e.all.Mean(), 1000*e.all.Quantile(0.95), 1000*e.all.Max(), frames)})
}
