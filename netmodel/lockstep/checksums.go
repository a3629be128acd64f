package lockstep

import (
	"fmt"
	"math/bits"
	"time"
)

// The server decides who is wrong when checksums differ. It keeps the
// last checksumSlots reported ticks in a table: every player's checksum
// of the tick and, with a referee, the server's own. Once a tick can be
// decided it is, in Update:
//
//   - With a referee (the server runs the game itself from the inputs it
//     relays, SetReferee): a player whose checksum differs from the
//     referee's is dropped (ReasonDesync) as soon as another player's
//     equals it, so a liar who reports first gains nothing. If every
//     connected player has reported and none agrees with the referee,
//     two or more of them, the referee is the one that is wrong (the game
//     is not deterministic): the session stops with a *DesyncError whose
//     Referee is set. A lone player who disagrees with it is dropped.
//   - Without a referee, once every connected player has reported: all
//     equal is verified; otherwise, of three or more reports, those that
//     differ from a strict majority are dropped; two players, or a tie,
//     cannot tell who is wrong and the session stops with a *DesyncError.
//
// Checksums of a player that is gone no longer count.

// checksumSlots is how many reported ticks the server compares at once.
const checksumSlots = 64

type checksumEntry struct {
	used   bool
	done   bool // decided
	tick   Tick
	sums   [MaxPlayers]uint32 // by player index, those in mask
	mask   uint8              // the players who reported it
	ref    bool               // the referee's checksum is known
	refSum uint32
}

// entry returns the table entry of tick, or nil when the tick is older
// than the one in its place (too old to compare). A newer tick takes the
// place of an older one, which counts as unverified if undecided.
func (s *Server[I, P]) entry(tick Tick) *checksumEntry {
	e := &s.table[int(tick/s.cfg.ChecksumEvery)%checksumSlots]
	switch {
	case !e.used || e.tick < tick:
		if e.used && !e.done {
			s.stats.Unverified++
		}
		*e = checksumEntry{used: true, tick: tick}
	case e.tick > tick:
		return nil
	}
	return e
}

// compare records player idx's checksum of a tick.
func (s *Server[I, P]) compare(idx int, r report) {
	if e := s.entry(r.tick); e != nil && !e.done && e.mask&(1<<idx) == 0 {
		e.sums[idx], e.mask = r.sum, e.mask|1<<idx
	}
}

// refereeSum records the referee's checksum of a tick.
func (s *Server[I, P]) refereeSum(tick Tick, sum uint32) {
	if e := s.entry(tick); e != nil && !e.done {
		e.ref, e.refSum = true, sum
	}
}

// decideAll decides every tick of the table that can be, oldest first:
// a drop in one tick changes who counts in the next.
func (s *Server[I, P]) decideAll(now time.Time) {
	var order [checksumSlots]int
	n := 0
	for i := range s.table {
		if e := &s.table[i]; e.used && !e.done {
			j := n
			for ; j > 0 && s.table[order[j-1]].tick > e.tick; j-- {
				order[j] = order[j-1]
			}
			order[j] = i
			n++
		}
	}
	for _, i := range order[:n] {
		s.decide(now, &s.table[i])
	}
}

func (s *Server[I, P]) decide(now time.Time, e *checksumEntry) {
	if s.desync != nil {
		return
	}
	live := s.liveAt(e.tick)
	reported := e.mask & live
	all := reported == live && live != 0
	if s.ref != nil && !s.ref.off {
		if !e.ref {
			return
		}
		var agree, differ uint8
		for p := range s.members {
			if reported&(1<<p) != 0 {
				if e.sums[p] == e.refSum {
					agree |= 1 << p
				} else {
					differ |= 1 << p
				}
			}
		}
		switch {
		case differ != 0 && (agree != 0 || all && bits.OnesCount8(differ) == 1):
			s.dropLiars(now, e.tick, differ)
		case differ != 0 && all:
			a, b := twoOf(differ)
			s.stop(&DesyncError{Tick: e.tick, A: a, B: b, Referee: true})
		case all:
			s.stats.Verified++
			e.done = true
			s.agreeOn(e.tick, e.refSum)
		}
		return
	}
	if !all {
		return
	}
	e.done = true
	n := bits.OnesCount8(reported)
	var best uint32
	most := 0
	for p := range s.members {
		if reported&(1<<p) == 0 {
			continue
		}
		count := 0
		for q := range s.members {
			if reported&(1<<q) != 0 && e.sums[q] == e.sums[p] {
				count++
			}
		}
		if count > most {
			best, most = e.sums[p], count
		}
	}
	switch {
	case most == n:
		s.stats.Verified++
		s.agreeOn(e.tick, best)
	case n >= 3 && 2*most > n:
		var differ uint8
		for p := range s.members {
			if reported&(1<<p) != 0 && e.sums[p] != best {
				differ |= 1 << p
			}
		}
		s.dropLiars(now, e.tick, differ)
		s.agreeOn(e.tick, best)
	default:
		var a, b = -1, -1
		for p := range s.members {
			if reported&(1<<p) == 0 {
				continue
			}
			if a < 0 {
				a = p
			} else if e.sums[p] != e.sums[a] {
				b = p
				break
			}
		}
		s.stop(&DesyncError{Tick: e.tick, A: a, B: b})
	}
}

// dropLiars drops the players in mask, whose checksum of tick is wrong.
func (s *Server[I, P]) dropLiars(now time.Time, tick Tick, mask uint8) {
	for p, m := range s.members {
		if mask&(1<<p) != 0 {
			s.disconnect(now, m, ReasonDesync, tick)
		}
	}
}

// stop ends the session on a desync nobody can be blamed for.
func (s *Server[I, P]) stop(d *DesyncError) {
	if s.desync == nil {
		s.desync, s.state = d, stateStopped
	}
}

// twoOf returns the two lowest players of mask (the second is the first
// again if mask has one).
func twoOf(mask uint8) (int, int) {
	a := bits.TrailingZeros8(mask)
	rest := mask &^ (1 << a)
	if rest == 0 {
		return a, a
	}
	return a, bits.TrailingZeros8(rest)
}

// referee is the server's own copy of the game, stepped with the inputs
// it relays once every player's input of a tick is known.
type referee[I any] struct {
	game   Game[I]
	next   Tick // the next tick to simulate
	inputs []I
	off    bool // it fell out of the buffer: the majority decides
}

// SetReferee makes the server simulate the game itself from the inputs
// it relays, and judge the players' checksums against its own: the one
// whose checksum differs is dropped and the session goes on. game must
// be in the state every client's game starts in. Call it before the
// session starts. The referee steps at most Config.MaxCatchUp ticks per
// Update, never a tick whose inputs are not all known.
func (s *Server[I, P]) SetReferee(game Game[I]) error {
	if s.state != stateLobby {
		return fmt.Errorf("%w: the referee must be set before the session starts", ErrSession)
	}
	if game == nil {
		return fmt.Errorf("%w: a nil referee game", ErrConfig)
	}
	s.ref = &referee[I]{game: game, inputs: make([]I, s.cfg.Players)}
	return nil
}

// stepReferee simulates the ticks whose inputs are all known, at most
// MaxCatchUp per Update.
func (s *Server[I, P]) stepReferee() {
	r := s.ref
	if r == nil || r.off || len(s.members) != s.cfg.Players {
		return
	}
	for _, m := range s.members {
		if m.ring.have-r.next > Tick(s.cfg.Buffer) {
			// The inputs it needs are overwritten: only a server that
			// was not stepped for seconds gets here.
			r.off = true
			s.stats.RefereeOff = true
			return
		}
	}
	all := s.allHave()
	for n := 0; n < s.cfg.MaxCatchUp && r.next < all; n++ {
		for p, m := range s.members {
			r.inputs[p] = m.ring.at(r.next)
		}
		r.game.Step(r.inputs)
		if r.next%s.cfg.ChecksumEvery == 0 {
			s.refereeSum(r.next, uint32(r.game.Checksum()))
		}
		r.next++
	}
	s.stats.RefereeTick = r.next
}
