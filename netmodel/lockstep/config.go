package lockstep

import (
	"errors"
	"fmt"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/transport/tcpsim"
)

// Tick numbers the simulation's fixed steps from 0, the session's first.
// On the wire a tick travels as its low 16 bits and is unwrapped against a
// tick the receiver knows to be near it.
type Tick int32

// MaxPlayers is the most players of a session: lockstep makes everyone
// wait for the slowest, which suits 2–4 players.
const MaxPlayers = 4

// Errors of the lockstep model. Receive's errors wrap ErrMalformed or
// ErrForged (the datagram was dropped and counted); Update's wrap
// ErrDesync or ErrTimeout (the session cannot go on).
var (
	ErrConfig    = errors.New("lockstep: invalid config")
	ErrMalformed = errors.New("lockstep: malformed message")
	// ErrForged: a message that parses but that no honest peer sends, such
	// as inputs beyond the window, a gap before the ticks the receiver
	// needs, ticks far ahead of the session clock.
	ErrForged  = errors.New("lockstep: forged message")
	ErrDesync  = errors.New("lockstep: desync")
	ErrTimeout = errors.New("lockstep: peer timed out")
	// ErrSession is returned by Server.Join when the lobby is full, or the
	// session is running and cannot seat a late joiner (see Server.Join).
	ErrSession = errors.New("lockstep: cannot join the session")
)

// Transport is how inputs travel between a client and the server.
type Transport uint8

const (
	// Datagrams is the article's UDP scheme: every datagram repeats all of
	// its sender's unacknowledged inputs, so a lost datagram costs one
	// frame, never a retransmission timeout.
	Datagrams Transport = iota
	// Stream is the TCP baseline: every input is sent once over an ordered
	// reliable byte stream (package tcpsim's model of TCP), so a lost
	// segment holds back everything behind it until it is retransmitted.
	Stream
)

func (t Transport) String() string {
	switch t {
	case Datagrams:
		return "datagrams"
	case Stream:
		return "stream"
	}
	return fmt.Sprintf("Transport(%d)", int(t))
}

// Config sets up a session. Server and clients must use the same Players,
// TickDuration, Window, ChecksumEvery and Transport.
type Config struct {
	// Players is the number of players, 1 to MaxPlayers; the session
	// starts once that many have joined.
	Players int
	// TickDuration is the fixed step, usually 1/60 s.
	TickDuration time.Duration
	// InitialDelay is the input delay before anything is measured: the
	// article's 100 ms.
	InitialDelay time.Duration
	// MinDelay and MaxDelay bound the adaptive input delay. Rollback
	// sessions use a small MinDelay (a tick or two); MaxDelay bounds what a
	// slow peer can impose on everyone.
	MinDelay, MaxDelay time.Duration
	// Margin is added to the measured need, in ticks, on top of a margin
	// that grows with the measured packet loss.
	Margin int
	// Slew is how much faster or slower than real time the simulation may
	// run to shrink or grow the input delay and to follow the server's
	// clock: 0.05 is 5 %, invisible to players.
	Slew float64
	// MaxCatchUp bounds the new ticks one Update simulates (the article's
	// 4: no spiral of death on a slow machine).
	MaxCatchUp int
	// Rollback is the most ticks a client simulates ahead of the inputs it
	// has, predicting the missing ones and re-simulating when a prediction
	// was wrong (GGPO style). 0 is pure lockstep.
	Rollback int
	// Window is the most inputs of one player a message carries: the
	// oldest unacknowledged ones first.
	Window int
	// Buffer is how many ticks of inputs each side holds per player, a
	// power of two. A peer that falls further behind is disconnected.
	Buffer int
	// ChecksumEvery: clients report the checksum of every tick that is a
	// multiple of it, and the server compares them.
	ChecksumEvery Tick
	// Timeout disconnects a peer that sends nothing, or acknowledges
	// nothing new while inputs wait for it, for this long.
	Timeout time.Duration
	// MaxLead is how far ahead of the server's clock a client's inputs
	// may be; further is forged.
	MaxLead time.Duration
	// MaxLag is how far a player's inputs may lag the server's clock:
	// further and the server drops it (ReasonLag), whatever else it
	// sends, so that one slow or withholding player costs the others at
	// most this much input delay and stall. Honest players' inputs lag by
	// their one-way trip plus the losses in a row, so it must stay well
	// above the worst honest path (2 s is a 3 s round trip's worth).
	MaxLag time.Duration
	// StartTimeout is how long a full lobby waits for every player's
	// round trip: the session then starts without those whose round trip
	// is still unknown (ReasonNoStart), their seats playing the zero input.
	StartTimeout time.Duration
	// MaxSnapshotBytes bounds the game state (Snapshotter) the server
	// sends a player who joins the running session (the referee's, or a
	// player's), and a client takes; 0 (DefaultConfig's) refuses late
	// joiners. 8 << 20 holds the
	// 900-cube world's half megabyte. The transfer must also finish within
	// Timeout: a joiner that acknowledges nothing new for that long is
	// dropped (ReasonNoAck).
	MaxSnapshotBytes int
	// RejoinGrace holds the seat of a player who left or was dropped for
	// its client id (Server.JoinClient) this long: it comes back to it,
	// while a client with another id takes another free seat or is
	// refused. Seats of clients without an id are not held.
	RejoinGrace time.Duration
	// SnapshotBurst is the most snapshot chunks (snapshotChunk bytes each,
	// one datagram) the server sends a joiner per Update.
	SnapshotBurst int
	// Transport chooses redundant datagrams or the TCP baseline.
	Transport Transport
	// Reliable configures the packet-ack endpoint of each peer (Datagrams).
	Reliable reliable.Config
	// Stream configures the TCP model of each peer (Stream).
	Stream tcpsim.Config
}

// DefaultConfig returns a 4-player lockstep session at 60 Hz with the
// article's 100 ms starting delay over redundant datagrams.
func DefaultConfig() Config {
	rel := reliable.DefaultConfig()
	rel.MaxPacketSize = netmodel.MaxDatagram - reliable.MaxHeaderSize
	rel.FragmentAbove = rel.MaxPacketSize
	return Config{
		Players:       4,
		TickDuration:  time.Second / 60,
		InitialDelay:  100 * time.Millisecond,
		MaxDelay:      5 * time.Second,
		Margin:        1,
		Slew:          0.05,
		MaxCatchUp:    4,
		Window:        255,
		Buffer:        2048,
		ChecksumEvery: 60,
		Timeout:       10 * time.Second,
		MaxLead:       time.Second,
		MaxLag:        2 * time.Second,
		StartTimeout:  5 * time.Second,
		// Late join is off (MaxSnapshotBytes 0); 8 << 20 holds the
		// 900-cube world's state (about 0.5 MB) with room to spare.
		SnapshotBurst: 16,
		RejoinGrace:   30 * time.Second,
		Transport:     Datagrams,
		Reliable:      rel,
		Stream:        tcpsim.DefaultConfig(),
	}
}

// DefaultRollbackConfig returns DefaultConfig in rollback mode: one tick of
// input delay and up to 30 ticks (500 ms) predicted ahead.
func DefaultRollbackConfig() Config {
	c := DefaultConfig()
	c.InitialDelay = c.TickDuration
	c.MinDelay = c.TickDuration
	c.Rollback = 30
	return c
}

// DefaultStreamConfig returns DefaultConfig over the TCP model (Transport
// Stream), the article's baseline. TCP does not give up after 10 s without
// progress, so neither does this session: Timeout, MaxLag and
// StartTimeout (a round trip over a lossy TCP can take seconds to
// measure) are 2 minutes, and the buffer holds that many ticks.
func DefaultStreamConfig() Config { return DefaultConfig().OverStream() }

// OverStream returns c over the TCP model with DefaultStreamConfig's
// Timeout and Buffer: the way to run a rollback session over TCP.
func (c Config) OverStream() Config {
	c.Transport = Stream
	c.Timeout, c.MaxLag, c.StartTimeout, c.Buffer = 2*time.Minute, 2*time.Minute, 2*time.Minute, 1<<14
	return c
}

// maxReports is the most checksum reports one message carries.
const maxReports = 4

func (c *Config) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
	}
	switch {
	case c.Players < 1 || c.Players > MaxPlayers:
		return bad("%d players, want 1 to %d", c.Players, MaxPlayers)
	case c.TickDuration <= 0:
		return bad("tick duration %v", c.TickDuration)
	case c.InitialDelay < 0 || c.MinDelay < 0 || c.MaxDelay < c.MinDelay:
		return bad("delays initial %v, min %v, max %v", c.InitialDelay, c.MinDelay, c.MaxDelay)
	case c.Margin < 0 || !(c.Slew > 0 && c.Slew < 1) || c.MaxCatchUp < 1:
		return bad("margin %d, slew %v, catch-up %d", c.Margin, c.Slew, c.MaxCatchUp)
	case c.Window < 1 || c.Window > 1024:
		return bad("window %d, want 1 to 1024", c.Window)
	case c.Buffer&(c.Buffer-1) != 0 || c.Buffer > 1<<14:
		return bad("buffer %d, want a power of two up to 16384", c.Buffer)
	case c.ChecksumEvery < 1 || c.Timeout <= 0 || c.MaxLead <= 0:
		return bad("checksum every %d, timeout %v, lead %v", c.ChecksumEvery, c.Timeout, c.MaxLead)
	case c.MaxLag <= 0 || c.MaxLag > c.Timeout || c.StartTimeout <= 0:
		return bad("max lag %v (want more than 0, at most the timeout %v), start timeout %v", c.MaxLag, c.Timeout, c.StartTimeout)
	case c.RejoinGrace < 0:
		return bad("rejoin grace %v", c.RejoinGrace)
	case c.Transport > Stream:
		return bad("transport %v", c.Transport)
	case c.MaxSnapshotBytes < 0 || c.MaxSnapshotBytes > maxSnapshotChunks*snapshotChunk || c.MaxSnapshotBytes > 0 && c.SnapshotBurst < 1:
		return bad("snapshot of at most %d bytes (at most %d), burst %d", c.MaxSnapshotBytes, maxSnapshotChunks*snapshotChunk, c.SnapshotBurst)
	}
	// Everything a peer may hold unacknowledged must fit in the buffer:
	// a timeout's worth of ticks, the delay, the rollback window and a
	// window of inputs in flight.
	need := c.ticks(c.Timeout+c.MaxDelay+c.MaxLead) + c.Rollback + 2*c.Window
	if c.Buffer < need {
		return bad("buffer of %d ticks, the timeout, delay, lead, rollback and window need %d", c.Buffer, need)
	}
	// Ticks travel as 16 bits unwrapped against a nearby tick.
	if c.Buffer > 1<<14 {
		return bad("buffer %d too large for 16-bit ticks", c.Buffer)
	}
	return nil
}

// ticks converts a duration to whole ticks, rounding up.
func (c *Config) ticks(d time.Duration) int {
	return int((d + c.TickDuration - 1) / c.TickDuration)
}
