package lockstep

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/wire"
)

// A run is a series of one player's inputs for consecutive ticks from
// first, the oldest its sender has not seen acknowledged. Coded as the
// article does, oldest input whole and each next one as a bit "same as the
// previous" or that bit and the input:
//
//	count                 BitsRequired(Window) bits, 0 to Window
//	if count > 0:
//	  newest tick         16 bits, the low bits of first+count-1
//	  input[0]            the game's Serialize
//	  for i in 1..count-1:
//	    same              1 bit
//	    input[i]          the game's Serialize, only if !same
//
// 120 changing 6-bit inputs take 1+16+6+119·7 bits ≈ 107 bytes; 120
// unchanged ones 17 bytes.
type run[I any] struct {
	first  Tick
	inputs []I // reused between messages; at most Window long
}

func (r *run[I]) newest() Tick { return r.first + Tick(len(r.inputs)) - 1 }

// unwrap returns the tick whose low 16 bits are low and which lies within
// ±32768 of near.
func unwrap(low uint16, near Tick) Tick {
	return near + Tick(int16(low-uint16(near)))
}

// serializeRun codes r. When reading, near is a tick the receiver knows
// to be within 32768 of the run's newest, and r.inputs is refilled in its
// own capacity (at most window inputs: no size read from the input
// allocates).
func serializeRun[I comparable, P Input[I]](s wire.Stream, r *run[I], window int, near Tick) error {
	reading := s.Mode() == wire.Reading
	count := len(r.inputs)
	if err := wire.SerializeInt(s, &count, 0, window); err != nil {
		return err
	}
	if reading {
		r.inputs = r.inputs[:0]
	}
	if count == 0 {
		return nil
	}
	low := uint16(r.first + Tick(count) - 1)
	if err := wire.SerializeBits(s, &low, 16); err != nil {
		return err
	}
	if reading {
		r.first = unwrap(low, near) - Tick(count) + 1
	}
	var zero I
	for i := range count {
		if reading {
			r.inputs = append(r.inputs, zero)
		}
		// Serialize through a pointer into the slice: a local would
		// escape to the heap through the generic call.
		in := &r.inputs[i]
		if i > 0 {
			same := *in == r.inputs[i-1]
			if err := wire.SerializeBool(s, &same); err != nil {
				return err
			}
			if same {
				*in = r.inputs[i-1]
				continue
			}
		}
		if err := P(in).Serialize(s); err != nil {
			return fmt.Errorf("input %d of %d: %w", i, count, err)
		}
	}
	return nil
}

// report is a client's checksum of the state after a tick.
type report struct {
	tick Tick
	sum  uint32 // the low 32 bits of Game.Checksum
}

// clientMsg is what client you of players sends the server:
//
//	watch                 1 bit: a spectator, which acks every player and
//	                      sends neither inputs nor checksums
//	ack                   16 bits: the smallest of the acks below
//	for every other player (every player, watching), in index order:
//	  ahead               1 bit
//	  if ahead:
//	    spread            14 bits: its ack − ack − 1
//	inputs                a run of the client's own inputs
//	reports               2 bits, 0 to maxReports
//	  tick                16 bits
//	  checksum            32 bits
//	snapshot              1 bit: a late joiner acknowledges its snapshot
//	  back                32 bits: the snapshot's back (which names it)
//	  have                16 bits: it holds the chunks before this one
//	  mask                64 bits: and chunk have+1+i if bit i is set
//	  verdict             2 bits: 0 not all here, 1 restored and its
//	                      checksum is the one the server sent, 2 not
//	source                1 bit: a chunk of the state the server asked
//	                      this player for (a late joiner's snapshot)
//	  tick                32 bits: the checkpoint tick it is the state after
//	  total               32 bits: its size in bytes; 0: this client cannot
//	                      send it (its game is no Snapshotter, or it
//	                      simulated the tick before it was asked)
//	  if total > 0:
//	    index             16 bits: the chunk's index
//	    data              the chunk: snapshotChunk bytes, the last one fewer
//
// Each player's ack says the client holds that player's inputs for the
// ticks before it; one per player, so that a player whose inputs are late
// does not hold back the others' beyond the window.
type clientMsg[I any] struct {
	watch   bool
	acks    [MaxPlayers]Tick // acks[you] is not sent, unless watching
	inputs  run[I]
	reports []report // at most maxReports
	snap    bool     // a late joiner's acknowledgement of its snapshot
	snapAck snapAck
	snapOf  Tick // with snap: the back of the snapshot acknowledged
	verdict int  // with snap: verdictPending, verdictGood or verdictBad
	source  bool // a chunk of the state the server asked for follows
	src     srcChunk
}

// A late joiner's verdict on its snapshot, once it has every chunk.
const (
	verdictPending = 0 // not all here
	verdictGood    = 1 // restored, its checksum is the one the server sent
	verdictBad     = 2 // does not restore, or its checksum differs
)

// srcChunk is one chunk of the state a player sends the server as a late
// joiner's snapshot (total 0: it cannot).
type srcChunk struct {
	tick  Tick
	total int
	index int
	data  []byte // reused; at most snapshotChunk
}

// srcRequest is the server asking a player for its state after a
// checkpoint tick, with what it has received of it.
type srcRequest struct {
	tick Tick
	ack  snapAck
}

// snapAck acknowledges snapshot chunks: every one before have, and
// have+1+i for every bit i of mask.
type snapAck struct {
	have int
	mask uint64
}

// snapWindow is how many chunks from the first one missing the server
// sends before it hears of them: the one missing and the mask's.
const snapWindow = 65

// A late joiner's snapshot travels in chunks of snapshotChunk bytes, one
// per message, at most maxSnapshotChunks of them.
const (
	snapshotChunk     = 1024
	maxSnapshotChunks = 1 << 16
)

// maxAckSpread bounds how far one player's ack may lie ahead of the
// smallest: the largest Config.Buffer.
const maxAckSpread = 1 << 14

// serializeClient codes m. near is a tick the reader knows to be close to
// every tick m holds.
func serializeClient[I comparable, P Input[I]](s wire.Stream, m *clientMsg[I], players, you, window int, near Tick) error {
	reading := s.Mode() == wire.Reading
	if err := wire.SerializeBool(s, &m.watch); err != nil {
		return err
	}
	if m.watch {
		you = -1
	}
	base := Tick(math.MaxInt32)
	for p := range players {
		if p != you {
			base = min(base, m.acks[p])
		}
	}
	low := uint16(base)
	if err := wire.SerializeBits(s, &low, 16); err != nil {
		return err
	}
	if reading {
		base = unwrap(low, near)
	}
	atBase := false
	for p := range players {
		if p == you {
			continue
		}
		ahead := m.acks[p] > base
		if err := wire.SerializeBool(s, &ahead); err != nil {
			return err
		}
		atBase = atBase || !ahead
		spread := 0
		if ahead {
			spread = int(m.acks[p] - base - 1)
			if err := wire.SerializeInt(s, &spread, 0, maxAckSpread-1); err != nil {
				return err
			}
			spread++
		}
		if reading {
			m.acks[p] = base + Tick(spread)
		}
	}
	if reading && players > 1 && !atBase {
		// The base is the smallest ack: a message without one at it is
		// not one an encoder writes, and would not encode back.
		return fmt.Errorf("no ack at the base %d: %w", base, wire.ErrInvalid)
	}
	if err := serializeRun[I, P](s, &m.inputs, window, near); err != nil {
		return err
	}
	n := len(m.reports)
	if err := wire.SerializeInt(s, &n, 0, maxReports); err != nil {
		return err
	}
	if reading {
		m.reports = m.reports[:0]
	}
	for i := range n {
		var r report
		if !reading {
			r = m.reports[i]
		}
		low := uint16(r.tick)
		if err := wire.SerializeBits(s, &low, 16); err != nil {
			return err
		}
		if err := wire.SerializeBits(s, &r.sum, 32); err != nil {
			return err
		}
		if reading {
			r.tick = unwrap(low, near)
			m.reports = append(m.reports, r)
		}
	}
	if err := wire.SerializeBool(s, &m.snap); err != nil {
		return err
	}
	if m.snap {
		back := uint32(m.snapOf)
		if err := wire.SerializeBits(s, &back, 32); err != nil {
			return err
		}
		m.snapOf = Tick(int32(back))
		if err := serializeSnapAck(s, &m.snapAck); err != nil {
			return err
		}
		if err := wire.SerializeInt(s, &m.verdict, verdictPending, verdictBad); err != nil {
			return err
		}
	}
	if err := wire.SerializeBool(s, &m.source); err != nil || !m.source {
		return err
	}
	return serializeSrcChunk(s, &m.src)
}

func serializeSnapAck(s wire.Stream, a *snapAck) error {
	if err := wire.SerializeInt(s, &a.have, 0, maxSnapshotChunks); err != nil {
		return err
	}
	return wire.SerializeBits(s, &a.mask, 64)
}

// serializeSrcChunk codes a chunk of a source's state. The chunk's length
// follows from total and index, so a reader checks both first; nothing
// read sizes an allocation (data is refilled within snapshotChunk).
func serializeSrcChunk(s wire.Stream, c *srcChunk) error {
	tick, total := uint32(c.tick), uint32(c.total)
	for _, v := range []*uint32{&tick, &total} {
		if err := wire.SerializeBits(s, v, 32); err != nil {
			return err
		}
	}
	c.tick = Tick(int32(tick))
	if total > maxSnapshotChunks*snapshotChunk || c.tick < 0 {
		return fmt.Errorf("a state of %d bytes after tick %d: %w", total, c.tick, wire.ErrInvalid)
	}
	c.total = int(total)
	if c.total == 0 {
		c.index, c.data = 0, c.data[:0]
		return nil
	}
	if err := wire.SerializeInt(s, &c.index, 0, maxSnapshotChunks-1); err != nil {
		return err
	}
	if c.index >= chunks(c.total) {
		return fmt.Errorf("chunk %d of a %d-byte state: %w", c.index, c.total, wire.ErrInvalid)
	}
	return serializeChunkData(s, &c.data, c.total, c.index)
}

// serializeChunkData codes chunk index of a total-byte snapshot, whose
// length the reader knows from them.
func serializeChunkData(s wire.Stream, data *[]byte, total, index int) error {
	n := min(snapshotChunk, total-index*snapshotChunk)
	if s.Mode() == wire.Reading {
		*data = (*data)[:0]
	} else if len(*data) != n {
		return fmt.Errorf("chunk of %d bytes, want %d: %w", len(*data), n, wire.ErrInvalid)
	}
	if err := wire.SerializeBytes(s, data, snapshotChunk); err != nil {
		return err
	}
	if len(*data) != n {
		return fmt.Errorf("chunk of %d bytes, want %d: %w", len(*data), n, wire.ErrInvalid)
	}
	return nil
}

// Session states on the wire.
const (
	stateLobby   = 0 // waiting for players
	stateRunning = 1
	stateStopped = 2 // a desync stopped the session
	stateDropped = 3 // the server dropped this client
)

// serverMsg is what the server sends one client:
//
//	players-1             2 bits
//	you                   2 bits: the client's player index (0, watching)
//	state                 2 bits: lobby, running or stopped
//	if running or stopped:
//	  watcher             1 bit: to a spectator: every player's run follows
//	  clock               32 bits: the server's session time in ms, signed
//	                      (negative before tick 0)
//	  ack                 16 bits: the server holds the client's inputs for
//	                      the ticks before it
//	  for every other player, in index order:
//	    departed          1 bit: the player left or was disconnected
//	    if departed:
//	      left            16 bits: its inputs from this tick on are the
//	                      zero input, which the client fills in itself
//	    a run of its inputs (before left, if departed)
//	  source              1 bit: the server asks the client for its state
//	                      (a late joiner's snapshot)
//	  if source:
//	    tick              32 bits: the checkpoint tick it is the state after
//	    have              16 bits: the server holds the chunks before this one
//	    mask              64 bits: and chunk have+1+i if bit i is set
//	if stopped:
//	  tick                32 bits: the tick whose checksums differ
//	  a, b                2 bits each: two players that disagree
//	  referee             1 bit: the server's own simulation differs from
//	                      every player's (a bug: the game is not deterministic)
//	if dropped (nothing of running's fields):
//	  reason              4 bits: a Reason
//	  tick                32 bits: the tick it names
//	if lobby:
//	  joining             1 bit: a chunk of a late joiner's snapshot follows
//	  if joining:
//	    watcher           1 bit, as above
//	    clock             32 bits, as above
//	    from              32 bits: the snapshot is the state before this tick
//	    back              32 bits: the joiner's inputs count from this tick
//	                      (its seat's inputs before it are the zero input)
//	    ack               32 bits: the server holds the joiner's inputs for
//	                      the ticks before it (it sends them from back on)
//	    total             32 bits: the snapshot's size in bytes
//	    sum               32 bits: the checksum the restored state must have
//	    index             16 bits: the chunk's index
//	    data              the chunk: snapshotChunk bytes, the last one fewer
type serverMsg[I any] struct {
	players, you int
	state        int
	clockMs      int32
	ack          Tick
	runs         [MaxPlayers]run[I] // runs[you] is unused
	departed     [MaxPlayers]bool
	left         [MaxPlayers]Tick
	desync       DesyncError
	reason       Reason // stateDropped
	reasonTick   Tick
	joining      bool // stateLobby: a snapshot chunk for a late joiner
	chunk        snapChunk
	watcher      bool // to a spectator
	source       bool // running: the server asks for the client's state
	request      srcRequest
}

// snapChunk is one chunk of a late joiner's snapshot.
type snapChunk struct {
	from, back Tick
	ack        Tick
	total      int
	sum        uint32 // the low 32 bits of Game.Checksum of the state
	index      int
	data       []byte // reused; at most snapshotChunk
}

// chunks is how many chunks a snapshot of total bytes takes.
func chunks(total int) int { return (total + snapshotChunk - 1) / snapshotChunk }

// serializeServer codes m. When reading, near[p] is a tick close to
// player p's inputs and to the acks, and players bounds m.players (the
// reader's Config.Players).
func serializeServer[I comparable, P Input[I]](s wire.Stream, m *serverMsg[I], window int, near *[MaxPlayers]Tick) error {
	reading := s.Mode() == wire.Reading
	if err := wire.SerializeInt(s, &m.players, 1, MaxPlayers); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &m.you, 0, MaxPlayers-1); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &m.state, stateLobby, stateDropped); err != nil {
		return err
	}
	if reading && m.you >= m.players {
		return fmt.Errorf("player %d of %d: %w", m.you, m.players, wire.ErrInvalid)
	}
	switch m.state {
	case stateLobby:
		if err := wire.SerializeBool(s, &m.joining); err != nil || !m.joining {
			return err
		}
		return serializeChunk(s, m)
	case stateDropped:
		reason := int(m.reason)
		if err := wire.SerializeInt(s, &reason, int(ReasonNone)+1, int(NumReasons)-1); err != nil {
			return err
		}
		m.reason = Reason(reason)
		tick := uint32(m.reasonTick)
		if err := wire.SerializeBits(s, &tick, 32); err != nil {
			return err
		}
		m.reasonTick = Tick(int32(tick))
		return nil
	}
	if err := wire.SerializeBool(s, &m.watcher); err != nil {
		return err
	}
	clock := uint32(m.clockMs)
	if err := wire.SerializeBits(s, &clock, 32); err != nil {
		return err
	}
	m.clockMs = int32(clock)
	low := uint16(m.ack)
	if err := wire.SerializeBits(s, &low, 16); err != nil {
		return err
	}
	if reading {
		m.ack = unwrap(low, near[m.you])
	}
	for p := range m.players {
		if p == m.you && !m.watcher {
			continue
		}
		if err := wire.SerializeBool(s, &m.departed[p]); err != nil {
			return err
		}
		if m.departed[p] {
			low := uint16(m.left[p])
			if err := wire.SerializeBits(s, &low, 16); err != nil {
				return err
			}
			if reading {
				m.left[p] = unwrap(low, near[p])
			}
		}
		if err := serializeRun[I, P](s, &m.runs[p], window, near[p]); err != nil {
			return fmt.Errorf("player %d: %w", p, err)
		}
	}
	if err := wire.SerializeBool(s, &m.source); err != nil {
		return err
	}
	if m.source {
		tick := uint32(m.request.tick)
		if err := wire.SerializeBits(s, &tick, 32); err != nil {
			return err
		}
		if m.request.tick = Tick(int32(tick)); m.request.tick < 0 {
			return fmt.Errorf("state of tick %d asked for: %w", m.request.tick, wire.ErrInvalid)
		}
		if err := serializeSnapAck(s, &m.request.ack); err != nil {
			return err
		}
	}
	if m.state != stateStopped {
		return nil
	}
	tick := uint32(m.desync.Tick)
	if err := wire.SerializeBits(s, &tick, 32); err != nil {
		return err
	}
	m.desync.Tick = Tick(int32(tick))
	for _, p := range []*int{&m.desync.A, &m.desync.B} {
		if err := wire.SerializeInt(s, p, 0, MaxPlayers-1); err != nil {
			return err
		}
	}
	return wire.SerializeBool(s, &m.desync.Referee)
}

// DesyncError names the first tick whose checksums differ and two
// players that disagree on it, when no majority could tell who is wrong
// (two players, or a tie). With Referee, the server's own simulation
// differs from every player's, A and B among them: the game is not
// deterministic, a bug no player caused. errors.Is(err, ErrDesync) holds.
type DesyncError struct {
	Tick    Tick
	A, B    int
	Referee bool
}

func (e *DesyncError) Error() string {
	if e.Referee {
		return fmt.Sprintf("lockstep: desync at tick %d: the server's simulation differs from every player's (players %d and %d among them): the game is not deterministic", e.Tick, e.A, e.B)
	}
	return fmt.Sprintf("lockstep: desync at tick %d: players %d and %d computed different checksums", e.Tick, e.A, e.B)
}

// Is makes errors.Is(err, ErrDesync) hold.
func (e *DesyncError) Is(target error) bool { return target == ErrDesync }

// serializeChunk codes the joining part of a lobby message. The chunk's
// length follows from total and index, so a reader checks both first.
func serializeChunk[I any](s wire.Stream, m *serverMsg[I]) error {
	if err := wire.SerializeBool(s, &m.watcher); err != nil {
		return err
	}
	c := &m.chunk
	clock, from, back, ack, total := uint32(m.clockMs), uint32(c.from), uint32(c.back), uint32(c.ack), uint32(c.total)
	for _, v := range []*uint32{&clock, &from, &back, &ack, &total, &c.sum} {
		if err := wire.SerializeBits(s, v, 32); err != nil {
			return err
		}
	}
	m.clockMs, c.from, c.back, c.ack = int32(clock), Tick(int32(from)), Tick(int32(back)), Tick(int32(ack))
	if total > maxSnapshotChunks*snapshotChunk {
		return fmt.Errorf("snapshot of %d bytes: %w", total, wire.ErrInvalid)
	}
	c.total = int(total)
	if err := wire.SerializeInt(s, &c.index, 0, maxSnapshotChunks-1); err != nil {
		return err
	}
	if c.index >= chunks(c.total) || c.from < 0 || c.back < c.from || c.ack < c.back {
		return fmt.Errorf("chunk %d of a %d-byte snapshot from tick %d, back at %d: %w", c.index, c.total, c.from, c.back, wire.ErrInvalid)
	}
	return serializeChunkData(s, &c.data, c.total, c.index)
}
