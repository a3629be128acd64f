package predict

import (
	"errors"
	"fmt"
	"time"

	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/wire"
)

// The server is the authority (seed 004, "server reconciliation"). It
// steps the game at a fixed rate with each player's input for that tick.
// An input that has not arrived when its tick is stepped is guessed (the
// player's last controls, never a shot); when the real one arrives later,
// within the window, and moves the game differently from the guess, the
// server restores its saved state of that tick and steps forward again
// with what it now knows. Clients run ahead of the server by their
// one-way delay plus a margin, steered by the lead the server reports, so
// that inputs normally arrive just before they are needed and rewinds
// stay rare.
//
// The alternatives: waiting for late inputs (lockstep: everyone plays at
// the slowest player's delay) or dropping them (the player's move is lost
// and its prediction snaps back). A rewind instead rewrites at most
// Window of history; the cost is bounded by each client's ResimBudget.

// Errors of the server.
var (
	ErrSlot   = errors.New("predict: no player in that slot")
	ErrFlood  = errors.New("predict: too many packets from one client")
	ErrJoined = errors.New("predict: slot already joined")
	ErrFull   = errors.New("predict: every player's character is taken")
)

// ServerCounters are the server's running totals, for the reports and for
// spotting a misbehaving client.
type ServerCounters struct {
	Ticks         uint64 // ticks stepped for real
	Rewinds       uint64 // rewinds done for late inputs
	ResimTicks    uint64 // ticks stepped again by rewinds
	RewindsDenied uint64 // rewinds refused: over the client's budget

	Packets      uint64 // input packets accepted
	BadPackets   uint64 // datagrams dropped: malformed, stale, duplicate
	FloodPackets uint64 // input packets dropped over the rate limit

	InputsLate      uint64 // inputs that arrived after their tick was stepped
	InputsTooOld    uint64 // inputs dropped: arrived more than MaxLate after their tick
	InputsTooNew    uint64 // inputs dropped: further ahead than MaxAhead
	BehindClamped   uint64 // shots whose lag-compensation claim was capped: judged MaxRewind before the server's tick
	ShotsTooLate    uint64 // shots refused: they arrived more than MaxRewind after their tick
	InputsGuessed   uint64 // player ticks stepped with a guessed input
	InputsIdle      uint64 // of those, ticks stepped with the zero input: the player was silent longer than Grace
	Shots, ShotHits uint64 // shots resolved (including again by rewinds) and hits committed
	ShotsRefused    uint64 // shots the game's rules refused (Shooter.Shot), including again by rewinds
	HitsDropped     uint64 // committed hits dropped: TakeCommitted was not called in time
	OutOfSpec       uint64 // bodies found outside the game's spec after a step (Escaper)

	Rejoins uint64 // clients back within Config.RejoinGrace: their characters were theirs again
	Expired uint64 // characters whose clients did not come back within Config.RejoinGrace
}

// Refusal is how many times the server refused something for one reason,
// for a summary or a metrics exporter (a counter labelled by Reason).
type Refusal struct {
	Reason string // snake_case, stable: a metric label
	Count  uint64
}

// Refusals appends every refusal the counters hold, one per reason, in a
// fixed order, zeros included: what a client sent or did that the server
// did not take as it came.
func (c ServerCounters) Refusals(dst []Refusal) []Refusal {
	return append(dst,
		Refusal{"malformed_packet", c.BadPackets},       // undecodable, stale, duplicate, or an input the game rejects
		Refusal{"packet_flood", c.FloodPackets},         // over the packet rate limit
		Refusal{"input_too_late", c.InputsTooOld},       // arrived more than MaxLate after its tick
		Refusal{"input_too_far_ahead", c.InputsTooNew},  // stamped more than MaxAhead ahead
		Refusal{"rewind_over_budget", c.RewindsDenied},  // the client's ResimBudget was spent
		Refusal{"shot_too_late", c.ShotsTooLate},        // arrived more than MaxRewind after its tick
		Refusal{"shot_claim_capped", c.BehindClamped},   // judged at MaxRewind from the server's tick, not where it claimed
		Refusal{"shot_refused_by_game", c.ShotsRefused}, // the game's rules (the arena's rate of fire)
		Refusal{"input_idle_after_grace", c.InputsIdle}, // silent past Grace: stepped standing still
	)
}

// frame is one tick of the server's ring: the inputs of every player for
// that tick and, once the world has reached it, the saved state.
type frame[I any] struct {
	tick  Tick
	saved bool // state, bodies, present, touching hold tick's values
	state State
	// bodies are the quantized states at the tick: what the clients are
	// sent, and what lag-compensated shots aim at.
	bodies   []wire.BodyState
	present  []bool
	touching []bool
	spawn    []bool // presence changes made when the world entered the tick
	park     []bool

	inputs   []I
	received []bool
	tooLate  []bool // an input came, later than MaxLate: dropped
	// back is how many ticks before the frame's tick a received shot is
	// judged at, shotOK whether it may be judged at all: fixed when it
	// arrives, from the server's tick then (the cap holds from the
	// server's clock, whatever the stamp).
	back   []uint8
	shotOK []bool
	// silent counts the ticks up to this one whose input was guessed, 0
	// if this one's arrived.
	silent []uint16
	// arrival and lead of each received input: when it first came and how
	// many ticks early, for the clock sync of its client.
	arrival []time.Time
	epoch   []uint8
	lead    []float64
	hits    []Hit
	// version changes whenever the world enters the tick, again when a
	// rewind steps through it: a baseline is only good while the frame
	// still holds what was sent.
	version uint64
}

// sentState remembers which tick, in which version, a state packet
// carried, for the delta baselines its ack makes available.
type sentState struct {
	seq     reliable.Sequence
	tick    Tick
	version uint64
	ok      bool
}

// peer is one connected client.
type peer struct {
	slot     int // the driver's slot of its connection
	ep       *reliable.Endpoint
	epoch    uint8
	lateFrom Tick // oldest tick a late input changed; valid if late
	late     bool
	budget   float64 // re-simulated ticks this client's late inputs may still cost
	tokens   float64 // packet rate limit
	sent     []sentState
	base     sentState // the newest acknowledged state: the delta baseline
}

// Server is the authoritative side of the model: a netmodel.Server.
type Server[I comparable, PI Input[I]] struct {
	cfg     Config
	game    Game[I]
	caps    caps[I]
	spec    wire.StateSpec
	start   time.Time
	dt      time.Duration
	window  int // ticks of history P
	ahead   int // ticks of MaxAhead
	behind  int // ticks of MaxRewind
	grace   int // ticks of Grace
	late    int // ticks of MaxLate
	tick    Tick
	ring    []frame[I]
	peers   []*peer // by player
	present []bool
	pending []int8 // per player: +1 spawn, -1 park at the next tick
	// slots maps a driver's slot to its client's player, plus one (0: no
	// client); owners are, per player, the client id of its client, if
	// known, and since when the character has waited for it to come
	// back (zero: not waiting).
	slots  []int
	owners []owner

	inputs    []I
	versions  uint64 // frame versions handed out
	committed []Hit
	hitsBy    []uint16 // committed hits by shooter, modulo 2^16
	counters  ServerCounters
	pkt       *statePacket[I, PI]
	codes     bodyCodes // of the frame the state packets are of
	in        inputPacket[I, PI]
	reader    wire.Reader
	writer    wire.Writer
	buf       []byte
}

// NewServer starts the authority at tick 0 at time now. The game must be
// in its starting state, with every player parked if it is a Joiner.
func NewServer[I comparable, PI Input[I]](cfg Config, game Game[I], now time.Time) (*Server[I, PI], error) {
	players, bodies := game.Players(), game.Bodies()
	if err := cfg.validate(players, bodies); err != nil {
		return nil, err
	}
	s := &Server[I, PI]{
		cfg: cfg, game: game, caps: capsOf(game), spec: game.Spec(), start: now, dt: cfg.tickDuration(),
		window: cfg.ticks(cfg.Window), ahead: cfg.ticks(cfg.MaxAhead), behind: cfg.ticks(cfg.MaxRewind), grace: cfg.ticks(cfg.Grace), late: cfg.ticks(cfg.MaxLate),
		peers: make([]*peer, players), present: make([]bool, players), pending: make([]int8, players), owners: make([]owner, players),
		inputs: make([]I, players), hitsBy: make([]uint16, players),
		buf: make([]byte, cfg.Reliable.MaxPacketSize),
	}
	s.pkt = newStatePacket[I, PI](players, bodies, s.caps.relayer, s.caps.shooter != nil)
	s.codes = newBodyCodes(bodies)
	s.pkt.codes = &s.codes
	if s.caps.joiner == nil {
		for p := range s.present {
			s.present[p] = true // always in the world
		}
	}
	s.ring = make([]frame[I], s.window+s.ahead+1)
	for i := range s.ring {
		f := &s.ring[i]
		f.tick = Tick(i) + 1 // never the tick of its own slot: stale until claimed
		f.state = game.NewState()
		f.bodies = make([]wire.BodyState, bodies)
		f.present, f.touching = make([]bool, players), make([]bool, players)
		f.spawn, f.park = make([]bool, players), make([]bool, players)
		f.inputs, f.received, f.tooLate = make([]I, players), make([]bool, players), make([]bool, players)
		f.back, f.shotOK, f.silent = make([]uint8, players), make([]bool, players), make([]uint16, players)
		f.arrival, f.epoch, f.lead = make([]time.Time, players), make([]uint8, players), make([]float64, players)
	}
	if err := s.enter(false); err != nil {
		return nil, err
	}
	return s, nil
}

// Tick returns the tick the world is at: every tick before it is stepped.
func (s *Server[I, PI]) Tick() Tick { return s.tick }

// Counters returns the running totals.
func (s *Server[I, PI]) Counters() ServerCounters { return s.counters }

// Refusals appends the refusals by reason (ServerCounters.Refusals).
func (s *Server[I, PI]) Refusals(dst []Refusal) []Refusal { return s.counters.Refusals(dst) }

// Game returns the authoritative game, for a viewer (between calls only).
func (s *Server[I, PI]) Game() Game[I] { return s.game }

// Present reports whether player p is in the game.
func (s *Server[I, PI]) Present(p int) bool { return p >= 0 && p < len(s.present) && s.present[p] }

// TakeCommitted appends the hits committed since the last call to dst:
// the outcomes that left the window and can no longer be rewritten. The
// server holds at most maxCommitted of them between calls.
func (s *Server[I, PI]) TakeCommitted(dst []Hit) []Hit {
	dst = append(dst, s.committed...)
	s.committed = s.committed[:0]
	return dst
}

// Endpoint returns slot's packet-ack endpoint (its RTT and loss), or nil.
func (s *Server[I, PI]) Endpoint(slot int) *reliable.Endpoint {
	if p, ok := s.Player(slot); ok {
		return s.peers[p].ep
	}
	return nil
}

// Player returns the player whose character the client in slot plays.
func (s *Server[I, PI]) Player(slot int) (int, bool) {
	if slot < 0 || slot >= len(s.slots) || s.slots[slot] == 0 {
		return 0, false
	}
	return s.slots[slot] - 1, true
}

// Waiting reports whether player p's character waits for its client to
// come back (Config.RejoinGrace).
func (s *Server[I, PI]) Waiting(p int) bool {
	return p >= 0 && p < len(s.owners) && !s.owners[p].away.IsZero()
}

// frameAt returns tick t's frame, claiming the slot if it held an older
// tick. Callers keep t within [tick-window, tick+ahead].
func (s *Server[I, PI]) frameAt(t Tick) *frame[I] {
	f := &s.ring[int(t)%len(s.ring)]
	if f.tick != t {
		f.tick, f.saved, f.hits = t, false, f.hits[:0]
		clear(f.inputs)
		clear(f.received)
		clear(f.tooLate)
		clear(f.spawn)
		clear(f.park)
	}
	return f
}

// saved returns tick t's frame if the world has been at t and the frame
// still holds it, or nil: a lookup into the past that claims nothing.
func (s *Server[I, PI]) saved(t Tick) *frame[I] {
	f := &s.ring[int(t)%len(s.ring)]
	if f.tick != t || !f.saved {
		return nil
	}
	return f
}

// offset returns t - s.tick as a signed distance.
func (s *Server[I, PI]) offset(t Tick) int64 { return int64(int32(t - s.tick)) }

// owner is who a player's character belongs to.
type owner struct {
	id    uint64
	known bool      // id is the client id of its client (JoinClient)
	away  time.Time // its client left at; the character waits until RejoinGrace after
	// While away: what its client had left of its rewind budget and of
	// its packet rate when it left, at tick left. A client that comes
	// back gets them (refilled as if it had stayed), not fresh ones: a
	// reconnect must not buy rewinds or packets.
	budget, tokens float64
	left           Tick
}

// maxSlots bounds the slots a driver may name: netcode has at most 256.
const maxSlots = 1024

// Join puts a client's player in the game at the next tick: the player
// numbered as its slot if that character is free, else the lowest free
// one. A character whose client left and may still come back
// (JoinClient) is not free.
func (s *Server[I, PI]) Join(now time.Time, slot int) error {
	return s.join(now, slot, 0, false)
}

// JoinClient implements netmodel.Identified: a client whose id is that of
// a client that left less than Config.RejoinGrace ago gets its character
// back, as it was (where it stands, its state in the game), whatever its
// slot; any other joins as with Join, its character kept for it by id
// when it leaves.
func (s *Server[I, PI]) JoinClient(now time.Time, slot int, clientID uint64) error {
	return s.join(now, slot, clientID, true)
}

func (s *Server[I, PI]) join(now time.Time, slot int, id uint64, known bool) error {
	if slot < 0 || slot >= maxSlots {
		return fmt.Errorf("%w: %d", ErrSlot, slot)
	}
	if _, ok := s.Player(slot); ok {
		return fmt.Errorf("%w: %d", ErrJoined, slot)
	}
	s.expire(now) // a grace over since the last Update is over
	p, back := s.choose(slot, id, known)
	if p < 0 {
		waiting := 0
		for q := range s.owners {
			if s.Waiting(q) {
				waiting++
			}
		}
		return fmt.Errorf("%w: %d players in play, %d characters waiting for their players to come back (at most %v after they left)",
			ErrFull, len(s.peers)-waiting, waiting, s.cfg.RejoinGrace)
	}
	ep, err := reliable.NewEndpoint(s.cfg.Reliable, now)
	if err != nil {
		return err
	}
	for len(s.slots) <= slot {
		s.slots = append(s.slots, 0)
	}
	s.slots[slot] = p + 1
	pr := &peer{slot: slot, ep: ep, budget: float64(s.window), tokens: packetBurst,
		sent: make([]sentState, s.cfg.Reliable.SentPacketsBufferSize)}
	s.peers[p] = pr
	if back {
		// The character is in the world where its client left it, and
		// the client's limits are where it left them, refilled since.
		o := &s.owners[p]
		away := float64(s.tick - o.left)
		pr.budget = min(pr.budget, o.budget+away*s.cfg.ResimBudget)
		pr.tokens = min(pr.tokens, o.tokens+away*packetRate)
		o.away = time.Time{}
		s.counters.Rejoins++
	} else {
		s.owners[p] = owner{id: id, known: known}
		s.pending[p] = 1
	}
	// Inputs a previous client of the player sent must not move this one.
	var zero I
	for i := range s.ring {
		s.ring[i].received[p], s.ring[i].tooLate[p], s.ring[i].inputs[p] = false, false, zero
	}
	return nil
}

// choose returns the player a client joining in slot plays, and whether
// it is one coming back to its character, or -1 if every character is
// taken.
func (s *Server[I, PI]) choose(slot int, id uint64, known bool) (int, bool) {
	if known {
		for p, o := range s.owners {
			if o.known && o.id == id && !o.away.IsZero() {
				return p, true
			}
		}
	}
	free := func(p int) bool { return s.peers[p] == nil && s.owners[p].away.IsZero() }
	if slot < len(s.peers) && free(slot) {
		return slot, false
	}
	for p := range s.peers {
		if free(p) {
			return p, false
		}
	}
	return -1, false
}

// Leave takes the client's player out of the game at the next tick, or,
// if the client may come back (JoinClient, Config.RejoinGrace), leaves
// its character standing where it is, moved by nothing but the world,
// until it does or the grace ends. Either way the inputs it sent for
// the ticks from now on are forgotten.
func (s *Server[I, PI]) Leave(now time.Time, slot int) {
	p, ok := s.Player(slot)
	if !ok {
		return
	}
	pr := s.peers[p]
	s.slots[slot], s.peers[p] = 0, nil
	var zero I
	for t := s.tick; s.offset(t) <= int64(s.ahead); t++ {
		f := s.frameAt(t)
		f.inputs[p], f.received[p], f.tooLate[p], f.shotOK[p] = zero, true, false, false
	}
	if o := &s.owners[p]; o.known && s.cfg.RejoinGrace > 0 && s.pending[p] <= 0 {
		o.away, o.budget, o.tokens, o.left = now, pr.budget, pr.tokens, s.tick
		return
	}
	s.owners[p] = owner{}
	s.pending[p] = -1
}

// expire parks the characters whose clients did not come back in time.
func (s *Server[I, PI]) expire(now time.Time) {
	for p := range s.owners {
		if o := &s.owners[p]; !o.away.IsZero() && now.Sub(o.away) >= s.cfg.RejoinGrace {
			*o = owner{}
			s.pending[p] = -1
			s.counters.Expired++
		}
	}
}

// maxCommitted bounds the hits the server holds for TakeCommitted.
const maxCommitted = 4096

// noEpoch marks an input whose lead does not count: it was sampled while
// the client's clock caught up.
const noEpoch = 0xff

// packetRate and packetBurst limit a client's input packets: a client
// sends one per tick, a little faster while its clock catches up, and
// jitter delivers them in bunches.
const (
	packetRate  = 2
	packetBurst = 16
)

// Receive takes one datagram from slot's client: its inputs go into the
// ring; one that arrives for a tick already stepped marks a rewind.
func (s *Server[I, PI]) Receive(now time.Time, slot int, datagram []byte) error {
	player, ok := s.Player(slot)
	if !ok {
		return fmt.Errorf("%w: %d", ErrSlot, slot)
	}
	p := s.peers[player]
	_, payload, err := p.ep.ReceivePacket(now, datagram)
	if err != nil {
		s.counters.BadPackets++
		return err
	}
	for _, seq := range p.ep.Acks() {
		if st := p.sent[int(seq)%len(p.sent)]; st.ok && st.seq == seq && (!p.base.ok || after(st.tick, p.base.tick)) {
			p.base = st
		}
	}
	p.ep.ClearAcks()
	if payload == nil {
		return nil // a fragment
	}
	if p.tokens < 1 {
		s.counters.FloodPackets++
		return ErrFlood
	}
	p.tokens--
	s.reader.Reset(payload)
	if err = s.in.Serialize(&s.reader); err == nil {
		err = finish(&s.reader)
	}
	if err != nil {
		s.counters.BadPackets++
		return fmt.Errorf("predict: input packet: %w", err)
	}
	s.counters.Packets++
	if d := (s.in.epoch - p.epoch) % epochs; d > 0 && d < epochs/2 {
		p.epoch = s.in.epoch
	}
	for i := 0; i < s.in.count; i++ {
		s.takeInput(now, player, p, s.in.first+Tick(i), s.in.inputs[i], i >= s.in.since)
	}
	return nil
}

// takeInput files one received input.
func (s *Server[I, PI]) takeInput(now time.Time, slot int, p *peer, t Tick, in I, timed bool) {
	d := s.offset(t)
	switch {
	case d < -int64(s.window) || d < 0 && s.saved(t) == nil:
		// Beyond the history: nothing to compare with. Early in a match
		// the window reaches before tick 0, where a stamp that wrapped
		// round names a tick the world never was at.
		s.counters.InputsTooOld++
		return
	case d > int64(s.ahead):
		s.counters.InputsTooNew++
		return
	}
	f := s.frameAt(t)
	if f.received[slot] || f.tooLate[slot] {
		return // a redundant copy
	}
	if d < -int64(s.late) {
		// Too late to rewrite history with: a lag switch's burst, or a
		// client whose clock has not caught up yet. Counted once, though
		// every packet until the ack repeats it; its lateness still goes
		// into the lead reports, so that such a client jumps its clock.
		s.counters.InputsTooOld++
		f.tooLate[slot] = true
		s.noteArrival(now, slot, p, f, t, timed)
		return
	}
	if fire, behind := s.caps.fires(in); fire {
		// The rewind a shot gets is the server's tick now (or its own
		// tick, if it came early) minus the tick it is judged at: at most
		// MaxRewind, whatever the stamp and the claim.
		late := int(max(0, -d))
		f.back[slot], f.shotOK[slot] = 0, late <= s.behind
		switch {
		case !f.shotOK[slot]:
			s.counters.ShotsTooLate++
		case int(behind) > s.behind-late:
			s.counters.BehindClamped++
			f.back[slot] = uint8(s.behind - late)
		default:
			f.back[slot] = behind
		}
	}
	if d < 0 {
		s.counters.InputsLate++
		if !sameStep(&s.caps, in, f.inputs[slot]) && (!p.late || s.offset(t) < s.offset(p.lateFrom)) {
			p.late, p.lateFrom = true, t
		}
	}
	f.inputs[slot], f.received[slot] = in, true
	s.noteArrival(now, slot, p, f, t, timed)
}

// noteArrival records when tick t's input from slot first came and how
// early, for the clock sync of its client.
func (s *Server[I, PI]) noteArrival(now time.Time, slot int, p *peer, f *frame[I], t Tick, timed bool) {
	f.arrival[slot], f.epoch[slot], f.lead[slot] = now, p.epoch, s.leadOf(now, t)
	if !timed {
		f.epoch[slot] = noEpoch
	}
}

// deadline is when tick t is stepped.
func (s *Server[I, PI]) deadline(t Tick) time.Time { return s.start.Add(time.Duration(t) * s.dt) }

// leadOf is how many ticks before its tick's deadline an input arriving
// now is.
func (s *Server[I, PI]) leadOf(now time.Time, t Tick) float64 {
	return float64(s.deadline(t).Sub(now)) / float64(s.dt)
}

// Update steps every tick due by now (at most MaxTicksPerUpdate), doing a
// rewind first when late inputs changed history, and sends each client
// the newest state.
func (s *Server[I, PI]) Update(now time.Time, send func(slot int, datagram []byte)) error {
	s.expire(now)
	stepped := false
	for n := 0; n < s.cfg.MaxTicksPerUpdate && !now.Before(s.deadline(s.tick)); n++ {
		if err := s.rewind(); err != nil {
			return err
		}
		if err := s.step(false); err != nil {
			return err
		}
		s.counters.Ticks++
		stepped = true
		for _, p := range s.peers {
			if p != nil {
				p.budget = min(p.budget+s.cfg.ResimBudget, float64(s.window))
				p.tokens = min(p.tokens+packetRate, packetBurst)
			}
		}
	}
	for player, p := range s.peers {
		if p == nil {
			continue
		}
		p.ep.Update(now)
		if !stepped || int(s.tick)%s.cfg.SendEvery != 0 {
			continue
		}
		if err := s.sendState(now, player, p, send); err != nil {
			return err
		}
	}
	return nil
}

// rewind re-simulates from the oldest tick a late input changed, for the
// clients whose budget allows it.
func (s *Server[I, PI]) rewind() error {
	from, found := s.tick, false
	for _, p := range s.peers {
		if p == nil || !p.late {
			continue
		}
		p.late = false
		cost := float64(-s.offset(p.lateFrom))
		if cost <= 0 || cost > float64(s.window) {
			continue // stepped already with it, or left the window
		}
		if cost > p.budget {
			s.counters.RewindsDenied++
			continue
		}
		p.budget -= cost
		if !found || s.offset(p.lateFrom) < s.offset(from) {
			from = p.lateFrom
		}
		found = true
	}
	if !found {
		return nil
	}
	now := s.tick
	s.counters.Rewinds++
	s.counters.ResimTicks += uint64(now - from)
	if err := s.game.Load(s.frameAt(from).state); err != nil {
		return fmt.Errorf("predict: rewind to tick %d: %w", from, err)
	}
	copy(s.present, s.frameAt(from).present)
	s.tick = from
	s.caps.resimulating(true)
	defer s.caps.resimulating(false)
	for s.tick != now {
		if err := s.step(true); err != nil {
			return err
		}
	}
	return nil
}

// step advances the world one tick: the inputs of tick (received or
// guessed), the shots, the game's step, then entering the next tick.
func (s *Server[I, PI]) step(resim bool) error {
	t := s.tick
	f := s.frameAt(t)
	prev := s.saved(t - 1)
	for p := range s.inputs {
		f.silent[p] = 0
		if !f.received[p] {
			// The last controls, for at most Grace: then stand still.
			var zero I
			f.inputs[p], f.silent[p] = zero, 1
			if prev != nil {
				f.silent[p] = prev.silent[p] + min(1, ^prev.silent[p])
				if int(f.silent[p]) <= s.grace {
					f.inputs[p] = s.caps.guess(prev.inputs[p])
				}
			}
			if !resim && s.present[p] && s.peers[p] != nil {
				s.counters.InputsGuessed++
				if int(f.silent[p]) > s.grace {
					s.counters.InputsIdle++
				}
			}
		}
		s.inputs[p] = f.inputs[p]
	}
	f.hits = f.hits[:0]
	for p, in := range s.inputs {
		// A guess never fires: a shot is always a received input's.
		if fire, _ := s.caps.fires(in); fire && s.present[p] && f.shotOK[p] {
			s.shoot(t, f, p, in, Tick(f.back[p]))
		}
	}
	s.game.Step(s.inputs)
	s.tick++
	if err := s.enter(resim); err != nil {
		return err
	}
	if !resim {
		s.commit()
	}
	return nil
}

// shoot resolves player p's shot at tick t against the states the shooter
// saw, back ticks ago (capped when it arrived).
func (s *Server[I, PI]) shoot(t Tick, f *frame[I], p int, in I, back Tick) {
	s.counters.Shots++
	for back > 0 && (back > t || s.saved(t-back) == nil) {
		back-- // the server started less than behind ago
	}
	seen := s.saved(t - back)
	switch target, outcome := s.caps.shooter.Shot(p, in, seen.bodies, seen.present); outcome {
	case ShotHit:
		f.hits = append(f.hits, Hit{Tick: t, Shooter: p, Target: target})
	case ShotRefused:
		s.counters.ShotsRefused++
	}
}

// enter finishes the step into s.tick: presence changes (pending ones
// now, the recorded ones again when re-simulating), quantization of every
// body, and the saved state.
func (s *Server[I, PI]) enter(resim bool) error {
	f := s.frameAt(s.tick)
	for p := range s.present {
		if !resim {
			f.spawn[p], f.park[p] = s.pending[p] > 0, s.pending[p] < 0
			s.pending[p] = 0
		}
		switch {
		case s.caps.joiner == nil:
		case f.spawn[p]:
			s.caps.joiner.Spawn(p)
			s.present[p] = true
		case f.park[p]:
			s.caps.joiner.Park(p)
			s.present[p] = false
		}
		f.touching[p] = s.present[p] && s.caps.touching(p)
	}
	if err := settle(s.game, &s.caps, s.spec, f.bodies, &s.counters.OutOfSpec); err != nil {
		return fmt.Errorf("predict: tick %d: %w", s.tick, err)
	}
	copy(f.present, s.present)
	s.game.Save(f.state)
	f.saved = true
	s.versions++
	f.version = s.versions
	return nil
}

// commit moves the hits of the tick that just left the window to the
// committed list.
func (s *Server[I, PI]) commit() {
	if int(s.tick) <= s.window {
		return
	}
	t := s.tick - Tick(s.window) - 1
	f := &s.ring[int(t)%len(s.ring)]
	if f.tick != t {
		return
	}
	s.counters.ShotHits += uint64(len(f.hits))
	for _, h := range f.hits {
		s.hitsBy[h.Shooter]++
	}
	if over := len(s.committed) + len(f.hits) - maxCommitted; over > 0 {
		// Nobody drains them: keep the newest, count the rest.
		n := copy(s.committed, s.committed[min(over, len(s.committed)):])
		s.committed = s.committed[:n]
		s.counters.HitsDropped += uint64(over)
	}
	s.committed = append(s.committed, f.hits...)
	f.hits = f.hits[:0]
}

// minLead is the worst lead of slot's inputs that arrived within the lead
// window in its current epoch, if any did.
func (s *Server[I, PI]) minLead(now time.Time, slot int, p *peer) (float64, bool) {
	lead, found := 0.0, false
	since := now.Add(-s.cfg.LeadWindow)
	for i := range s.ring {
		f := &s.ring[i]
		if !(f.received[slot] || f.tooLate[slot]) || f.epoch[slot] != p.epoch || f.arrival[slot].Before(since) {
			continue
		}
		if !found || f.lead[slot] < lead {
			lead, found = f.lead[slot], true
		}
	}
	return lead, found
}

// sendState sends player's client the world at the current tick.
func (s *Server[I, PI]) sendState(now time.Time, player int, p *peer, send func(int, []byte)) error {
	f, prev := s.saved(s.tick), s.saved(s.tick-1)
	m := s.pkt
	m.tick, m.you, m.epoch, m.hits = s.tick, player, p.epoch, s.hitsBy[player]
	m.lead = leadUnknown
	if lead, ok := s.minLead(now, player, p); ok {
		m.lead = int32(max(leadUnknown+1, min(leadLimit*leadScale-1, lead*leadScale)))
	}
	for i := range m.players {
		m.players[i] = playerInfo[I]{present: f.present[i], touching: f.touching[i]}
		if f.present[i] && prev != nil {
			m.players[i].input = prev.inputs[i]
		}
	}
	copy(m.bodies, f.bodies)
	s.codes.of(f.version)
	m.hasBase, m.base = false, 0
	var base *frame[I]
	if p.base.ok && after(s.tick, p.base.tick) && int(s.tick-p.base.tick) <= s.window {
		if b := s.saved(p.base.tick); b != nil && b.version == p.base.version {
			base, m.hasBase, m.base = b, true, s.tick-b.tick
		}
	}
	s.writer.Reset(s.buf)
	err := m.Serialize(&s.writer, s.spec, func(Tick) ([]wire.BodyState, []bool, bool) {
		return base.bodies, base.present, base != nil
	})
	if err != nil {
		return fmt.Errorf("predict: state of tick %d: %w", s.tick, err)
	}
	seq, datagrams, err := p.ep.SendPacket(now, s.writer.Bytes())
	if err != nil {
		return fmt.Errorf("predict: state of tick %d: %w", s.tick, err)
	}
	p.sent[int(seq)%len(p.sent)] = sentState{seq: seq, tick: s.tick, version: f.version, ok: true}
	for _, d := range datagrams {
		send(p.slot, d)
	}
	return nil
}
