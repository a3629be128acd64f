package predict

import (
	"fmt"
	"time"

	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// The client (seed 004, "client prediction"; seed 002) runs its own copy
// of the game ahead of the server: every tick it samples the player's
// controls, steps its copy at once with them, and sends every input the
// server has not acknowledged. When the server's state of tick s arrives
// it compares it with what it predicted for s. If its own player, or a
// body near it, is off by more than the quantization step, it loads its
// saved state of s, overwrites every body with the server's, and steps
// again through the inputs since (reconciliation); the visual jump is
// spread over Config.SmoothTime. Far bodies are left alone until they
// come near: they cannot change the player's next moves.
//
// Other players and the cubes are shown as the server had them a little
// in the past (interpolation), at a whole tick for every simulated tick,
// so that a shot's claim (Shooter.Trigger's behind) names exactly the
// states the shooter saw.

// ClientStats are a client's running figures.
type ClientStats struct {
	Ticks uint64 // ticks predicted for the first time

	// The comparisons start at the first tick predicted after the clock
	// settled: before, the inputs could not reach the server in time.

	// Compared counts own-player predictions checked against the server
	// while the player was clear of other dynamic bodies, Mispredicted
	// those off by more than the quantization step. The Contact pair
	// counts the ticks near a contact with a cube or another player.
	Compared, Mispredicted               uint64
	ComparedContact, MispredictedContact uint64
	// CorrectionSum and CorrectionMax are the sizes of the mispredictions,
	// metres: how far the server had the player from the prediction.
	CorrectionSum, CorrectionMax float64

	Reconciles uint64 // restores of a server state
	ResimTicks uint64 // ticks stepped again after them
	ClockJumps uint64 // jumps of the tick clock (start, lost sync)
	Stalls     uint64 // ticks held back: too far beyond the newest state
	DryTicks   uint64 // shown ticks with no server state after them
	Shots      uint64 // shots fired
	HitsSeen   uint64 // shots that hit what the client showed, once synced
	// HitsConfirmed counts the client's hits the server committed, as its
	// newest state says: beside HitsSeen, how far what the shooter saw and
	// what the server judged agree (a game that shoots only).
	HitsConfirmed uint64
	OutOfSpec     uint64 // bodies its prediction left outside the spec (Escaper)

	BadPackets uint64 // datagrams dropped
}

// View is what a client shows of the world at one of its ticks: the
// server's states of tick Tick (interpolated across a lost one), and the
// prediction of its own player. Control functions read it to aim.
type View struct {
	Tick    Tick           // the server tick the others are shown at
	You     int            // the client's player: its index in Bodies and Present
	Own     wire.BodyState // the predicted own player
	Bodies  []wire.BodyState
	Present []bool
}

// SeenHit is a hit as the shooter saw it, for comparison with the hits the
// server commits.
type SeenHit struct {
	Tick   Tick
	Target int
}

// Control returns the player's input for tick t, given what the client
// shows. It is called once per tick, in tick order. A Shooter's client
// sets the claim of a shot itself.
type Control[I any] func(t Tick, v *View) I

// predFrame is one predicted tick.
type predFrame[I any] struct {
	tick     Tick
	state    State
	bodies   []wire.BodyState // quantized, at the tick
	input    I                // own input for the tick
	touching bool             // own player touched a dynamic body stepping into the tick
	base     Tick             // the server state the prediction started from
	compared bool
}

// stateFrame is one received server state.
type stateFrame[I any] struct {
	tick    Tick
	valid   bool
	players []playerInfo[I]
	bodies  []wire.BodyState
}

// sentPacket remembers the newest input tick a packet carried.
type sentPacket struct {
	seq  reliable.Sequence
	last Tick
	ok   bool
}

// Client is one player's side of the model: a netmodel.Client.
type Client[I comparable, PI Input[I]] struct {
	cfg     Config
	game    Game[I]
	caps    caps[I]
	spec    wire.StateSpec
	ep      *reliable.Endpoint
	dt      time.Duration
	window  int
	control Control[I]

	started bool
	you     int
	tick    Tick    // the game is at this tick
	clock   float64 // where the tick clock says the game should be
	last    time.Time
	speed   float64
	epoch   uint8
	lead    float64 // newest lead report of the current epoch, ticks
	leadNew bool
	// synced is set once the server first reported the clock on target;
	// predictions of earlier ticks (the start) are not counted.
	synced     bool
	syncedFrom Tick
	// epochFrom is the first tick sampled on time in the current epoch,
	// epochAt when it started.
	epochFrom Tick
	epochAt   time.Time

	acked   Tick // inputs up to here reached the server
	hasAck  bool
	sent    []sentPacket
	pred    []predFrame[I]
	states  []stateFrame[I]
	newest  Tick // newest server state received
	gaps    []int
	delay   int
	remote  []I    // others' latest controls, for extrapolating them
	present []bool // presence in the client's game
	// basePresent is scratch for baseline.
	basePresent []bool
	pending     bool // a reconcile is due for newest
	inputs      []I
	view        View
	shownBefore []wire.BodyState // the view of the tick before, for Rendered
	offset      vecmath.Vec3     // visual correction still to decay
	seen        []SeenHit
	hits        uint16 // the newest state's count of committed hits (modulo 2^16)
	stats       ClientStats
	pkt         *statePacket[I, PI]
	in          inputPacket[I, PI]
	reader      wire.Reader
	writer      wire.Writer
	buf         []byte
}

// NewClient prepares a client whose game is in its starting state (the
// same one the server's started from). control samples the player.
func NewClient[I comparable, PI Input[I]](cfg Config, game Game[I], control Control[I], now time.Time) (*Client[I, PI], error) {
	players, bodies := game.Players(), game.Bodies()
	if err := cfg.validate(players, bodies); err != nil {
		return nil, err
	}
	ep, err := reliable.NewEndpoint(cfg.Reliable, now)
	if err != nil {
		return nil, err
	}
	c := &Client[I, PI]{
		cfg: cfg, game: game, caps: capsOf(game), spec: game.Spec(), ep: ep, dt: cfg.tickDuration(), window: cfg.ticks(cfg.Window),
		control: control, speed: 1, last: now,
		sent: make([]sentPacket, cfg.Reliable.SentPacketsBufferSize), gaps: make([]int, cfg.ticks(cfg.LeadWindow)),
		remote: make([]I, players), present: make([]bool, players), basePresent: make([]bool, players), inputs: make([]I, players),
		view: View{Bodies: make([]wire.BodyState, bodies), Present: make([]bool, players)},
		buf:  make([]byte, cfg.Reliable.MaxPacketSize),
	}
	c.pkt = newStatePacket[I, PI](players, bodies, c.caps.relayer, c.caps.shooter != nil)
	if c.caps.joiner == nil {
		for p := range c.present {
			c.present[p] = true // always in the world
		}
	}
	c.pred = make([]predFrame[I], c.window+1)
	for i := range c.pred {
		c.pred[i] = predFrame[I]{tick: Tick(i) + 1, // never its own slot's tick
			state: game.NewState(), bodies: make([]wire.BodyState, bodies)}
	}
	c.states = make([]stateFrame[I], c.window+1)
	for i := range c.states {
		c.states[i] = stateFrame[I]{players: make([]playerInfo[I], players), bodies: make([]wire.BodyState, bodies)}
	}
	return c, nil
}

// Stats returns the running figures.
func (c *Client[I, PI]) Stats() ClientStats { return c.stats }

// Endpoint returns the packet-ack endpoint (RTT, loss).
func (c *Client[I, PI]) Endpoint() *reliable.Endpoint { return c.ep }

// Started reports whether the first server state has arrived.
func (c *Client[I, PI]) Started() bool { return c.started }

// You returns the client's player, its index in View.Bodies and
// View.Present (valid once started): the character the server gave it,
// which after a rejoin need not be its slot.
func (c *Client[I, PI]) You() int { return c.you }

// Tick returns the client's predicted tick: its game is there.
func (c *Client[I, PI]) Tick() Tick { return c.tick }

// Delay returns how many ticks behind its own tick the client shows the
// others.
func (c *Client[I, PI]) Delay() int { return c.delay }

// Game returns the client's predicting game (between calls only).
func (c *Client[I, PI]) Game() Game[I] { return c.game }

// TakeSeenHits appends the hits seen since the last call to dst (at most
// the newest 4096).
func (c *Client[I, PI]) TakeSeenHits(dst []SeenHit) []SeenHit {
	dst = append(dst, c.seen...)
	c.seen = c.seen[:0]
	return dst
}

func (c *Client[I, PI]) predAt(t Tick) *predFrame[I]   { return &c.pred[int(t)%len(c.pred)] }
func (c *Client[I, PI]) stateAt(t Tick) *stateFrame[I] { return &c.states[int(t)%len(c.states)] }

// after reports whether tick a is later than b (ticks wrap after 2³²).
func after(a, b Tick) bool { return int32(a-b) > 0 }

// Receive takes one datagram from the server.
func (c *Client[I, PI]) Receive(now time.Time, datagram []byte) error {
	_, payload, err := c.ep.ReceivePacket(now, datagram)
	if err != nil {
		c.stats.BadPackets++
		return err
	}
	for _, seq := range c.ep.Acks() {
		if sp := c.sent[int(seq)%len(c.sent)]; sp.ok && sp.seq == seq && (!c.hasAck || after(sp.last, c.acked)) {
			c.acked, c.hasAck = sp.last, true
		}
	}
	c.ep.ClearAcks()
	if payload == nil {
		return nil
	}
	m := c.pkt
	c.reader.Reset(payload)
	if err = m.Serialize(&c.reader, c.spec, c.baseline); err == nil {
		err = finish(&c.reader)
	}
	if err == nil && c.started && m.you != c.you {
		err = fmt.Errorf("%w: player slot changed from %d to %d", ErrMessage, c.you, m.you)
	}
	if err != nil {
		c.stats.BadPackets++
		return fmt.Errorf("predict: state packet: %w", err)
	}
	if m.epoch == c.epoch && m.lead != leadUnknown {
		c.lead, c.leadNew = float64(m.lead)/leadScale, true
	}
	if !c.started {
		c.begin(m)
		return nil
	}
	if !after(m.tick, c.newest-Tick(len(c.states))) {
		return nil // too old to keep
	}
	sf := c.stateAt(m.tick)
	sf.tick, sf.valid = m.tick, true
	copy(sf.players, m.players)
	copy(sf.bodies, m.bodies)
	c.compare(sf)
	if after(m.tick, c.newest) {
		c.newest = m.tick
		c.confirm(m.hits)
		for i, pl := range m.players {
			c.remote[i] = pl.input
		}
	}
	return nil
}

// confirm takes the newest state's count of the client's committed hits.
func (c *Client[I, PI]) confirm(hits uint16) {
	c.stats.HitsConfirmed += uint64(hits - c.hits)
	c.hits = hits
}

// baseline finds a state the server may code a packet against: one the
// client received (and so acknowledged).
func (c *Client[I, PI]) baseline(t Tick) ([]wire.BodyState, []bool, bool) {
	sf := c.stateAt(t)
	if !sf.valid || sf.tick != t {
		return nil, nil, false
	}
	for p, pl := range sf.players {
		c.basePresent[p] = pl.present
	}
	return sf.bodies, c.basePresent, true
}

// begin starts the prediction from the first server state.
func (c *Client[I, PI]) begin(m *statePacket[I, PI]) {
	c.started, c.you = true, m.you
	c.hits = m.hits // committed before this client: another's, or its own before a rejoin
	c.newest, c.tick = m.tick, m.tick
	sf := c.stateAt(m.tick)
	sf.tick, sf.valid = m.tick, true
	copy(sf.players, m.players)
	copy(sf.bodies, m.bodies)
	for i, pl := range m.players {
		c.remote[i] = pl.input
	}
	c.load(sf)
	f := c.predAt(c.tick)
	f.tick, f.base, f.compared = c.tick, c.tick, true
	copy(f.bodies, sf.bodies)
	c.game.Save(f.state)
	// Until the server reports the lead, run ahead by the round trip, or
	// by 100 ms if no packet has been acknowledged yet.
	rtt := c.ep.Stats().RTTMax
	if rtt == 0 {
		rtt = 100 * time.Millisecond
	}
	c.clock = float64(c.tick) + float64(rtt)/float64(c.dt) + c.cfg.TargetLead
	c.epochFrom = Tick(c.clock)
	c.stats.ClockJumps++
}

// load overwrites the client's game with a server state.
func (c *Client[I, PI]) load(sf *stateFrame[I]) {
	for p, pl := range sf.players {
		if pl.present != c.present[p] && c.caps.joiner != nil {
			if pl.present {
				c.caps.joiner.Spawn(p)
			} else {
				c.caps.joiner.Park(p)
			}
			c.present[p] = pl.present
		}
	}
	for i, b := range sf.bodies {
		if i < len(sf.players) && !sf.players[i].present {
			continue
		}
		// The server sent states it quantized with the same spec; a state
		// the game refuses is a bad packet that decoded, and is skipped.
		if c.game.SetBody(i, b) != nil {
			c.stats.BadPackets++
		}
	}
}

// compare checks the prediction of the state's tick and decides whether
// the newest state needs a reconciliation.
func (c *Client[I, PI]) compare(sf *stateFrame[I]) {
	s := sf.tick
	if !after(c.tick, s) || after(c.tick-Tick(len(c.pred)), s) {
		return // not predicted yet, or too long ago
	}
	f := c.predAt(s)
	if f.tick != s || f.compared {
		return
	}
	f.compared = true
	if !c.synced || after(c.syncedFrom, s) {
		c.pending = true
		return
	}
	own := c.you
	errSteps := posError(c.spec, sf.bodies[own], f.bodies[own])
	contact := c.contactSince(f.base, s)
	if contact {
		c.stats.ComparedContact++
	} else {
		c.stats.Compared++
	}
	mismatch := errSteps > 1
	if mismatch {
		if contact {
			c.stats.MispredictedContact++
		} else {
			c.stats.Mispredicted++
		}
		d := sf.bodies[own].Position.Sub(f.bodies[own].Position).Length()
		c.stats.CorrectionSum += d
		c.stats.CorrectionMax = max(c.stats.CorrectionMax, d)
	}
	for p, pl := range sf.players {
		// The client's presence changes only when it loads a server
		// state, so the current one is what every frame was predicted with.
		if pl.present != c.present[p] {
			mismatch = true
		}
	}
	pos := sf.bodies[own].Position
	for i := range sf.bodies {
		if mismatch {
			break
		}
		if i == own || (i < len(sf.players) && !sf.players[i].present) {
			continue
		}
		if sf.bodies[i].Position.Sub(pos).Length() < c.cfg.NearRadius && posError(c.spec, sf.bodies[i], f.bodies[i]) > 1 {
			mismatch = true
		}
	}
	// The reconciliation starts from the newest state, which includes
	// what an older disagreeing one said.
	c.pending = c.pending || mismatch
}

// contactSince reports whether the own player touched another dynamic
// body, in the prediction or at the server, between tick from and to.
func (c *Client[I, PI]) contactSince(from, to Tick) bool {
	if after(to-Tick(c.window), from) {
		from = to - Tick(c.window)
	}
	for t := from; !after(t, to); t++ {
		if f := c.predAt(t); f.tick == t && f.touching {
			return true
		}
		if sf := c.stateAt(t); sf.valid && sf.tick == t && sf.players[c.you].touching {
			return true
		}
	}
	return false
}

// Update runs the ticks the clock says are due, after a reconciliation
// if a state asked for one, and sends the inputs.
func (c *Client[I, PI]) Update(now time.Time, send func(datagram []byte)) error {
	elapsed := now.Sub(c.last)
	c.last = now
	if !c.started {
		return c.sendInputs(now, send) // lets the endpoint measure the round trip
	}
	c.clock += float64(elapsed) / float64(c.dt) * c.speed
	c.steer(now)
	if c.pending {
		c.pending = false
		if err := c.reconcile(c.newest); err != nil {
			return err
		}
	}
	ran := false
	for n := 0; n < c.cfg.MaxTicksPerUpdate && float64(c.tick)+1 <= c.clock; n++ {
		if int(int32(c.tick-c.newest)) >= c.window {
			c.stats.Stalls++
			c.clock = float64(c.tick)
			break
		}
		if err := c.predict(); err != nil {
			return err
		}
		ran = true
	}
	c.decay(elapsed)
	c.ep.Update(now)
	if !ran {
		return nil
	}
	return c.sendInputs(now, send)
}

// reconcile restarts the prediction from the server's state of tick s.
func (c *Client[I, PI]) reconcile(s Tick) error {
	sf := c.stateAt(s)
	f := c.predAt(s)
	if !sf.valid || sf.tick != s || f.tick != s || after(s, c.tick) {
		return nil
	}
	before := c.game.Body(c.you).Position
	now := c.tick
	if err := c.game.Load(f.state); err != nil {
		return fmt.Errorf("predict: reconcile to tick %d: %w", s, err)
	}
	c.load(sf)
	copy(f.bodies, sf.bodies)
	f.base = s
	c.game.Save(f.state)
	c.stats.Reconciles++
	c.stats.ResimTicks += uint64(now - s)
	c.caps.resimulating(true)
	for c.tick = s; c.tick != now; {
		if err := c.step(c.predAt(c.tick).input, s); err != nil {
			c.caps.resimulating(false)
			return err
		}
	}
	c.caps.resimulating(false)
	jump := before.Sub(c.game.Body(c.you).Position)
	if jump.Length() > 2 {
		c.offset = vecmath.Vec3{} // a teleport: smoothing it would look worse
	} else {
		c.offset = c.offset.Add(jump)
	}
	return nil
}

// predict runs one new tick: view, control, shot, step.
func (c *Client[I, PI]) predict() error {
	t := c.tick
	c.observe(t)
	c.view.Own = c.game.Body(c.you)
	in := c.control(t, &c.view)
	if fire, _ := c.caps.fires(in); fire {
		in = c.caps.shooter.SetTrigger(in, true, uint8(min(c.delay, 255)))
		c.stats.Shots++
		// Shots before the clock settled reached the server too late to
		// count, like the predictions of those ticks.
		target, outcome := c.caps.shooter.Shot(c.you, in, c.view.Bodies, c.view.Present)
		if outcome == ShotHit && c.synced && !after(c.syncedFrom, t) {
			c.stats.HitsSeen++
			if len(c.seen) == maxCommitted {
				// Nobody drains them: keep the newest.
				c.seen = c.seen[:copy(c.seen, c.seen[1:])]
			}
			c.seen = append(c.seen, SeenHit{Tick: t, Target: target})
		}
	}
	c.stats.Ticks++
	return c.step(in, c.predAt(t).base)
}

// step advances the client's game from c.tick with the own input in.
func (c *Client[I, PI]) step(in I, base Tick) error {
	f := c.predAt(c.tick)
	f.input = in
	copy(c.inputs, c.remote)
	c.inputs[c.you] = in
	c.game.Step(c.inputs)
	c.tick++
	next := c.predAt(c.tick)
	next.tick, next.base, next.compared = c.tick, base, false
	next.touching = c.caps.touching(c.you)
	if err := settle(c.game, &c.caps, c.spec, next.bodies, &c.stats.OutOfSpec); err != nil {
		return fmt.Errorf("predict: predicting tick %d: %w", c.tick, err)
	}
	c.game.Save(next.state)
	return nil
}

// sendInputs sends every input the server has not acknowledged, up to
// MaxInputs of the newest.
func (c *Client[I, PI]) sendInputs(now time.Time, send func([]byte)) error {
	p := &c.in
	p.epoch, p.count, p.since = c.epoch, 0, 0
	if c.started {
		first := c.tick - Tick(min(MaxInputs, len(c.pred)-1))
		if c.hasAck && after(c.acked+1, first) {
			first = c.acked + 1
		}
		for t := first; after(c.tick, t); t++ {
			if c.predAt(t).tick != t {
				continue // before the start
			}
			if p.count == 0 {
				p.first = t
			}
			if after(c.epochFrom, t) {
				p.since = p.count + 1
			}
			p.inputs[p.count] = c.predAt(t).input
			p.count++
		}
	}
	c.writer.Reset(c.buf)
	if err := p.Serialize(&c.writer); err != nil {
		return fmt.Errorf("predict: input packet: %w", err)
	}
	seq, datagrams, err := c.ep.SendPacket(now, c.writer.Bytes())
	if err != nil {
		return fmt.Errorf("predict: input packet: %w", err)
	}
	c.sent[int(seq)%len(c.sent)] = sentPacket{seq: seq, last: p.first + Tick(p.count) - 1, ok: p.count > 0}
	for _, d := range datagrams {
		send(d)
	}
	return nil
}
