package lockstep

import (
	"errors"
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
	input func(Tick) I
	pipe  pipe
	epoch time.Time // the client's own clock starts here
	last  time.Time // the previous Update

	state  int // stateLobby until the server's first running message
	me     int // player index; -1 until the server names it
	desync *DesyncError

	rings     [MaxPlayers]inputRing[I]
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
	stallStart              time.Time
	stalling                bool

	inputs []I
	reader wire.Reader
	msg    serverMsg[I]
	out    clientMsg[I]
	buf    []byte
	stats  Stats
}

const noRollback = Tick(math.MaxInt32)

// maxQueuedReports bounds the checksums waiting for an ack; older ones
// are dropped (the server just does not verify them).
const maxQueuedReports = 16

// NewClient returns a player's client around game. input is called once
// per tick, in tick order, with the tick whose input it returns: the
// keys of a human player, or a script for a bot. now starts the client's
// clock.
func NewClient[I comparable, P Input[I]](cfg Config, game Game[I], input func(Tick) I, now time.Time) (*Client[I, P], error) {
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
func (c *Client[I, P]) base() Tick { return max(0, min(c.confirmed()-1, c.serverHas)) }

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
	if err := c.check(m); err != nil {
		c.stats.Rejected++
		return err
	}
	c.lastHeard = now
	if m.state == stateLobby {
		return nil // a late lobby message, or the lobby itself
	}
	if c.state == stateLobby {
		c.state, c.me = stateRunning, m.you
		c.startDelay()
	}
	c.sampleClock(now, m.clockMs)
	if m.ack > c.serverHas {
		c.serverHas = m.ack
		c.lastProgress = now
	}
	est := c.serverTicks(now)
	for p := range c.cfg.Players {
		if p == c.me {
			continue
		}
		r, ring := &m.runs[p], &c.rings[p]
		had := ring.have
		for t := max(r.first, had); t <= r.newest(); t++ {
			in := r.inputs[t-r.first]
			if t < c.next && in != ring.last() {
				c.rollbackTo = min(c.rollbackTo, t)
			}
			ring.push(in)
		}
		// One sample per run: the oldest new input, the one a stall waits
		// for. Ages beyond MaxDelay (a player that timed out and is fed
		// idle inputs at once) are not a delay to adapt to.
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

// startDelay sets the delay when the session starts, before anything
// ran: InitialDelay, or more when the round trip measured in the lobby
// says remote inputs will take longer (sender → server → here is about
// one round trip, plus a frame at the server and one here).
func (c *Client[I, P]) startDelay() {
	rtt, _ := c.pipe.rtt()
	need := c.cfg.ticksF(rtt) + 2 + float64(c.cfg.Margin-c.cfg.Rollback)
	c.delay = min(max(c.delay, need, c.cfg.ticksF(c.cfg.MinDelay)), c.cfg.ticksF(c.cfg.MaxDelay))
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
	if m.state == stateLobby {
		return nil
	}
	if m.ack > c.rings[m.you].have {
		return forged("ack of tick %d, we sent up to %d", m.ack, c.rings[m.you].have)
	}
	limit := c.base() + Tick(c.cfg.Buffer)
	for p := range m.players {
		r := &m.runs[p]
		if p == m.you || len(r.inputs) == 0 {
			continue
		}
		if r.first > c.rings[p].have {
			return forged("player %d's inputs from tick %d, we need %d first", p, r.first, c.rings[p].have)
		}
		if r.newest() >= limit {
			return forged("player %d's input for tick %d, beyond the buffer at %d", p, r.newest(), limit)
		}
	}
	return nil
}

// sampleClock folds the server's session clock into the estimate of the
// offset between its clock and ours.
func (c *Client[I, P]) sampleClock(now time.Time, serverMs int32) {
	_, least := c.pipe.rtt()
	c.clock.sample(c.localMs(now), float64(serverMs), ms(least)/2)
}

// Update runs what is due by now: the local inputs of the ticks the
// server's clock has reached, a rollback if a prediction was wrong, up to
// MaxCatchUp new ticks, and one message to the server through send. It
// returns a *DesyncError or ErrTimeout when the session cannot go on.
func (c *Client[I, P]) Update(now time.Time, send func(datagram []byte)) error {
	if c.desync != nil {
		return c.desync
	}
	c.pipe.update(now)
	c.pipe.acks(c.acked)
	elapsed := max(0, ms(now.Sub(c.last))/ms(c.cfg.TickDuration))
	c.last = now
	if err := c.checkTimeout(now); err != nil {
		return err
	}
	c.stats.LastResimulated = 0
	if c.state != stateLobby {
		c.clock.slew(elapsed*ms(c.cfg.TickDuration), c.cfg.Slew)
		est := c.serverTicks(now)
		c.sampleInputs(est)
		c.adaptDelay(now, elapsed)
		c.resimulate()
		c.simulate(now, est)
		c.finalize()
	}
	return c.sendMessage(now, send)
}

func (c *Client[I, P]) checkTimeout(now time.Time) error {
	waiting := c.serverHas < c.rings[max(c.me, 0)].have
	if !waiting {
		c.lastProgress = now
	}
	if now.Sub(c.lastHeard) > c.cfg.Timeout || now.Sub(c.lastProgress) > c.cfg.Timeout {
		return fmt.Errorf("%w: the server was last heard %v ago and last acknowledged new inputs %v ago",
			ErrTimeout, now.Sub(c.lastHeard), now.Sub(c.lastProgress))
	}
	return nil
}

// sampleInputs asks for the local input of every tick the server's clock
// has reached, within the buffer.
func (c *Client[I, P]) sampleInputs(est float64) {
	ring := &c.rings[c.me]
	limit := c.base() + Tick(c.cfg.Buffer)
	for ring.have < limit && float64(ring.have) <= est {
		ring.push(c.input(ring.have))
	}
}

// adaptDelay moves the input delay toward what the measured ages of
// remote inputs need, by at most Slew of the elapsed time.
func (c *Client[I, P]) adaptDelay(now time.Time, elapsed float64) {
	target := c.cfg.ticksF(c.cfg.InitialDelay)
	if need, ok := c.need.get(int64(c.localMs(now) / 1000)); ok {
		target = need + float64(c.cfg.Margin+lossMargin(c.pipe.loss())-c.cfg.Rollback)
	}
	target = min(max(target, c.cfg.ticksF(c.cfg.MinDelay)), c.cfg.ticksF(c.cfg.MaxDelay))
	c.target = target
	c.stats.TargetDelay = c.cfg.duration(target)
	step := c.cfg.Slew * elapsed
	if c.delay < target {
		c.delay = min(target, c.delay+step)
	} else {
		c.delay = max(target, c.delay-step)
	}
}

// lossMargin is the ticks of consecutive losses on one hop that happen
// less than once in 1000 datagrams at loss rate p: redundancy recovers each
// loss one datagram later, and the largest age of the last 10 s already
// holds the bursts that did happen.
func lossMargin(p float64) int {
	if !(p > 0) {
		return 0
	}
	if p >= 0.5 {
		return 20
	}
	return int(math.Ceil(math.Log(1e-3) / math.Log(p)))
}

// resimulate restores the state before the earliest wrong prediction and
// simulates again up to where the game was, with the inputs now known.
func (c *Client[I, P]) resimulate() {
	if c.rollbackTo == noRollback {
		return
	}
	from := c.rollbackTo
	c.rollbackTo = noRollback
	c.game.Load(c.slot(from))
	kept := c.pending[:0]
	for _, r := range c.pending {
		if r.tick < from {
			kept = append(kept, r)
		}
	}
	c.pending = kept
	for t := from; t < c.next; t++ {
		c.step(t)
	}
	n := int(c.next - from)
	c.stats.Rollbacks++
	c.stats.Resimulated += uint64(n)
	c.stats.LastResimulated = n
	c.stats.MaxResimulated = max(c.stats.MaxResimulated, n)
}

func (c *Client[I, P]) slot(t Tick) int { return int(t) % c.cfg.Rollback }

// simulate steps the new ticks the delayed clock has reached, at most
// MaxCatchUp, and as far ahead of the known inputs as Rollback allows. A
// tick that is due but cannot run is a stall: the delay grows by the
// stall up to the target, so that a delay found too short goes on at
// normal speed once the inputs come; a longer stall (a player lost for
// seconds) is caught up at MaxCatchUp ticks per Update, as the article
// does, rather than kept as delay.
func (c *Client[I, P]) simulate(now time.Time, est float64) {
	due := Tick(math.Floor(est - c.delay))
	limit := c.confirmed() + Tick(c.cfg.Rollback)
	for n := 0; c.next <= due && c.next < limit && n < c.cfg.MaxCatchUp; n++ {
		c.step(c.next)
		c.next++
		c.stats.Steps++
		c.stalling = false
	}
	if c.next <= due && c.next >= limit {
		c.stats.Stalled++
		if !c.stalling {
			c.stalling, c.stallStart = true, now
		}
		c.stats.LongestStall = max(c.stats.LongestStall, now.Sub(c.stallStart))
		c.delay = max(c.delay, min(est-float64(c.next), c.target))
	}
}

// step simulates tick t with the known inputs and, for players whose
// input is missing, their last one.
func (c *Client[I, P]) step(t Tick) {
	predicted := t >= c.confirmed()
	if predicted {
		c.game.Save(c.slot(t))
	}
	for p := range c.cfg.Players {
		if r := &c.rings[p]; t < r.have {
			c.inputs[p] = r.at(t)
		} else {
			c.inputs[p] = r.last()
		}
	}
	c.game.Step(c.inputs)
	if t%c.cfg.ChecksumEvery == 0 {
		r := report{tick: t, sum: uint32(c.game.Checksum())}
		if predicted {
			c.pending = append(c.pending, r)
		} else {
			c.queueReport(r)
		}
	}
}

// finalize queues the checksums of predicted ticks whose inputs are now
// all known and proved right (a wrong one was re-simulated first).
func (c *Client[I, P]) finalize() {
	confirmed := c.confirmed()
	n := 0
	for n < len(c.pending) && c.pending[n].tick < confirmed {
		c.queueReport(c.pending[n])
		n++
	}
	c.pending = append(c.pending[:0], c.pending[n:]...)
}

func (c *Client[I, P]) queueReport(r report) {
	if len(c.reports) == maxQueuedReports {
		c.reports = append(c.reports[:0], c.reports[1:]...)
	}
	c.reports = append(c.reports, r)
	c.stats.Checksums++
	c.stats.LastChecksumTick, c.stats.LastChecksum = r.tick, r.sum
}

// acked drops the checksums an acknowledged message carried.
func (c *Client[I, P]) acked(token uint16) {
	upTo := c.carried[token%uint16(len(c.carried))]
	n := 0
	for n < len(c.reports) && c.reports[n].tick <= upTo {
		n++
	}
	c.reports = append(c.reports[:0], c.reports[n:]...)
}

// sendMessage sends the inputs the server lacks (at most Window, oldest
// first), the checksums it has not acknowledged and our ack.
func (c *Client[I, P]) sendMessage(now time.Time, send func([]byte)) error {
	m := &c.out
	m.ack, m.inputs.inputs, m.reports = 0, m.inputs.inputs[:0], m.reports[:0]
	carried := Tick(-1)
	if c.state != stateLobby {
		m.ack = c.ackTick()
		ring := &c.rings[c.me]
		from := c.serverHas
		if c.pipe.ordered() {
			from = max(from, c.sent)
		}
		ring.fill(&m.inputs, from, min(int(ring.have-from), c.cfg.Window))
		for _, r := range c.reports[:min(len(c.reports), maxReports)] {
			m.reports = append(m.reports, r)
			carried = r.tick
		}
	}
	w := wire.NewWriter(c.buf)
	if err := serializeClient[I, P](w, m, c.cfg.Window, 0); err != nil {
		return fmt.Errorf("lockstep: encoding a message: %w", err)
	}
	b := w.Bytes()
	token, err := c.pipe.send(now, b, func(d []byte) {
		c.stats.PacketsSent++
		c.stats.BytesSent += uint64(len(d))
		c.stats.MaxPacket = max(c.stats.MaxPacket, len(d))
		send(d)
	})
	if errors.Is(err, errBacklog) {
		c.stats.Backlogged++
		return nil
	}
	if err != nil {
		return fmt.Errorf("lockstep: sending: %w", err)
	}
	c.carried[token%uint16(len(c.carried))] = carried
	if len(m.inputs.inputs) > 0 {
		c.sent = m.inputs.newest() + 1
	}
	return nil
}

// ackTick tells the server we hold every other player's inputs before it.
func (c *Client[I, P]) ackTick() Tick {
	t := Tick(math.MaxInt32)
	for p := range c.cfg.Players {
		if p != c.me {
			t = min(t, c.rings[p].have)
		}
	}
	if t == math.MaxInt32 {
		return c.rings[c.me].have
	}
	return t
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
