package lockstep

import "math/bits"

// The server compares the players' checksums in a table of the last
// checksumSlots reported ticks.

// checksumSlots is how many reported ticks the server compares at once.
const checksumSlots = 64

type checksumEntry struct {
	used bool
	tick Tick
	sum  uint32
	from int   // the first player who reported it
	mask uint8 // the players who reported it
}

// compare records player idx's checksum of a tick and stops the session
// when it differs from another player's.
func (s *Server[I, P]) compare(idx int, r report) {
	e := &s.table[int(r.tick/s.cfg.ChecksumEvery)%checksumSlots]
	switch {
	case !e.used || e.tick < r.tick:
		if e.used && bits.OnesCount8(e.mask) < s.connected() {
			s.stats.Unverified++
		}
		*e = checksumEntry{used: true, tick: r.tick, sum: r.sum, from: idx, mask: 1 << idx}
	case e.tick > r.tick || e.mask&(1<<idx) != 0:
		return // too old to compare, or a repeat
	case e.sum != r.sum:
		if s.desync == nil {
			s.desync = &DesyncError{Tick: r.tick, A: e.from, B: idx}
			s.state = stateStopped
		}
	default:
		e.mask |= 1 << idx
	}
	if s.cfg.Players == 1 || (e.tick == r.tick && e.mask != 1<<e.from && bits.OnesCount8(e.mask) == s.connected()) {
		s.stats.Verified++
	}
}
