package udpdrive

import (
	"sync"
	"time"
)

// RoomsFigures are the figures of Rooms over the last window (a second):
// the process's, and each running match's. Rooms.Figures returns them to
// any goroutine (a metrics scrape).
type RoomsFigures struct {
	Matches []MatchFigures // running, oldest first
	// Opened, Closed and Failed count the matches since the start
	// (Failed: those closed with an Err, Rooms.End's included).
	Opened, Closed, Failed uint64
	Players                int
	// LateTicks counts the frames the Rooms were stepped late (the
	// process fell behind RoomsConfig.Frame), since the start.
	LateTicks uint64
	// CPUPerTick is the mean wall time of a Step over the window: every
	// match's, the driver's own work and the sends.
	CPUPerTick       time.Duration
	UpKbps, DownKbps float64 // every match's, overhead included
}

// MatchFigures are one running match's figures.
type MatchFigures struct {
	ID, Kind string
	Players  int
	// LateTicks counts the frames the Rooms were stepped late while
	// this match ran.
	LateTicks uint64
	// CPUPerTick is the mean time of the match's model calls per frame
	// over the window, with its sends.
	CPUPerTick       time.Duration
	UpKbps, DownKbps float64
	Failed           bool
}

// figureWindow is how often Rooms refresh their figures.
const figureWindow = time.Second

// figures are the Rooms' figures, refreshed each figureWindow on the
// Step goroutine and read from any.
type figures struct {
	mu   sync.Mutex
	last RoomsFigures

	at   time.Time // the window's start
	cost Cost      // the Rooms' at its start
	prev map[*Match]matchMark
}

// matchMark is a match's counts at the window's start.
type matchMark struct {
	cost     Cost
	up, down uint64
}

// note counts the frames missed since the last Step, at now.
func (r *Rooms) note(now time.Time) {
	if !r.lastStep.IsZero() {
		if gap := now.Sub(r.lastStep); gap > r.frame*3/2 {
			late := uint64((gap+r.frame/2)/r.frame) - 1
			r.late += late
			for _, m := range r.matches {
				m.late += late
			}
		}
	}
	r.lastStep = now
}

// refresh makes the figures of the window ending at now, once it is
// a window long.
func (r *Rooms) refresh(now time.Time) {
	f := &r.figs
	if f.at.IsZero() {
		f.at, f.cost, f.prev = now, r.cost, map[*Match]matchMark{}
	}
	d := now.Sub(f.at)
	if d < figureWindow {
		return
	}
	kbps := func(bytes uint64) float64 { return float64(bytes) * 8 / 1000 / d.Seconds() }
	out := RoomsFigures{Matches: make([]MatchFigures, 0, len(r.matches)), Opened: r.opened, Closed: r.closed,
		Failed: r.failed, LateTicks: r.late, CPUPerTick: r.cost.Sub(f.cost).Mean()}
	prev := make(map[*Match]matchMark, len(r.matches))
	for _, m := range r.matches {
		p := f.prev[m] // zero for a match opened in the window
		mf := MatchFigures{ID: m.id, Kind: m.kind, Players: m.Players(), LateTicks: m.late,
			CPUPerTick: m.cost.Sub(p.cost).Mean(), UpKbps: kbps(m.up - p.up), DownKbps: kbps(m.down - p.down), Failed: m.failed != nil}
		out.Matches = append(out.Matches, mf)
		out.Players += mf.Players
		out.UpKbps += mf.UpKbps
		out.DownKbps += mf.DownKbps
		prev[m] = matchMark{m.cost, m.up, m.down}
	}
	f.at, f.cost, f.prev = now, r.cost, prev
	f.mu.Lock()
	f.last = out
	f.mu.Unlock()
}

// Figures returns the figures of the last full window (none before the
// first second). It is safe to call from any goroutine.
func (r *Rooms) Figures() RoomsFigures {
	r.figs.mu.Lock()
	defer r.figs.mu.Unlock()
	out := r.figs.last
	out.Matches = append([]MatchFigures(nil), out.Matches...)
	return out
}
