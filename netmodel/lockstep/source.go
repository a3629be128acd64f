package lockstep

import (
	"fmt"
	"time"
)

// Late join without a referee. The server has no game, so a player sends
// the joiner's snapshot; a player is not trusted (see the package doc's
// trust model), so:
//
//   - The server asks one connected player (the source) for its state
//     after a checkpoint tick T it names, beyond every input it has
//     relayed, so that no client can have simulated T yet: the source
//     keeps the bytes of its final simulation of T (MarshalState) and
//     sends them in chunks, or says it cannot.
//   - The server holds at most MaxSnapshotBytes of them and waits until
//     every player's checksum of T is in and decided: the agreed checksum
//     goes with the bytes to the joiner, seated as with a referee.
//   - The joiner restores the state and compares its Checksum with the
//     agreed one before it plays; if they differ it says so, its seat
//     departs again and another player is asked. The server cannot tell
//     whether the source or the joiner lies: once another player's state
//     restores for the joiner the source is accused, asked after the
//     others from then on, and dropped (ReasonSnapshot) when joiners of
//     two different client ids have accused it; the joiner is dropped
//     (ReasonJoinFailed) if the second state fails too. So one hostile
//     client, joiner or spectator, cannot get an honest player dropped.
//     A source that sends nothing within Timeout of the
//     request is dropped (ReasonSourceTimeout); one that cannot is asked
//     no more for these joiners. With no player left to ask, the joiners
//     are refused with the reason.
//
// The others never wait for any of it: the source's chunks travel in
// messages of their own beside its inputs.

// fetch is the server's request for a player's state.
type fetch[I any] struct {
	src    *member[I]
	tick   Tick
	asked  time.Time
	state  chunkSet
	sum    uint32 // the checksum every player agreed on for tick
	agreed bool
}

// chunkSet is a snapshot as its chunks arrive.
type chunkSet struct {
	buf []byte
	got []bool
	ack snapAck
}

func newChunkSet(total int) chunkSet {
	return chunkSet{buf: make([]byte, total), got: make([]bool, chunks(total))}
}

func (c *chunkSet) complete() bool { return c.buf != nil && c.ack.have == len(c.got) }

// put keeps chunk i (its length checked by the decoder) and updates the
// acknowledgement.
func (c *chunkSet) put(i int, data []byte) {
	if c.got[i] {
		return
	}
	copy(c.buf[i*snapshotChunk:], data)
	c.got[i] = true
	for c.ack.have < len(c.got) && c.got[c.ack.have] {
		c.ack.have++
	}
	c.ack.mask = 0
	for k := range 64 {
		if j := c.ack.have + 1 + k; j < len(c.got) && c.got[j] {
			c.ack.mask |= 1 << k
		}
	}
}

// updateFetch lets go of the waiting joiners that went silent (refused
// with the reason: Released tells it, and the driver counts it), and
// moves the fetch of a player's state on: seat the joiners once the state
// and its agreed checksum are in, or ask another player when the source
// failed.
func (s *Server[I, P]) updateFetch(now time.Time) {
	kept := s.joiners[:0]
	for _, j := range s.joiners {
		if now.Sub(j.lastHeard) <= s.cfg.Timeout {
			kept = append(kept, j)
			continue
		}
		s.letGo(j.slot, "late_join", fmt.Sprintf("%v: the session of %d players is running and this client sent no message it could read for %v "+
			"(is it set up for the same game and player count?)", ErrSession, s.cfg.Players, s.cfg.Timeout))
	}
	clear(s.joiners[len(kept):])
	s.joiners = kept
	if !s.joinersDecided() {
		s.fetch, s.failed = nil, nil
		return
	}
	if f := s.fetch; f != nil {
		switch {
		case !f.src.connected:
			// Dropped meanwhile (a checksum of its own that differs, say).
			s.sourceFailed(f)
		case f.agreed && f.state.complete():
			s.seatJoiners(now, f)
			return
		case now.Sub(f.asked) > s.cfg.Timeout:
			if !f.state.complete() {
				s.disconnect(now, f.src, ReasonSourceTimeout, f.tick)
			} // else it sent it all: the checksums of the tick did not come
			s.sourceFailed(f)
		default:
			return
		}
	}
	s.ask(now)
}

// decided reports whether the waiting joiner j is known to play (a seat)
// or to watch: until its first message says which, no state is fetched
// for it.
func (j *member[I]) decided() bool { return j.watch || j.seat >= 0 }

// joinersDecided reports whether a waiting joiner needs a player's state.
// With a referee none does: its state is at hand.
func (s *Server[I, P]) joinersDecided() bool {
	if s.ref != nil && !s.ref.off {
		return false
	}
	for _, j := range s.joiners {
		if j.decided() {
			return true
		}
	}
	return false
}

// sourceFailed counts a fetch that brought nothing; its source is not
// asked again for these joiners.
func (s *Server[I, P]) sourceFailed(f *fetch[I]) {
	s.stats.SnapshotFailures++
	s.failed = append(s.failed, f.src)
	s.fetch = nil
}

// ask asks a connected player that has not failed the waiting joiners
// for its state after a checkpoint tick no client can have simulated
// yet, and names it in the message that carries the request before the
// inputs it carries are applied: a client simulates (or in rollback
// predicts up to Rollback ticks beyond) only ticks whose inputs of every
// connected player it has, which the server relayed, so beyond every
// input of a connected player the server holds and the rollback window.
// A source alone fills the departed seats itself up to its clock, which
// may run MaxLead ahead. The tick also lies after the last inputs of the
// joiners' seats. Without such a player the joiners are refused.
func (s *Server[I, P]) ask(now time.Time) {
	var src *member[I]
	for _, m := range s.members {
		if m.connected && m.snap == nil && !s.hasFailed(m) && (src == nil || m.accused < src.accused) {
			src = m
		}
	}
	if src == nil {
		reason := fmt.Sprintf("%v: the session of %d players is running and no player could send its state for a late join (%d asked): try again later",
			ErrSession, s.cfg.Players, len(s.failed))
		for _, j := range s.joiners {
			if j.decided() {
				s.letGo(j.slot, "late_join", reason)
			}
		}
		s.keepUndecided()
		s.failed = nil
		return
	}
	t := s.sessionTick(now)
	if s.connected() == 1 {
		t += Tick(s.cfg.ticks(s.cfg.MaxLead))
	}
	for _, m := range s.members {
		if m.connected {
			t = max(t, m.ring.have)
		}
	}
	for _, j := range s.joiners {
		if j.seat >= 0 {
			// A joiner plays from after its seat's last inputs.
			t = max(t, s.members[j.seat].left)
		}
	}
	t += Tick(s.cfg.Rollback) + 1
	t += (s.cfg.ChecksumEvery - t%s.cfg.ChecksumEvery) % s.cfg.ChecksumEvery
	s.fetch = &fetch[I]{src: src, tick: t, asked: now}
	s.stats.SnapshotRequests++
}

func (s *Server[I, P]) hasFailed(m *member[I]) bool {
	for _, f := range s.failed {
		if f == m {
			return true
		}
	}
	return false
}

// agreeOn records the checksum the players agreed on for tick.
func (s *Server[I, P]) agreeOn(tick Tick, sum uint32) {
	if f := s.fetch; f != nil && f.tick == tick {
		f.sum, f.agreed = sum, true
	}
}

// seatJoiners seats the waiting joiners, players and spectators, with
// the fetched state, or asks for a newer one if it is too old to join
// from (a joiner's snapshot may lie at most half the buffer before the
// tick it plays from; a spectator's before the session clock).
func (s *Server[I, P]) seatJoiners(now time.Time, f *fetch[I]) {
	from := f.tick + 1
	back := s.sessionTick(now) + Tick(s.cfg.ticks(s.cfg.MaxLead)) + 1
	for _, j := range s.joiners {
		if !j.decided() {
			continue
		}
		late := back
		if j.seat >= 0 {
			old := s.members[j.seat]
			late = max(late, old.ring.have)
			if from < old.left {
				late = from + Tick(s.cfg.Buffer) // before its seat's last inputs
			}
		}
		if late-from > Tick(s.cfg.Buffer/2) {
			s.fetch = nil
			return
		}
	}
	for _, j := range s.joiners {
		if j.decided() {
			s.seat(now, j, from, f.state.buf, f.sum, f.src)
		}
	}
	s.keepUndecided()
	s.fetch, s.failed = nil, nil
}

// keepUndecided takes the decided joiners (seated or refused) out of the
// waiting ones.
func (s *Server[I, P]) keepUndecided() {
	kept := s.joiners[:0]
	for _, j := range s.joiners {
		if !j.decided() {
			kept = append(kept, j)
		}
	}
	clear(s.joiners[len(kept):])
	s.joiners = kept
}

// takeSource takes a chunk of the state the server asked m for. A state
// larger than MaxSnapshotBytes is refused before anything is allocated,
// and its sender dropped as a bad source.
func (s *Server[I, P]) takeSource(now time.Time, m *member[I], c *srcChunk) {
	f := s.fetch
	if f == nil || f.src != m || c.tick != f.tick || f.state.complete() {
		return // a late repeat
	}
	switch {
	case c.total == 0:
		s.sourceFailed(f) // it cannot
		return
	case c.total > s.cfg.MaxSnapshotBytes || f.state.buf != nil && c.total != len(f.state.buf):
		s.disconnect(now, m, ReasonSnapshot, f.tick)
		s.sourceFailed(f)
		return
	case f.state.buf == nil:
		f.state = newChunkSet(c.total)
	}
	f.state.put(c.index, c.data)
	m.stats.SourceChunks++
}

// sourceState is what a client asked for its state keeps and sends.
type sourceState struct {
	tick   Tick
	buf    []byte // its state after tick, once simulated
	ready  bool   // tick's inputs are all known: buf is final
	cannot bool
	ack    snapAck
	next   int
}

// takeRequest follows the server's request for our state, before the
// message's inputs are applied (so the tick it names is not simulated
// yet, unless the server is wrong).
func (c *Client[I, P]) takeRequest(m *serverMsg[I]) {
	if !m.source || c.watch || c.mute {
		c.src = nil
		return
	}
	r := &m.request
	if c.src == nil || c.src.tick != r.tick {
		_, ok := c.game.(Snapshotter)
		c.src = &sourceState{tick: r.tick,
			cannot: !ok || c.cfg.MaxSnapshotBytes == 0 || c.next > r.tick || r.tick%c.cfg.ChecksumEvery != 0}
	}
	if r.ack.have >= c.src.ack.have {
		c.src.ack = r.ack
	}
}

// keepSource keeps the state after the tick the server asked for, each
// time it is simulated: the last simulation, on known inputs, is final.
func (c *Client[I, P]) keepSource(t Tick, predicted bool) {
	src := c.src
	if src == nil || src.cannot || src.ready || t != src.tick {
		return
	}
	b, err := c.game.(Snapshotter).MarshalState()
	if err != nil || len(b) > c.cfg.MaxSnapshotBytes {
		src.cannot = true
		return
	}
	src.buf, src.ready = b, !predicted
}

// sendSource sends the server up to SnapshotBurst chunks of the state it
// asked for and has not acknowledged, or that we cannot send it, each in
// a message of its own (no inputs, no checksums).
func (c *Client[I, P]) sendSource(now time.Time, send func([]byte)) error {
	src := c.src
	if src != nil && src.buf != nil && !src.ready && c.confirmed() > src.tick {
		src.ready = true
	}
	if src == nil || !src.ready && !src.cannot {
		return nil
	}
	m := &c.out
	m.inputs.inputs, m.reports, m.snap, m.source = m.inputs.inputs[:0], m.reports[:0], false, true
	m.src = srcChunk{tick: src.tick}
	defer func() { m.source = false }()
	if src.cannot {
		return c.transmit(now, send, -1)
	}
	if src.ack.have > chunks(len(src.buf)) {
		return nil // the server's ack is wrong: nothing to send
	}
	return eachChunk(src.ack, &src.next, len(src.buf), c.cfg.SnapshotBurst, func(i int) error {
		m.src.total, m.src.index = len(src.buf), i
		m.src.data = src.buf[i*snapshotChunk : min(len(src.buf), (i+1)*snapshotChunk)]
		c.stats.SourceChunks++
		return c.transmit(now, send, -1)
	})
}
