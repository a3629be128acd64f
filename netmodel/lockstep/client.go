package lockstep

import (
	"fmt"
	"math"
	"time"

	"github.com/netphys/netphys/wire"
)

// Client is one player: it samples the local input every tick, sends it
// to the server with every input the server has not acknowledged, and
// steps its own copy of the game once every player's input for the next
// tick is known (or, in rollback mode, predicts the missing ones and
// re-simulates when a prediction was wrong). It implements
// netmodel.Client. It is not safe for concurrent use.
type Client[I comparable, P Input[I]] struct {
	cfg   Config
	game  Game[I]
	input Control[I]
	view  View
	pipe  pipe
	epoch time.Time // the client's own clock starts here
	last  time.Time // the previous Update

	state    int  // stateLobby until the server's first running message
	me       int  // player index; -1 until the server names it, always watching
	watch    bool // a spectator: no seat, no inputs, confirmed ticks only
	desync   *DesyncError
	dropped  *DroppedError
	mismatch error // the server's session is not the one configured
	// withhold, in tests only, makes the client a hostile player that
	// does not sample (so never sends) its input of tick t while it
	// returns true; est is the session clock in ticks.
	withhold func(t Tick, est float64) bool
	// mute, in tests only, makes the client a hostile source that never
	// answers the server's requests for its state.
	mute bool
	// distrust, in tests only, makes the client a hostile joiner that
	// finds its next distrust snapshots wrong, whatever they hold.
	distrust int
	// hoard, in tests only, makes the client a hostile joiner that
	// acknowledges no chunk of its snapshot.
	hoard bool
	// hideSums, in tests only, makes the client a player whose checksums
	// never reach the server.
	hideSums bool

	rings [MaxPlayers]inputRing[I]
	// departed players' inputs are zero from left on; the client fills
	// them in as the clock reaches them.
	departed  [MaxPlayers]bool
	left      [MaxPlayers]Tick
	serverHas Tick // the server holds our inputs for the ticks before it
	sent      Tick // over a stream: our inputs before it are sent
	next      Tick // the next tick to simulate
	// rollbackTo is the earliest simulated tick whose prediction proved
	// wrong, or noRollback.
	rollbackTo Tick
	pending    []report // checksums of ticks simulated on predictions
	reports    []report // checksums to send until acknowledged
	carried    [256]Tick

	clock  clock
	delay  float64   // input delay in ticks
	target float64   // the delay the measurements ask for, ticks
	need   windowMax // age of remote inputs when they arrive, ticks

	lastHeard, lastProgress time.Time
	// steppedAt is the last Update that ran a tick: a stall lasts from
	// it, since that frame's picture is what stays on screen.
	steppedAt, stallStart time.Time
	stalling              bool

	// joining is a late joiner's snapshot being received; nil once the
	// server has seen it complete (or for a player who started).
	joining *joinState
	// src is the state the server asked for (a late joiner's snapshot,
	// without a referee), nil when it asks for none.
	src *sourceState

	inputs []I
	reader wire.Reader
	msg    serverMsg[I]
	out    clientMsg[I]
	buf    []byte
	stats  Stats
}

const noRollback = Tick(math.MaxInt32)

// joinState is a late joiner's snapshot as it arrives.
type joinState struct {
	from, back Tick
	total      int
	sum        uint32 // the checksum the restored state must have
	chunkSet
	installed bool
	verdict   int // verdictGood or verdictBad once it has every chunk
}

// Control returns the local player's input for tick t: the keys of a
// human player, or a script for a bot. The client calls it once per
// tick, in tick order, when the session clock reaches t (before the
// Update simulates anything), with what it knows then in v, which is
// only valid during the call.
type Control[I any] func(t Tick, v *View) I

// View is what a client knows when it asks for an input.
type View struct {
	// Player is the client's player index: the server names it before
	// the first input is asked for.
	Player int
	// Next is the tick the game simulates next: Client.Game() holds the
	// state after tick Next-1 (the game's Next-th Step). The input of
	// tick t is simulated the input delay later, so Next ≤ t.
	Next Tick
	// Predicted reports whether that state rests on predicted inputs
	// (rollback: some tick before Next was simulated with a missing
	// input guessed as that player's last one), so that a rollback may
	// still change it. Pure lockstep never predicts.
	Predicted bool
}

// NewClient returns a player's client around game. input is called once
// per tick, in tick order (see Control). now starts the client's clock.
func NewClient[I comparable, P Input[I]](cfg Config, game Game[I], input Control[I], now time.Time) (*Client[I, P], error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if game == nil || input == nil {
		return nil, fmt.Errorf("%w: a client needs a game and an input function", ErrConfig)
	}
	p, err := newPipe(&cfg, now)
	if err != nil {
		return nil, err
	}
	c := &Client[I, P]{
		cfg: cfg, game: game, input: input, pipe: p,
		epoch: now, last: now, me: -1, rollbackTo: noRollback,
		lastHeard: now, lastProgress: now,
		delay:  cfg.ticksF(cfg.InitialDelay),
		inputs: make([]I, cfg.Players),
		buf:    make([]byte, maxMessage),
	}
	for i := range cfg.Players {
		c.rings[i] = newInputRing[I](cfg.Buffer)
		c.msg.runs[i].inputs = make([]I, 0, cfg.Window)
	}
	c.out.inputs.inputs = make([]I, 0, cfg.Window)
	c.out.reports = make([]report, 0, maxReports)
	return c, nil
}

// NewSpectator returns a spectator's client around game: it takes no
// seat and sends no inputs; the server relays it every player's inputs,
// and it simulates the ticks whose inputs are all known, the input delay
// behind the session clock (as a player would without rollback). The
// players never wait for it: a spectator that falls further behind than
// the server's buffer is disconnected. One that joins a running session
// gets the referee's state first, or without a referee a player's checked
// against the checksum every player agreed on, as a late joiner does (see
// Server.Join).
// Player() is -1; its checksums are kept (Stats) but not reported.
func NewSpectator[I comparable, P Input[I]](cfg Config, game Game[I], now time.Time) (*Client[I, P], error) {
	c, err := NewClient[I, P](cfg, game, func(Tick, *View) I { var zero I; return zero }, now)
	if err != nil {
		return nil, err
	}
	c.watch, c.input = true, nil
	return c, nil
}

// Game returns the client's game, for rendering.
func (c *Client[I, P]) Game() Game[I] { return c.game }

// Tick returns the next tick to simulate: the game's state is the one
// after tick Tick()-1.
func (c *Client[I, P]) Tick() Tick { return c.next }

// Player returns the client's player index, -1 before the server named it.
func (c *Client[I, P]) Player() int { return c.me }

// Running reports whether the session has started.
func (c *Client[I, P]) Running() bool { return c.state != stateLobby }

// confirmed is the first tick some player's input is missing for.
func (c *Client[I, P]) confirmed() Tick {
	t := c.rings[0].have
	for p := 1; p < c.cfg.Players; p++ {
		t = min(t, c.rings[p].have)
	}
	return t
}

// base is the oldest tick the rings must keep: the last confirmed input
// (the prediction), and our inputs the server has not acknowledged.
func (c *Client[I, P]) base() Tick {
	if c.watch {
		return max(0, c.confirmed()-1)
	}
	return max(0, min(c.confirmed()-1, c.serverHas))
}

// serverTicks is the client's estimate of the server's clock, in ticks.
func (c *Client[I, P]) serverTicks(now time.Time) float64 {
	return (c.localMs(now) + c.clock.offset) / ms(c.cfg.TickDuration)
}

func (c *Client[I, P]) localMs(now time.Time) float64 { return ms(now.Sub(c.epoch)) }

// Receive takes one datagram from the server. A malformed or forged
// message is dropped, counted and reported; nothing of it is applied.
func (c *Client[I, P]) Receive(now time.Time, datagram []byte) error {
	c.stats.PacketsReceived++
	c.stats.BytesReceived += uint64(len(datagram))
	err := c.pipe.receive(now, datagram, func(msg []byte) error { return c.handle(now, msg) })
	if err != nil {
		c.stats.Dropped++
	}
	return err
}

func (c *Client[I, P]) handle(now time.Time, b []byte) error {
	var near [MaxPlayers]Tick
	for p := range near {
		near[p] = c.rings[p].have
	}
	m := &c.msg
	c.reader.Reset(b)
	if err := serializeServer[I, P](&c.reader, m, c.cfg.Window, &near); err != nil {
		c.stats.Rejected++
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if m.players != c.cfg.Players && c.mismatch == nil {
		c.mismatch = fmt.Errorf("%w: the server's session has %d players, this client was set up for %d: every process of a match must agree on the player count",
			ErrConfig, m.players, c.cfg.Players)
	}
	if err := c.check(m); err != nil {
		c.stats.Rejected++
		return err
	}
	c.lastHeard = now
	switch m.state {
	case stateLobby:
		if m.joining && (c.state == stateLobby || c.joining != nil && !c.joining.installed) {
			return c.takeChunk(now, m)
		}
		return nil // a late lobby message, or the lobby itself
	case stateDropped:
		if c.dropped == nil {
			c.dropped = &DroppedError{Reason: m.reason, Tick: m.reasonTick, cfg: &c.cfg}
		}
		return nil
	}
	if c.joining != nil && !c.joining.installed {
		return nil // the snapshot is not all here: nothing to apply inputs to
	}
	if c.state == stateLobby {
		c.state = stateRunning
		if !c.watch {
			c.me = m.you
		}
		c.startDelay()
	}
	c.joining = nil // the server saw the snapshot complete
	c.takeRequest(m)
	c.sampleClock(now, m.clockMs)
	if m.ack > c.serverHas && !c.watch {
		c.serverHas = m.ack
		c.lastProgress = now
	}
	est := c.serverTicks(now)
	for p := range c.cfg.Players {
		if p == c.me {
			continue
		}
		if m.departed[p] {
			c.departed[p], c.left[p] = true, m.left[p]
		} else {
			// A late joiner took the seat: the server sends its inputs,
			// the zero ones before it joined included.
			c.departed[p] = false
		}
		r, ring := &m.runs[p], &c.rings[p]
		had := ring.have
		for t := max(r.first, had); t <= r.newest(); t++ {
			c.take(p, r.inputs[t-r.first])
		}
		// One sample per run: the oldest new input, the one a stall waits
		// for. Ages beyond MaxDelay (a backlog after a player was lost for
		// seconds) are not a delay to adapt to.
		if age := est - float64(had); ring.have > had && age <= c.cfg.ticksF(c.cfg.MaxDelay) {
			c.need.add(int64(c.localMs(now)/1000), age)
		}
	}
	if m.state == stateStopped && c.desync == nil {
		d := m.desync
		c.desync = &d
	}
	return nil
}

// take records player p's input for the first tick it lacks. When that
// tick was simulated on a prediction that differs, the next Update rolls
// back to it. (The prediction of every tick from have on is last(): an
// earlier wrong one has already set rollbackTo lower.)
func (c *Client[I, P]) take(p int, in I) {
	ring := &c.rings[p]
	if ring.have < c.next && in != ring.last() {
		c.rollbackTo = min(c.rollbackTo, ring.have)
	}
	ring.push(in)
}

// check validates a decoded message against what an honest server can
// send, before anything of it is applied.
func (c *Client[I, P]) check(m *serverMsg[I]) error {
	forged := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrForged}, args...)...)
	}
	if m.players != c.cfg.Players {
		return forged("%d players, the session has %d", m.players, c.cfg.Players)
	}
	if c.me >= 0 && m.you != c.me {
		return forged("player %d, we are %d", m.you, c.me)
	}
	if m.state == stateDropped || m.state == stateLobby && !m.joining {
		return nil
	}
	if m.watcher != c.watch {
		return forged("a message for a spectator %v, this client watches: %v", m.watcher, c.watch)
	}
	if m.state == stateLobby {
		return nil
	}
	if m.ack > c.rings[max(m.you, 0)].have && !c.watch {
		return forged("ack of tick %d, we sent up to %d", m.ack, c.rings[m.you].have)
	}
	limit := c.base() + Tick(c.cfg.Buffer)
	for p := range m.players {
		r := &m.runs[p]
		if p == m.you && !m.watcher {
			continue
		}
		if m.departed[p] {
			switch {
			case c.departed[p] && m.left[p] != c.left[p]:
				return forged("player %d left at tick %d, earlier at %d", p, m.left[p], c.left[p])
			case !c.departed[p] && m.left[p] < c.rings[p].have && !c.fromSnapshot(p):
				return forged("player %d left at tick %d, we have its inputs up to %d", p, m.left[p], c.rings[p].have)
			case len(r.inputs) > 0 && r.newest() >= m.left[p]:
				return forged("player %d's input for tick %d, after it left at %d", p, r.newest(), m.left[p])
			}
		}
		if len(r.inputs) == 0 {
			continue
		}
		if r.first > c.rings[p].have {
			return forged("player %d's inputs from tick %d, we need %d first", p, r.first, c.rings[p].have)
		}
		if r.newest() >= limit || r.newest() < c.rings[p].have-Tick(c.cfg.Buffer) {
			return forged("player %d's input for tick %d, outside the buffer [%d, %d)", p, r.newest(), c.rings[p].have-Tick(c.cfg.Buffer), limit)
		}
	}
	return nil
}

// fromSnapshot reports whether a late joiner holds none of player p's
// inputs but those its snapshot's state includes: p may have left
// before the snapshot's tick.
func (c *Client[I, P]) fromSnapshot(p int) bool {
	return c.stats.JoinedAt > 0 && c.rings[p].have == c.stats.JoinedFrom
}

// sampleClock folds the server's session clock into the estimate of the
// offset between its clock and ours.
func (c *Client[I, P]) sampleClock(now time.Time, serverMs int32) {
	_, least := c.pipe.rtt()
	c.clock.sample(c.localMs(now), float64(serverMs), ms(least)/2)
}

// Stats returns the client's figures.
func (c *Client[I, P]) Stats() Stats {
	s := c.stats
	s.Player, s.Tick, s.Confirmed = c.me, c.next, c.confirmed()
	s.InputDelay = c.cfg.duration(c.delay)
	s.RTT, _ = c.pipe.rtt()
	s.Loss = c.pipe.loss()
	s.Stalling = c.stalling
	return s
}

// takeChunk keeps one chunk of a late joiner's snapshot and, once it has
// them all, restores the game from them and checks its checksum against
// the one the server sent: the client then runs from the snapshot's tick,
// its own seat's inputs zero up to the tick it joins at. A snapshot whose
// checksum differs is not played: the client tells the server and waits,
// unseated, for another one (a later back).
func (c *Client[I, P]) takeChunk(now time.Time, m *serverMsg[I]) error {
	ch := &m.chunk
	j := c.joining
	if j != nil && j.verdict == verdictBad {
		if ch.back <= j.back {
			return nil // the bad snapshot's, late
		}
		j = nil
	}
	switch {
	case ch.total > c.cfg.MaxSnapshotBytes:
		c.stats.Rejected++
		return fmt.Errorf("%w: a snapshot of %d bytes, MaxSnapshotBytes is %d", ErrForged, ch.total, c.cfg.MaxSnapshotBytes)
	case ch.back-ch.from > Tick(c.cfg.Buffer/2):
		c.stats.Rejected++
		return fmt.Errorf("%w: a snapshot of tick %d joining at %d, beyond the buffer", ErrForged, ch.from, ch.back)
	case j != nil && (ch.from != j.from || ch.back != j.back || ch.total != j.total || ch.sum != j.sum || !c.watch && c.me != m.you):
		c.stats.Rejected++
		return fmt.Errorf("%w: snapshot chunk of tick %d, %d bytes, player %d; the snapshot is of tick %d, %d bytes, player %d",
			ErrForged, ch.from, ch.total, m.you, j.from, j.total, c.me)
	}
	c.sampleClock(now, m.clockMs)
	if j == nil {
		if _, ok := c.game.(Snapshotter); !ok {
			c.mismatch = fmt.Errorf("%w: the session is running and the server sends a snapshot to join it, but this game is not a lockstep.Snapshotter", ErrConfig)
			return nil
		}
		j = &joinState{from: ch.from, back: ch.back, total: ch.total, sum: ch.sum, chunkSet: newChunkSet(ch.total)}
		c.startJoin(now, j, m.you)
	}
	if ch.ack > c.serverHas && !c.watch && ch.ack <= c.rings[c.me].have {
		c.serverHas, c.lastProgress = ch.ack, now
	}
	if j.installed {
		return nil
	}
	j.put(ch.index, ch.data)
	if !j.complete() {
		return nil
	}
	err := c.game.(Snapshotter).UnmarshalState(j.buf)
	if err == nil && (uint32(c.game.Checksum()) != j.sum || c.distrust > 0) {
		err = fmt.Errorf("its checksum is %#x, the server sent %#x", uint32(c.game.Checksum()), j.sum)
		c.distrust = max(0, c.distrust-1)
	}
	j.buf = nil
	if err != nil {
		c.stats.BadSnapshots++
		j.verdict = verdictBad
		// Unseated until another snapshot comes (a spectator too: a
		// player's state may lie): nothing runs, and the messages of the
		// seat it had are ignored. The server lets it go if it cannot
		// send a good one, and says why.
		c.state, c.me = stateLobby, -1
		return nil
	}
	j.installed, j.verdict = true, verdictGood
	c.startDelay()
	c.stats.Joined = now.Sub(c.epoch)
	return nil
}

// startJoin makes the client run from a late joiner's snapshot j as the
// player you: it samples and sends its inputs from j.back on while the
// snapshot arrives, so that the others never wait for it; it simulates
// once it has the snapshot.
func (c *Client[I, P]) startJoin(now time.Time, j *joinState, you int) {
	c.joining = j
	if !c.watch {
		c.me = you
	}
	c.stats.SnapshotBytes = j.total
	c.state, c.next, c.rollbackTo = stateRunning, j.from, noRollback
	c.pending, c.reports, c.src = c.pending[:0], c.reports[:0], nil
	for p := range c.cfg.Players {
		c.rings[p].have = j.from
		c.departed[p], c.left[p] = false, 0
	}
	var zero I
	for own := &c.rings[max(c.me, 0)]; !c.watch && own.have < j.back; {
		own.push(zero)
	}
	c.serverHas, c.sent, c.lastProgress = j.back, j.back, now
	c.stats.JoinedFrom, c.stats.JoinedAt, c.stats.CaughtUp = j.from, j.back, 0
}
