package lockstep

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/netphys/netphys/wire"
)

// Server is the relay of a session: it collects every player's inputs,
// forwards them to every other player with redundancy, keeps the session
// clock every client follows, and judges the players' checksums: against
// its own simulation when it has one (SetReferee), by majority otherwise.
// It implements netmodel.Server. It is not safe for concurrent use.
//
// A player that leaves, times out, holds the others back or is found
// wrong is disconnected; the server tells it why (its client's Update
// returns a *DroppedError), and feeds the others its zero input from the
// tick after the last one it had, so the session goes on.
type Server[I comparable, P Input[I]] struct {
	cfg     Config
	members []*member[I] // by player index
	// watchers are the spectators: no seat, every player's inputs
	// relayed, never waited for.
	watchers []*member[I]
	state    int
	start    time.Time // tick 0 of the session clock
	desync   *DesyncError
	table    [checksumSlots]checksumEntry
	ref      *referee[I]
	full     time.Time // when the lobby last became full
	// Late join without a referee: joiners wait for a seat while fetch
	// gets a player's state of a checkpoint tick; failed are the players
	// whose state did not come, or was wrong, for them; refused tells a
	// client why it was refused (no player could send its state, every
	// seat is taken or held) or why a spectator was let go, by slot,
	// until the driver lets it go.
	joiners []*member[I]
	fetch   *fetch[I]
	failed  []*member[I]
	refused map[int]refusal
	// strikes are the client ids that left a seat or were dropped, and
	// until when each may not take one again (strike).
	strikes []strike
	stats   ServerStats
	// rejected counts the messages rejected as malformed or forged from
	// every client, players, joiners and spectators, gone ones too.
	rejected uint64

	reader wire.Reader
	writer wire.Writer
	in     clientMsg[I]
	out    serverMsg[I]
	buf    []byte
	have   [MaxPlayers]Tick // serializeServer's scratch
	// The pipes' callbacks and what they need, set before each call: the
	// method values are bound once, so that no closure escapes through
	// the pipe interface per datagram.
	rx        receiving[I]
	tx        transmitting[I]
	deliverFn func([]byte) error
	emitFn    func([]byte)
}

// receiving is what a message Receive completes is handled with.
type receiving[I any] struct {
	now time.Time
	idx int
	m   *member[I]
}

// transmitting is who a message's datagrams go to.
type transmitting[I any] struct {
	m    *member[I]
	send func(slot int, datagram []byte)
}

// member is one player as the server sees it.
type member[I any] struct {
	slot      int
	clientID  uint64 // the driver's id of the client (JoinClient); 0: unknown
	connected bool
	pipe      pipe
	ring      inputRing[I]
	acks      [MaxPlayers]Tick // the player holds player p's inputs for the ticks before acks[p]
	ack       Tick             // the smallest of acks (its own have if alone): the oldest tick it needs
	left      Tick             // once disconnected: its inputs from this tick on are zero
	sent      [MaxPlayers]Tick // over a stream: the inputs sent to it, by player
	lastHeard time.Time
	progress  time.Time // when ack last advanced, or nothing waited for it
	// departedAt is when it left or was dropped: its seat is held for its
	// clientID until Config.RejoinGrace after.
	departedAt time.Time
	// reason says why the server dropped it (ReasonNone: it left), at
	// reasonTick; it is told until droppedAt+tellDropped.
	reason     Reason
	reasonTick Tick
	droppedAt  time.Time
	// A late joiner: its checksums count from tick from (0 for the
	// players who started), and until it has every chunk of snap, its
	// snapshot of the game (the referee's, or source's if source is not
	// nil), whose checksum is snapSum, the server sends it chunks.
	from  Tick
	watch bool // a spectator (in Server.watchers)
	// wants: a player's client that joined a full lobby, among the
	// spectators until a seat frees before the start (seatWanting).
	wants   bool
	snap    []byte
	snapSum uint32
	source  *member[I]
	// waiting: a joiner in Server.joiners, to take seat once a player's
	// state has come.
	waiting bool
	seat    int
	// suspect sent the joiner a snapshot it found wrong, of suspectTick:
	// dropped if another player's state restores for the joiner.
	suspect     *member[I]
	suspectTick Tick
	// accused counts the late joiners that found this player's state
	// wrong and another player's right; accuser is the client id of the
	// first of them. The server cannot check either claim, so one
	// client's word drops nobody (it may lie to frame an honest player):
	// a second client id's does (ReasonSnapshot). Meanwhile the player is
	// asked for its state after the others.
	accused  int
	accuser  uint64
	snapAck  snapAck
	snapNext int // the next chunk to send
	snapPace pacer
	stats    PlayerStats
}

// tellDropped is how long the server keeps telling a dropped player why,
// one message per Update, so that losses do not hide it.
const tellDropped = time.Second

// NewServer returns the server of a session; now starts its clock.
func NewServer[I comparable, P Input[I]](cfg Config, now time.Time) (*Server[I, P], error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Server[I, P]{cfg: cfg, buf: make([]byte, maxMessage)}
	s.deliverFn, s.emitFn = s.deliver, s.emit
	s.in.inputs.inputs = make([]I, 0, cfg.Window)
	s.in.reports = make([]report, 0, maxReports)
	for p := range MaxPlayers {
		s.out.runs[p].inputs = make([]I, 0, cfg.Window)
	}
	return s, nil
}

// member returns the player in slot: the connected one if a departed
// player had the same slot before.
func (s *Server[I, P]) member(slot int) (int, *member[I]) {
	found := -1
	for i, m := range s.members {
		if m.slot == slot {
			if m.connected {
				return i, m
			}
			if found < 0 {
				found = i
			}
		}
	}
	if found < 0 {
		return -1, nil
	}
	return found, s.members[found]
}

// Join adds the client in slot as the next player. The session starts
// once Config.Players have joined and every one of them answered; a
// client that joins a full lobby watches if it is a spectator (see
// NewSpectator); a player's client is refused (Released says why).
// Once the session runs, Join refuses (ErrSession) unless late join is on
// (Config.MaxSnapshotBytes, datagrams, and a referee's game, if any, that
// is a Snapshotter): then a player's client takes the free seat of a
// player who left or was dropped, or is refused with the reason (Released)
// if every seat is taken or held; a spectator's client watches. Both get
// the game's state first: the referee's, or a player's, checked against
// the checksum all agreed on (the package doc's "Late join and rejoin").
func (s *Server[I, P]) Join(now time.Time, slot int) error {
	return s.JoinClient(now, slot, 0)
}

// JoinClient is Join for a client the driver knows by id (netmodel.Identified:
// netcode's client id from its connect token): a player who left or was
// dropped and comes back with its id takes its own seat again if it is
// free, whichever seat is lowest. Id 0 is no id.
func (s *Server[I, P]) JoinClient(now time.Time, slot int, clientID uint64) error {
	if s.state != stateLobby {
		return s.lateJoin(now, slot, clientID)
	}
	if _, m := s.member(slot); m != nil || s.watcher(slot) != nil {
		return fmt.Errorf("%w: slot %d already joined", ErrSession, slot)
	}
	delete(s.refused, slot)
	if len(s.members) == s.cfg.Players {
		// Every seat is taken: it watches from tick 0 (a player's client
		// is refused at its first message: handleWatcher).
		p, err := newPipe(&s.cfg, now)
		if err != nil {
			return err
		}
		s.watchers = append(s.watchers, &member[I]{slot: slot, clientID: clientID, connected: true, watch: true, pipe: p,
			lastHeard: now, progress: now, stats: PlayerStats{Slot: slot}})
		return nil
	}
	p, err := newPipe(&s.cfg, now)
	if err != nil {
		return err
	}
	s.members = append(s.members, &member[I]{
		slot: slot, clientID: clientID, connected: true, pipe: p, ring: newInputRing[I](s.cfg.Buffer),
		lastHeard: now, progress: now, stats: PlayerStats{Slot: slot},
	})
	return nil
}

// Lobby reports how many players have joined the session and how many
// it waits for (Config.Players): the session starts once they are equal
// and every player answered. It implements simmatch.Lobby.
func (s *Server[I, P]) Lobby() (joined, want int) { return len(s.members), s.cfg.Players }

// Leave removes the client in slot: from the lobby, or from a running
// session, where its input becomes the zero input from then on.
func (s *Server[I, P]) Leave(now time.Time, slot int) {
	delete(s.refused, slot)
	for k, j := range s.joiners {
		if j.slot == slot {
			s.joiners = append(s.joiners[:k], s.joiners[k+1:]...)
			return
		}
	}
	i, m := s.member(slot)
	if m == nil || !m.connected {
		for k, w := range s.watchers {
			if w.slot == slot {
				s.watchers = append(s.watchers[:k], s.watchers[k+1:]...)
				return
			}
		}
	}
	if m == nil {
		return
	}
	if s.state == stateLobby {
		s.members = append(s.members[:i], s.members[i+1:]...)
		return
	}
	if m.connected {
		s.strike(now, m.clientID)
	}
	s.depart(now, m)
	// A dropped player whose connection is gone cannot be told why any
	// more; a client that takes the slot next must not be told instead.
	m.stats.Told = true
}

// depart ends a player's part in a running session: its inputs from the
// first one the server lacks are the zero input, and every client fills
// them in itself once it learns the tick.
func (s *Server[I, P]) depart(now time.Time, m *member[I]) {
	if m.connected {
		m.connected, m.left, m.departedAt = false, m.ring.have, now
	}
}

// disconnect departs a player the server gave up on, for reason at tick,
// and starts telling it why.
func (s *Server[I, P]) disconnect(now time.Time, m *member[I], reason Reason, tick Tick) {
	if m.connected {
		s.depart(now, m)
		m.reason, m.reasonTick, m.droppedAt = reason, tick, now
		s.stats.Disconnected++
		s.stats.Drops[reason]++
		s.strike(now, m.clientID)
	}
}

// strike is a client id that left a seat of the running session, or was
// dropped from it, n times, and may take a seat again from until on.
type strike struct {
	id    uint64
	n     int
	until time.Time
}

// maxHoldOff bounds the hold-off of a client dropped many times.
const maxHoldOff = 10 * time.Minute

// strike holds the client id out of the session's seats after it left
// a seat or was dropped from it for the second time: MaxLag, then twice
// as long after each next time (the first time it may come back at
// once: a player whose link failed). The others wait up to MaxLag for a player's
// inputs before it is dropped, or until it leaves; without this a player
// could come straight back into its seat (late join) and make them wait
// again, for ever. Clients without an id (0) are not told apart.
func (s *Server[I, P]) strike(now time.Time, id uint64) {
	if id == 0 {
		return
	}
	k := slices.IndexFunc(s.strikes, func(x strike) bool { return x.id == id })
	if k < 0 {
		s.strikes = append(s.strikes, strike{id: id})
		k = len(s.strikes) - 1
	}
	x := &s.strikes[k]
	if x.n++; x.n > 1 {
		x.until = now.Add(min(maxHoldOff, s.cfg.MaxLag<<min(x.n-2, 20)))
	}
}

// heldOff returns the strike holding clientID out of the seats now, or
// nil.
func (s *Server[I, P]) heldOff(now time.Time, clientID uint64) *strike {
	for k := range s.strikes {
		if x := &s.strikes[k]; clientID != 0 && x.id == clientID && now.Before(x.until) {
			return x
		}
	}
	return nil
}

// Released reports whether the server is done with the client in slot:
// it is no player of the session (it timed out in the lobby), it left,
// or it was dropped and has been told why. A driver may then close its
// connection and tell it reason; code is a short name for counters
// (Reason.String(), "lobby" for a lobby timeout, "late_join" for a late
// joiner refused, "spectator" for a spectator dropped, "" for a player
// that left by itself), set as soon as the player is dropped, before
// done. It implements udpdrive.Releaser.
func (s *Server[I, P]) Released(slot int) (code, reason string, done bool) {
	if s.joiner(slot) != nil {
		return "", "", false
	}
	if r, ok := s.refused[slot]; ok {
		return r.code, r.reason, true
	}
	_, m := s.member(slot)
	if (m == nil || !m.connected) && s.watcher(slot) != nil {
		return "", "", false
	}
	switch {
	case m == nil:
		return "lobby", "lockstep: not a player of the session: it was silent in the lobby for " + s.cfg.Timeout.String(), true
	case m.connected:
		return "", "", false
	case m.reason == ReasonNone:
		return "", "lockstep: left the session", true
	}
	return m.reason.String(), (&DroppedError{Reason: m.reason, Tick: m.reasonTick, cfg: &s.cfg}).Error(), m.stats.Told
}

// sessionTick is the tick the session clock is in (negative before 0).
func (s *Server[I, P]) sessionTick(now time.Time) Tick {
	return Tick(math.Floor(float64(now.Sub(s.start)) / float64(s.cfg.TickDuration)))
}

// Receive takes one datagram from the client in slot. A malformed or
// forged message is dropped, counted and reported; nothing of it is
// applied.
func (s *Server[I, P]) Receive(now time.Time, slot int, datagram []byte) error {
	idx, m := s.member(slot)
	if m == nil || !m.connected {
		if w := s.watcher(slot); w != nil {
			idx, m = -1, w
		} else if j := s.joiner(slot); j != nil {
			idx, m = -1, j
		} else {
			return fmt.Errorf("%w: datagram from slot %d, not a connected player", ErrForged, slot)
		}
	}
	m.stats.PacketsReceived++
	m.stats.BytesReceived += uint64(len(datagram))
	s.rx = receiving[I]{now: now, idx: idx, m: m}
	err := m.pipe.receive(now, datagram, s.deliverFn)
	s.rx = receiving[I]{}
	if err != nil {
		m.stats.Dropped++
	}
	return err
}

// deliver handles a message Receive's pipe completed.
func (s *Server[I, P]) deliver(b []byte) error { return s.handle(s.rx.now, s.rx.idx, s.rx.m, b) }

func (s *Server[I, P]) handle(now time.Time, idx int, m *member[I], b []byte) error {
	msg := &s.in
	s.reader.Reset(b)
	near := m.ring.have
	if m.watch {
		near = max(0, s.minAck())
	}
	if m.waiting {
		// A joiner waiting for its snapshot: it is heard, and its first
		// message says whether it plays or watches; nothing else.
		if err := serializeClient[I, P](&s.reader, msg, s.cfg.Players, 0, s.cfg.Window, 0); err != nil {
			s.reject(m)
			return fmt.Errorf("%w: a waiting joiner: %w", ErrMalformed, err)
		}
		m.lastHeard = now
		return s.decideJoiner(now, m, msg.watch)
	}
	if err := serializeClient[I, P](&s.reader, msg, s.cfg.Players, idx, s.cfg.Window, near); err != nil {
		s.reject(m)
		return fmt.Errorf("%w: player %d: %w", ErrMalformed, idx, err)
	}
	if msg.watch || m.watch {
		return s.handleWatcher(now, idx, m, msg)
	}
	if err := s.check(now, idx, m, msg); err != nil {
		s.reject(m)
		return fmt.Errorf("player %d: %w", idx, err)
	}
	m.lastHeard = now
	if s.state == stateLobby {
		return nil
	}
	ack := m.ring.have // alone, it needs nothing from anyone
	if len(s.members) > 1 {
		ack = math.MaxInt32
	}
	for p := range s.members {
		if p != idx {
			m.acks[p] = max(m.acks[p], msg.acks[p])
			ack = min(ack, m.acks[p])
		}
	}
	if ack > m.ack {
		m.ack, m.progress = ack, now
	}
	r := &msg.inputs
	for t := max(r.first, m.ring.have); len(r.inputs) > 0 && t <= r.newest(); t++ {
		m.ring.push(r.inputs[t-r.first])
	}
	for _, rep := range msg.reports {
		s.compare(idx, rep)
	}
	if msg.source {
		s.takeSource(now, m, &msg.src)
	}
	if msg.snap {
		return s.takeSnapAck(now, idx, m, msg)
	}
	return nil
}

// check validates a decoded message against what an honest client can
// send, before anything of it is applied.
func (s *Server[I, P]) check(now time.Time, idx int, m *member[I], msg *clientMsg[I]) error {
	forged := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrForged}, args...)...)
	}
	r := &msg.inputs
	if s.state == stateLobby {
		if len(r.inputs) > 0 || len(msg.reports) > 0 || msg.source {
			return forged("inputs, checksums or state before the session started")
		}
		return nil
	}
	for p, o := range s.members {
		if p != idx && msg.acks[p] > o.ring.have {
			return forged("ack of player %d's tick %d, its inputs are known up to %d", p, msg.acks[p], o.ring.have)
		}
	}
	if len(r.inputs) > 0 {
		if r.first > m.ring.have {
			return forged("inputs from tick %d, the server needs %d first", r.first, m.ring.have)
		}
		if r.newest() < m.ring.have-Tick(s.cfg.Buffer) {
			return forged("inputs up to tick %d, older than the buffer before %d", r.newest(), m.ring.have)
		}
		if lead := s.sessionTick(now) + Tick(s.cfg.ticks(s.cfg.MaxLead)); r.newest() > lead {
			return forged("input for tick %d, the session clock allows up to %d", r.newest(), lead)
		}
	}
	all := s.allHave()
	for _, rep := range msg.reports {
		if rep.tick%s.cfg.ChecksumEvery != 0 || rep.tick < 0 || rep.tick >= all {
			return forged("checksum of tick %d (every %d, inputs known before %d)", rep.tick, s.cfg.ChecksumEvery, all)
		}
	}
	return nil
}

// othersHave is the first tick some other player's input is missing for.
func (s *Server[I, P]) othersHave(idx int) Tick {
	t := Tick(math.MaxInt32)
	for i, m := range s.members {
		if i != idx {
			t = min(t, m.ring.have)
		}
	}
	if t == math.MaxInt32 {
		return 0
	}
	return t
}

func (s *Server[I, P]) allHave() Tick {
	t := Tick(math.MaxInt32)
	for _, m := range s.members {
		t = min(t, m.ring.have)
	}
	return t
}

func (s *Server[I, P]) connected() int {
	n := 0
	for _, m := range s.members {
		if m.connected {
			n++
		}
	}
	return n
}

// Update runs what is due by now: timeouts, the start of the session,
// the zero inputs of disconnected players, and one message to every
// connected player through send. After a desync it keeps telling the
// players and returns the *DesyncError every time.
func (s *Server[I, P]) Update(now time.Time, send func(slot int, datagram []byte)) error {
	tick := s.sessionTick(now)
	for i := 0; i < len(s.members); i++ {
		m := s.members[i]
		m.pipe.update(now)
		m.pipe.acks(ignoreAck)
		if !m.connected {
			continue
		}
		if m.ack >= s.othersHave(i) || s.state == stateLobby {
			m.progress = now
		}
		// Progress, not presence: a player is judged by its inputs
		// advancing with the clock and its acks advancing with the
		// others' inputs, whatever else it sends.
		reason := ReasonNone
		switch {
		case now.Sub(m.lastHeard) > s.cfg.Timeout:
			reason = ReasonTimeout
		case now.Sub(m.progress) > s.cfg.Timeout:
			reason = ReasonNoAck
		case s.state == stateRunning && tick-m.ring.have > Tick(s.cfg.ticks(s.cfg.MaxLag)):
			reason = ReasonLag
		}
		if reason == ReasonNone {
			continue
		}
		if s.state == stateLobby {
			// Nobody depends on it yet: the place is free again.
			s.members = append(s.members[:i], s.members[i+1:]...)
			i--
			s.stats.Disconnected++
			s.stats.Drops[reason]++
			continue
		}
		s.disconnect(now, m, reason, tick)
	}
	switch s.state {
	case stateLobby:
		s.seatWanting(now)
		s.maybeStart(now)
		s.seatWanting(now)
	case stateRunning:
		s.feedDisconnected(now)
		s.dropLaggard(now)
		s.stepReferee()
		s.decideAll(now)
		s.updateFetch(now)
	}
	for i, m := range s.members {
		switch {
		case m.connected && m.snap != nil:
			if err := s.sendSnapshot(now, i, m, send); err != nil {
				return err
			}
		case m.connected:
			if err := s.sendTo(now, i, m, send); err != nil {
				return err
			}
		case m.reason != ReasonNone && !m.stats.Told:
			if now.Sub(m.droppedAt) >= tellDropped {
				m.stats.Told = true
				continue
			}
			if err := s.sendDropped(now, i, m, send); err != nil {
				return err
			}
		}
	}
	if err := s.updateWatchers(now, send); err != nil {
		return err
	}
	for _, j := range s.joiners {
		j.pipe.update(now)
		j.pipe.acks(ignoreAck)
		out := &s.out
		out.players, out.you, out.state = s.cfg.Players, max(j.seat, 0), stateLobby
		if _, err := s.transmit(now, -1, j, out, send); err != nil {
			return err
		}
	}
	if s.desync != nil {
		return s.desync
	}
	return nil
}

// seatWanting seats, in the lobby, the players' clients that joined it
// full (wants) in the seats that freed since, in the order they came;
// once the session runs it refuses those left.
func (s *Server[I, P]) seatWanting(now time.Time) {
	kept := s.watchers[:0]
	var refused []*member[I]
	for _, w := range s.watchers {
		switch {
		case !w.wants:
			kept = append(kept, w)
		case s.state != stateLobby:
			refused = append(refused, w)
		case len(s.members) < s.cfg.Players:
			s.members = append(s.members, &member[I]{slot: w.slot, clientID: w.clientID, connected: true, pipe: w.pipe,
				ring: newInputRing[I](s.cfg.Buffer), lastHeard: w.lastHeard, progress: now, stats: PlayerStats{Slot: w.slot}})
		default:
			kept = append(kept, w)
		}
	}
	clear(s.watchers[len(kept):])
	s.watchers = kept
	for _, w := range refused {
		s.letGo(w.slot, "late_join", fmt.Sprintf("%v: the session's %d seats are taken: try again when it is over (or join as a spectator)", ErrSession, s.cfg.Players))
	}
}

// maybeStart starts the session once every player has joined and every
// one's round trip is known: tick 0 is half the largest round trip ahead,
// so every player learns the start before it comes.
//
// A player whose round trip is still unknown StartTimeout after the lobby
// filled (its datagrams acknowledge none of the server's) cannot hold the
// others: the session starts without it, its seat departed from tick 0.
func (s *Server[I, P]) maybeStart(now time.Time) {
	if len(s.members) < s.cfg.Players {
		s.full = time.Time{}
		return
	}
	if s.full.IsZero() {
		s.full = now
	}
	late := now.Sub(s.full) >= s.cfg.StartTimeout
	var lead time.Duration
	known := 0
	for _, m := range s.members {
		if rtt, _ := m.pipe.rtt(); rtt > 0 {
			lead = max(lead, rtt/2)
			known++
		} else if !late {
			return
		}
	}
	if known == 0 {
		return
	}
	for _, m := range s.members {
		if rtt, _ := m.pipe.rtt(); rtt == 0 {
			s.disconnect(now, m, ReasonNoStart, 0)
		}
	}
	s.state, s.start = stateRunning, now.Add(lead+2*s.cfg.TickDuration)
}

// feedDisconnected gives every disconnected player the zero input up to
// as far ahead of the session clock as a client may be, so that the
// server's own bookkeeping (acks, checksums) covers every tick the clients
// fill in.
func (s *Server[I, P]) feedDisconnected(now time.Time) {
	var zero I
	tick := s.sessionTick(now) + Tick(s.cfg.ticks(s.cfg.MaxLead))
	limit := s.minAck()
	if s.ref != nil && !s.ref.off {
		limit = min(limit, s.ref.next)
	}
	limit += Tick(s.cfg.Buffer)
	for _, m := range s.members {
		for !m.connected && m.ring.have <= tick && m.ring.have < limit {
			m.ring.push(zero)
		}
	}
}

// minAck is the oldest tick a connected player still needs.
func (s *Server[I, P]) minAck() Tick {
	t := Tick(math.MaxInt32)
	for _, m := range s.members {
		if m.connected {
			t = min(t, m.ack)
		}
	}
	if t == math.MaxInt32 {
		return s.allHave()
	}
	return t
}

// dropLaggard disconnects the player holding the session back when the
// inputs still needed, and those the clock allows, no longer fit in the
// buffer: the player whose own inputs are missing at the oldest tick
// anyone needs, or else the one that does not acknowledge what it was
// sent; never the players waiting for it.
func (s *Server[I, P]) dropLaggard(now time.Time) {
	horizon := s.sessionTick(now) + Tick(s.cfg.ticks(s.cfg.MaxLead)+s.cfg.Window)
	for s.connected() > 0 && horizon-s.minAck() >= Tick(s.cfg.Buffer) {
		s.disconnect(now, s.laggard(), ReasonBuffer, s.sessionTick(now))
	}
}

// laggard is the connected player the oldest needed tick waits for.
func (s *Server[I, P]) laggard() *member[I] {
	low := s.minAck()
	var blame *member[I]
	for _, m := range s.members {
		if m.connected && m.ring.have <= low && (blame == nil || m.ring.have < blame.ring.have) {
			blame = m
		}
	}
	if blame != nil {
		return blame
	}
	for _, m := range s.members {
		if m.connected && m.ack == low {
			return m
		}
	}
	for _, m := range s.members {
		if m.connected {
			return m
		}
	}
	return nil
}

func (s *Server[I, P]) sendTo(now time.Time, idx int, m *member[I], send func(int, []byte)) error {
	out := &s.out
	out.players, out.you, out.state, out.watcher = s.cfg.Players, max(idx, 0), s.state, m.watch
	defer func() { out.watcher = false }()
	if s.state != stateLobby {
		out.clockMs = int32(now.Sub(s.start) / time.Millisecond)
		out.ack = m.ring.have
		for p, o := range s.members {
			if p != idx {
				end := o.ring.have
				out.departed[p], out.left[p] = !o.connected, o.left
				if !o.connected {
					end = min(end, o.left)
				}
				from := min(m.acks[p], end)
				if m.pipe.ordered() {
					from = max(from, m.sent[p])
				}
				o.ring.fill(&out.runs[p], from, min(int(end-from), s.cfg.Window))
			}
		}
		if s.desync != nil {
			out.desync = *s.desync
		}
		if f := s.fetch; f != nil && f.src == m {
			out.source, out.request = true, srcRequest{tick: f.tick, ack: f.state.ack}
		}
	}
	ok, err := s.transmit(now, idx, m, out, send)
	out.source = false
	if !ok || err != nil {
		return err
	}
	for p := range s.members {
		if r := &out.runs[p]; p != idx && len(r.inputs) > 0 {
			m.sent[p] = r.newest() + 1
		}
	}
	return nil
}

// ignoreAck is the server's acks callback: it reads acks from the
// messages, not from the pipe. A package function, not a literal: in
// generic code the literal is allocated at every call.
func ignoreAck(uint16) {}

// emit sends one datagram of the message transmit hands its pipe.
func (s *Server[I, P]) emit(d []byte) {
	m := s.tx.m
	m.stats.PacketsSent++
	m.stats.BytesSent += uint64(len(d))
	m.stats.MaxPacket = max(m.stats.MaxPacket, len(d))
	s.tx.send(m.slot, d)
}

// sendDropped tells a dropped player why.
func (s *Server[I, P]) sendDropped(now time.Time, idx int, m *member[I], send func(int, []byte)) error {
	out := &s.out
	out.players, out.you, out.state = s.cfg.Players, idx, stateDropped
	out.reason, out.reasonTick = m.reason, m.reasonTick
	_, err := s.transmit(now, idx, m, out, send)
	return err
}

// transmit encodes out and sends it to m; false when a stream's backlog
// did not take it.
func (s *Server[I, P]) transmit(now time.Time, idx int, m *member[I], out *serverMsg[I], send func(int, []byte)) (bool, error) {
	w := &s.writer
	w.Reset(s.buf)
	s.have = [MaxPlayers]Tick{}
	if err := serializeServer[I, P](w, out, s.cfg.Window, &s.have); err != nil {
		return false, fmt.Errorf("lockstep: encoding a message: %w", err)
	}
	s.tx = transmitting[I]{m: m, send: send}
	_, err := m.pipe.send(now, w.Bytes(), s.emitFn)
	s.tx = transmitting[I]{}
	if errors.Is(err, errBacklog) {
		m.stats.Backlogged++
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lockstep: sending to player %d: %w", idx, err)
	}
	return true, nil
}

// reject counts a message from m rejected as malformed or forged.
func (s *Server[I, P]) reject(m *member[I]) {
	m.stats.Rejected++
	s.rejected++
}

// Stats returns the server's figures.
func (s *Server[I, P]) Stats(now time.Time) ServerStats {
	st := s.stats
	st.Running = s.state != stateLobby
	if st.Running {
		st.Tick = s.sessionTick(now)
	}
	st.Desync = s.desync
	st.Refereed = s.ref != nil && !s.ref.off
	st.Watchers = len(s.watchers)
	st.Joining = len(s.joiners)
	st.Players = make([]PlayerStats, len(s.members))
	for i, m := range s.members {
		ps := m.stats
		ps.Connected, ps.Have, ps.Ack = m.connected, m.ring.have, m.ack
		ps.Reason, ps.ReasonTick = m.reason, m.reasonTick
		ps.RTT, _ = m.pipe.rtt()
		st.Players[i] = ps
	}
	return st
}

// lateJoin seats the client in slot in the running session: in the seat
// of a player who left or was dropped (and has been told): its own if it
// had one (clientID), else the lowest such that is not held for another
// client (Config.RejoinGrace). The joiner gets the game as bytes
// (Snapshotter), the state before a tick from, in chunks, with its
// checksum, then every player's inputs from from on; its seat's inputs
// are the zero input up to back, a tick the other clients cannot have
// reached (beyond the session clock by more than MaxLead), and its own
// from back on. The others learn that the seat is back from the next
// message and never wait for the joiner before back; after back only as
// for any player.
//
// With a referee the state is the referee's, at once. Without one the
// joiner waits while a player's state after a checkpoint tick is fetched
// (see updateFetch): the server cannot check those bytes, the joiner
// does, against the checksum every player reported for that tick.
//
// Every late client waits, unseated, for its first message
// (decideJoiner), which says whether it watches (then it is seated as a
// spectator from the same state: it never takes a player's seat, counts
// no late join and leaves no departed seat) or plays (then it takes a
// free seat, or is refused with the reason: the seat is held, or every
// seat taken).
func (s *Server[I, P]) lateJoin(now time.Time, slot int, clientID uint64) error {
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("%w: the session of %d players is running and "+format, append([]any{ErrSession, s.cfg.Players}, args...)...)
	}
	refereed, snap := s.ref != nil && !s.ref.off, false
	if refereed {
		_, snap = s.ref.game.(Snapshotter)
	}
	switch {
	case s.state != stateRunning:
		return refuse("stopped: try again when it is over")
	case s.cfg.MaxSnapshotBytes == 0:
		return fmt.Errorf("%w: the session of %d players is running (lockstep has no late join): try again when it is over", ErrSession, s.cfg.Players)
	case s.cfg.Transport != Datagrams || refereed && !snap:
		return refuse("takes no late joiner (it needs datagrams, MaxSnapshotBytes and, with a referee, a referee whose game is a Snapshotter): try again when it is over")
	}
	if _, m := s.member(slot); m != nil && m.connected || s.watcher(slot) != nil || s.joiner(slot) != nil {
		return fmt.Errorf("%w: slot %d already joined", ErrSession, slot)
	}
	delete(s.refused, slot)
	p, err := newPipe(&s.cfg, now)
	if err != nil {
		return err
	}
	s.joiners = append(s.joiners, &member[I]{slot: slot, clientID: clientID, connected: true, pipe: p, lastHeard: now, progress: now,
		seat: -1, waiting: true, stats: PlayerStats{Slot: slot}})
	return nil
}

// seatFromReferee seats the joiner m, a player or a spectator, with the
// referee's state at once.
func (s *Server[I, P]) seatFromReferee(now time.Time, m *member[I]) error {
	from := s.ref.next
	if !m.watch && from < s.members[m.seat].left {
		return s.refuseJoin(m, "seat %d's last inputs are not simulated yet: try again in a moment", m.seat)
	}
	b, err := s.ref.game.(Snapshotter).MarshalState()
	if err != nil {
		s.refuseJoin(m, "its state cannot be sent (the referee's MarshalState failed): try again later")
		return fmt.Errorf("lockstep: the referee's state for a late joiner: %w", err)
	}
	if len(b) > s.cfg.MaxSnapshotBytes {
		return s.refuseJoin(m, "its state takes %d bytes, more than MaxSnapshotBytes (%d)", len(b), s.cfg.MaxSnapshotBytes)
	}
	s.seat(now, m, from, b, uint32(s.ref.game.Checksum()), nil)
	return nil
}

// refuseJoin refuses the late joiner m with a reason that completes "the
// session of N players is running and": Released tells the driver, which
// tells the client. It returns nil: the refusal is no error of the call
// that led to it.
func (s *Server[I, P]) refuseJoin(m *member[I], format string, args ...any) error {
	s.refuse(m, fmt.Sprintf("%v: the session of %d players is running and "+format, append([]any{ErrSession, s.cfg.Players}, args...)...))
	return nil
}

// refuse lets go of the joiner or spectator m, whose client Released
// tells reason.
func (s *Server[I, P]) refuse(m *member[I], reason string) {
	s.dropJoiner(m)
	s.dropWatcher(m)
	s.letGo(m.slot, "late_join", reason)
}

// refusal is why the server let a client go that has no seat: a late
// joiner it refused, or a spectator it dropped; code is Released's.
type refusal struct{ code, reason string }

// letGo records why the client in slot, which has no seat, was let go:
// Released tells the driver.
func (s *Server[I, P]) letGo(slot int, code, reason string) {
	if s.refused == nil {
		s.refused = map[int]refusal{}
	}
	s.refused[slot] = refusal{code, reason}
}

// dropWatcher takes m out of the spectators, if it is one.
func (s *Server[I, P]) dropWatcher(m *member[I]) {
	for k, w := range s.watchers {
		if w == m {
			s.watchers = append(s.watchers[:k], s.watchers[k+1:]...)
			return
		}
	}
}

// dropJoiner takes m out of the waiting joiners, if it is one.
func (s *Server[I, P]) dropJoiner(m *member[I]) {
	for k, j := range s.joiners {
		if j == m {
			s.joiners = append(s.joiners[:k], s.joiners[k+1:]...)
			return
		}
	}
}

// decideJoiner takes what a waiting joiner's message says: it watches (a
// spectator takes no seat: with a referee it is seated at once, without
// one it waits for a player's state as the joiners do), or it plays: it
// takes a free seat (with a referee at once, without one once a player's
// state has come) or is refused with the reason. A client never turns
// from one into the other.
func (s *Server[I, P]) decideJoiner(now time.Time, m *member[I], watch bool) error {
	refereed := s.ref != nil && !s.ref.off
	switch {
	case watch && m.watch || !watch && m.seat >= 0:
		return nil
	case !watch && m.watch:
		return fmt.Errorf("%w: a spectator's message without its watch bit", ErrForged)
	case watch:
		m.watch, m.seat = true, -1
		if refereed {
			s.dropJoiner(m)
			return s.seatFromReferee(now, m)
		}
		return nil
	}
	if x := s.heldOff(now, m.clientID); x != nil {
		s.stats.HeldOff++
		return s.refuseJoin(m, "this client left its seat or was dropped %d times (the others wait for a player's inputs each time it comes back and stops): it may play again in %v (or join as a spectator)",
			x.n, x.until.Sub(now).Round(time.Millisecond))
	}
	seat, held := s.freeSeat(now, m.clientID)
	switch {
	case seat >= 0:
		m.seat = seat
		if refereed {
			s.dropJoiner(m)
			return s.seatFromReferee(now, m)
		}
		return nil
	case held != nil:
		return s.refuseJoin(m, "%v (or join as a spectator)", held)
	}
	return s.refuseJoin(m, "every seat is taken: try again when a player leaves (or join as a spectator)")
}

// freeSeat is the seat a late joiner with clientID takes: its own, if it
// left it, else the lowest free seat not held for another client nor
// promised to a waiting joiner; -1 if every seat is taken, with an error
// that says so if the only free seats are held.
func (s *Server[I, P]) freeSeat(now time.Time, clientID uint64) (int, error) {
	seat, held := -1, -1
	for i, m := range s.members {
		if m.connected || m.reason != ReasonNone && !m.stats.Told || s.promised(i) {
			continue
		}
		if clientID != 0 && m.clientID == clientID {
			return i, nil
		}
		if m.clientID != 0 && now.Sub(m.departedAt) < s.cfg.RejoinGrace {
			if held < 0 {
				held = i
			}
			continue
		}
		if seat < 0 {
			seat = i
		}
	}
	if seat < 0 && held >= 0 {
		m := s.members[held]
		return -1, fmt.Errorf("seat %d is held for the player who left it %v ago, for %v more (Config.RejoinGrace): try again then",
			held, now.Sub(m.departedAt).Round(time.Millisecond), (s.cfg.RejoinGrace - now.Sub(m.departedAt)).Round(time.Millisecond))
	}
	return seat, nil
}

// promised reports whether a waiting joiner will take seat.
func (s *Server[I, P]) promised(seat int) bool {
	for _, j := range s.joiners {
		if j.seat == seat {
			return true
		}
	}
	return false
}

// joiner returns the waiting joiner in slot, or nil.
func (s *Server[I, P]) joiner(slot int) *member[I] {
	for _, j := range s.joiners {
		if j.slot == slot {
			return j
		}
	}
	return nil
}

// seat puts the joiner m in its seat (m.seat), or among the spectators,
// with the state b before tick from, whose checksum is sum, from source
// (nil: the referee). A spectator plays no input: it joins at from.
func (s *Server[I, P]) seat(now time.Time, m *member[I], from Tick, b []byte, sum uint32, source *member[I]) {
	m.waiting, m.connected, m.ack, m.progress = false, true, from, now
	m.from, m.snap, m.snapSum, m.source = from, b, sum, source
	m.snapAck, m.snapNext = snapAck{}, 0
	for q := range m.acks {
		m.acks[q] = from
	}
	m.stats.JoinedFrom, m.stats.JoinedAt, m.stats.SnapshotBytes = from, from, len(b)
	if m.watch {
		s.watchers = append(s.watchers, m)
		return
	}
	old := s.members[m.seat]
	back := max(old.ring.have, s.sessionTick(now)+Tick(s.cfg.ticks(s.cfg.MaxLead))+1)
	var zero I
	for old.ring.have < back {
		old.ring.push(zero)
	}
	m.ring, m.stats.JoinedAt = old.ring, back
	s.members[m.seat] = m
	s.stats.LateJoins++
}

// takeSnapAck records a joiner's acknowledgement of its snapshot's chunks
// and, once it has them all, its verdict on them.
func (s *Server[I, P]) takeSnapAck(now time.Time, idx int, m *member[I], msg *clientMsg[I]) error {
	a := msg.snapAck
	if m.snap == nil || msg.snapOf != m.stats.JoinedAt {
		return nil // a late repeat, or about a snapshot before this one
	}
	n := chunks(len(m.snap))
	if k := n - a.have - 1; a.have > n || a.have == n && a.mask != 0 || k >= 0 && k < 64 && a.mask>>k != 0 {
		return fmt.Errorf("%w: acknowledgement of chunks %d and %#x of %d", ErrForged, a.have, a.mask, n)
	}
	if a.have > m.snapAck.have || a.have == m.snapAck.have && a.mask&^m.snapAck.mask != 0 {
		m.snapAck = a
		m.snapPace.progress()
		if m.watch {
			m.progress = now // a spectator's snapshot moves (updateWatchers)
		}
	}
	if m.snapAck.have < n {
		return nil
	}
	m.snap = nil
	if msg.verdict == verdictBad {
		s.badSnapshot(now, idx, m)
	} else if m.suspect != nil {
		// Another player's state restored: the first one lied, or this
		// joiner does.
		s.accuse(now, m.suspect, m.clientID, m.suspectTick)
		m.suspect = nil
	}
	return nil
}

// accuse records that the late joiner with clientID found src's state
// after tick wrong and then another player's right. Only the joiner can
// tell, and a hostile one can say so of an honest player's state: src is
// dropped (ReasonSnapshot) once joiners with two different client ids (a
// connect token each) have said so, never on one client's word; clients
// without an id (0) are not told apart and count for none.
func (s *Server[I, P]) accuse(now time.Time, src *member[I], clientID uint64, tick Tick) {
	src.accused++
	s.stats.Accusations++
	switch {
	case clientID == 0 || clientID == src.accuser:
	case src.accuser == 0:
		src.accuser = clientID
	default:
		s.disconnect(now, src, ReasonSnapshot, tick)
	}
}

// badSnapshot handles a joiner whose snapshot does not restore to the
// checksum it came with. The server cannot tell whether the source or
// the joiner is wrong: from a player, the joiner's seat departs, it waits
// for another player's state, and the first source becomes its suspect,
// dropped (ReasonSnapshot) once another state restores; if that one does
// not either, the joiner is dropped (ReasonJoinFailed) and the sources
// stay. From the referee, the game's MarshalState and UnmarshalState do
// not round-trip: the joiner is dropped (ReasonDesync). A spectator is
// treated as a joiner, but let go with the reason instead of dropped.
func (s *Server[I, P]) badSnapshot(now time.Time, idx int, m *member[I]) {
	s.stats.BadSnapshots++
	switch {
	case m.watch && (m.source == nil || m.suspect != nil):
		s.refuse(m, fmt.Sprintf("%v: the state after tick %d the server sent does not restore this spectator's game to its checksum (is it the same game, layout and player count?)", ErrSession, m.from-1))
		return
	case m.source == nil:
		s.disconnect(now, m, ReasonDesync, m.from-1)
		return
	case m.suspect != nil:
		s.disconnect(now, m, ReasonJoinFailed, m.from-1)
		return
	}
	s.stats.SnapshotFailures++
	s.failed = append(s.failed, m.source)
	j := &member[I]{slot: m.slot, clientID: m.clientID, connected: true, pipe: m.pipe, watch: m.watch,
		lastHeard: now, progress: now, waiting: true, seat: idx, stats: PlayerStats{Slot: m.slot},
		suspect: m.source, suspectTick: m.from - 1}
	if m.watch {
		s.dropWatcher(m)
	} else {
		s.depart(now, m)
		m.slot = -1 // the slot is the waiting joiner's now
	}
	s.joiners = append(s.joiners, j)
}

// sendSnapshot sends a joiner up to SnapshotBurst chunks it has not
// acknowledged, cycling over the snapWindow from the first it lacks.
func (s *Server[I, P]) sendSnapshot(now time.Time, idx int, m *member[I], send func(int, []byte)) error {
	out := &s.out
	out.players, out.you, out.state, out.joining, out.watcher = s.cfg.Players, max(idx, 0), stateLobby, true, m.watch
	out.clockMs = int32(now.Sub(s.start) / time.Millisecond)
	c := &out.chunk
	c.from, c.back, c.ack, c.total, c.sum = m.from, m.stats.JoinedAt, m.ring.have, len(m.snap), m.snapSum
	if m.watch {
		c.ack = c.back // a spectator sends no inputs
	}
	defer func() { out.joining, out.watcher = false, false }()
	wait := 100 * time.Millisecond // before a round trip is measured
	if rtt, _ := m.pipe.rtt(); rtt > 0 {
		wait = rtt/2 + s.cfg.TickDuration
	}
	return eachChunk(m.snapAck, &m.snapNext, len(m.snap), s.cfg.SnapshotBurst, func(i int) error {
		if !m.snapPace.due(now, i, wait) {
			return errNotDue
		}
		c.index = i
		c.data = m.snap[i*snapshotChunk : min(len(m.snap), (i+1)*snapshotChunk)]
		m.snapPace.sent(now, i)
		_, err := s.transmit(now, idx, m, out, send)
		return err
	})
}

// pacer paces the chunks of a snapshot the server sends: a chunk sent
// and not acknowledged goes again no sooner than half a round trip after
// its last sending, twice as long after each next try while the receiver
// acknowledges nothing new (at most maxChunkWait; progress starts the
// tries again), so that a receiver that acknowledges nothing gets less
// and less instead of SnapshotBurst chunks every Update, and one on a
// lossy link gets what it lost again soon. It keeps the chunks of the
// snapWindow, by index modulo snapWindow.
type pacer struct {
	chunk [snapWindow]int32 // the chunk in the slot, plus one (0: none)
	tries [snapWindow]uint8
	at    [snapWindow]time.Time
}

// maxChunkWait is the longest a chunk not acknowledged waits to go again.
const maxChunkWait = 2 * time.Second

// errNotDue tells eachChunk that a chunk is not due yet: it goes on with
// the next one.
var errNotDue = errors.New("lockstep: chunk not due")

func (p *pacer) due(now time.Time, i int, wait time.Duration) bool {
	k := i % snapWindow
	return int(p.chunk[k]) != i+1 || now.Sub(p.at[k]) >= min(maxChunkWait, wait<<max(1, p.tries[k])/2)
}

// progress starts the tries again: the receiver acknowledged something
// new.
func (p *pacer) progress() { clear(p.tries[:]) }

func (p *pacer) sent(now time.Time, i int) {
	k := i % snapWindow
	if int(p.chunk[k]) != i+1 {
		p.chunk[k], p.tries[k] = int32(i+1), 0
	}
	p.tries[k] = min(p.tries[k]+1, 16)
	p.at[k] = now
}

// eachChunk calls send with up to burst chunks of a total-byte snapshot
// that ack does not hold, cycling over the snapWindow from the first it
// lacks; next is where the cycle goes on.
func eachChunk(ack snapAck, next *int, total, burst int, send func(i int) error) error {
	lo, hi := ack.have, min(chunks(total), ack.have+snapWindow)
	for sent, tries := 0, 0; sent < burst && tries < hi-lo; tries++ {
		i := *next
		if i < lo || i >= hi {
			i = lo
		}
		*next = i + 1
		if i > lo && ack.mask&(1<<(i-lo-1)) != 0 {
			continue
		}
		if err := send(i); errors.Is(err, errNotDue) {
			continue
		} else if err != nil {
			return err
		}
		sent++
	}
	return nil
}

// liveAt has the bit of every connected player whose checksum of tick
// counts: a late joiner's from its snapshot's tick on.
func (s *Server[I, P]) liveAt(tick Tick) uint8 {
	var mask uint8
	for i, m := range s.members {
		if m.connected && m.from <= tick {
			mask |= 1 << i
		}
	}
	return mask
}

// watcher returns the spectator in slot, or nil.
func (s *Server[I, P]) watcher(slot int) *member[I] {
	for _, w := range s.watchers {
		if w.slot == slot {
			return w
		}
	}
	return nil
}

// handleWatcher takes a spectator's message; a player's message that
// says it watches turns it into a spectator: in the lobby (a spectator
// that joined while a seat was free) its seat is free again; in a running
// session (no honest client does it: a late client is seated only once
// its first message says it plays) its seat departs as if it left.
func (s *Server[I, P]) handleWatcher(now time.Time, idx int, m *member[I], msg *clientMsg[I]) error {
	if !msg.watch && m.watch {
		// A player's client that joined a full lobby: it asked to play,
		// it does not watch. It takes a seat that frees before the start
		// (a spectator's, say, whose first message had not come yet), or
		// is refused then (seatWanting).
		m.wants, m.lastHeard = true, now
		if s.state != stateLobby {
			s.refuse(m, fmt.Sprintf("%v: the session's %d seats are taken: try again when it is over (or join as a spectator)", ErrSession, s.cfg.Players))
		}
		return nil
	}
	if len(msg.inputs.inputs) > 0 || len(msg.reports) > 0 {
		s.reject(m)
		return fmt.Errorf("%w: a spectator's message with inputs or checksums", ErrForged)
	}
	for p, o := range s.members {
		if msg.acks[p] > o.ring.have {
			s.reject(m)
			return fmt.Errorf("%w: a spectator's ack of player %d's tick %d, its inputs are known up to %d", ErrForged, p, msg.acks[p], o.ring.have)
		}
	}
	if !m.watch {
		w := &member[I]{slot: m.slot, connected: true, watch: true, pipe: m.pipe, acks: m.acks, ack: m.ack,
			lastHeard: now, progress: now, from: m.from, snap: m.snap, snapSum: m.snapSum, snapAck: m.snapAck, snapNext: m.snapNext,
			stats: PlayerStats{Slot: m.slot, JoinedFrom: m.from, JoinedAt: m.stats.JoinedAt, SnapshotBytes: len(m.snap)}}
		if s.state == stateLobby {
			s.members = append(s.members[:idx], s.members[idx+1:]...)
		} else {
			m.slot = -1
			s.depart(now, m)
		}
		s.watchers = append(s.watchers, w)
		m = w
	}
	m.lastHeard = now
	if s.state == stateLobby {
		return nil
	}
	for p := range s.members {
		m.acks[p] = max(m.acks[p], msg.acks[p])
	}
	if msg.snap {
		return s.takeSnapAck(now, idx, m, msg)
	}
	return nil
}

// updateWatchers drops the spectators that went silent or fell out of
// the buffer (the players never wait for them), and sends the others
// their snapshot or the inputs.
func (s *Server[I, P]) updateWatchers(now time.Time, send func(int, []byte)) error {
	oldest := s.sessionTick(now) + Tick(s.cfg.ticks(s.cfg.MaxLead)+s.cfg.Window-s.cfg.Buffer)
	kept := s.watchers[:0]
	for _, w := range s.watchers {
		w.pipe.update(now)
		w.pipe.acks(ignoreAck)
		behind := -1
		if s.state == stateRunning && w.snap == nil {
			for p, o := range s.members {
				if w.acks[p] < min(oldest, o.ring.have) {
					behind = p
				}
			}
		}
		switch {
		case now.Sub(w.lastHeard) > s.cfg.Timeout:
			s.letGo(w.slot, "spectator", fmt.Sprintf("lockstep: this spectator was not heard for %v (Config.Timeout)", s.cfg.Timeout))
		case w.snap != nil && now.Sub(w.progress) > s.cfg.Timeout:
			s.letGo(w.slot, "spectator", fmt.Sprintf("lockstep: this spectator acknowledged no new chunk of its snapshot for %v (Config.Timeout): its link is too slow or lossy, or its client does not take snapshots", s.cfg.Timeout))
		case behind >= 0:
			s.letGo(w.slot, "spectator", fmt.Sprintf("lockstep: this spectator fell behind the server's buffer: it has player %d's inputs before tick %d, the server keeps only those from tick %d on "+
				"(its link is too slow or lossy to follow the session)", behind, w.acks[behind], min(oldest, s.members[behind].ring.have)))
		default:
			kept = append(kept, w)
			continue
		}
		s.stats.WatchersDropped++
	}
	clear(s.watchers[len(kept):])
	s.watchers = kept
	for _, w := range s.watchers {
		var err error
		switch {
		case s.state == stateLobby:
			out := &s.out
			out.players, out.you, out.state = s.cfg.Players, 0, stateLobby
			_, err = s.transmit(now, -1, w, out, send)
		case w.snap != nil:
			err = s.sendSnapshot(now, -1, w, send)
		default:
			err = s.sendTo(now, -1, w, send)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
