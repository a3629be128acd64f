package physics

import "github.com/netphys/netphys/vecmath"

// history keeps the poses of every body for the last HistoryTicks ticks,
// for lag-compensated queries (seed 002: the server answers a shot "in the
// past", where the shooter saw the target). Frame t lives at index
// t % len(frames); each is a plain copy of the pose slices, so recording
// costs one memmove per slice and no allocation once the frames have grown.
//
// History is not part of a Snapshot: it never influences a step, and
// copying it would make every rollback snapshot HistoryTicks times larger.
// Restore clears it but for the restored tick; queries further into the
// past then miss until the world has stepped far enough again.
type history struct {
	frames []historyFrame
}

type historyFrame struct {
	tick  Tick
	valid bool
	pos   []vecmath.Vec3
	rot   []vecmath.Quat
	gen   []uint32 // generation of the live body in each slot, 0 if none
}

func (h *history) init(ticks int) {
	if ticks > 0 {
		h.frames = make([]historyFrame, ticks+1)
	}
}

// record stores the poses after the step that reached w.tick.
func (h *history) record(w *World) {
	if len(h.frames) == 0 {
		return
	}
	f := &h.frames[int(w.tick%Tick(len(h.frames)))]
	f.tick, f.valid = w.tick, true
	f.pos = append(f.pos[:0], w.pos...)
	f.rot = append(f.rot[:0], w.rot...)
	f.gen = f.gen[:0]
	for i := range w.info {
		g := uint32(0)
		if w.info[i].live {
			g = w.info[i].gen
		}
		f.gen = append(f.gen, g)
	}
}

func (h *history) clear() {
	for i := range h.frames {
		h.frames[i].valid = false
	}
}

// frame returns the frame of ticksBehind ticks ago, or false when it is
// outside the window or was not recorded.
func (h *history) frame(now Tick, ticksBehind int) (*historyFrame, bool) {
	if ticksBehind <= 0 || ticksBehind >= len(h.frames) || Tick(ticksBehind) > now {
		return nil, false
	}
	t := now - Tick(ticksBehind)
	f := &h.frames[int(t%Tick(len(h.frames)))]
	return f, f.valid && f.tick == t
}
