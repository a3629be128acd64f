package lockstep

import (
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport/reliable"
)

// maxMessage is the largest message, the payload of one datagram.
const maxMessage = netmodel.MaxDatagram - reliable.MaxHeaderSize

// Stats are a client's figures since it started.
type Stats struct {
	Player    int  // index in the session, -1 before the server named it
	Tick      Tick // the next tick to simulate
	Confirmed Tick // every player's input is known for the ticks before it
	// InputDelay is the current delay from sampling a local input to
	// simulating it; TargetDelay what the measurements ask for.
	InputDelay, TargetDelay time.Duration
	RTT                     time.Duration // smoothed round trip to the server
	Loss                    float64       // share of datagrams lost, 0–1

	// Stalled counts Updates in which a tick was due but some player's
	// input was missing (beyond the rollback window); Stalling says the
	// last Update was one, and LongestStall is the longest run of them,
	// from the last Update that ran a tick (a single stalled frame at
	// 60 Hz is a 17 ms stall).
	Stalled      uint64
	Stalling     bool
	LongestStall time.Duration

	Steps       uint64 // ticks simulated the first time
	Saves       uint64 // game states saved before ticks that rest on predictions
	Rollbacks   uint64 // restores after a wrong prediction
	Resimulated uint64 // ticks simulated again after a restore
	// LastResimulated and MaxResimulated are the ticks re-simulated in the
	// last Update and in the worst one.
	LastResimulated, MaxResimulated int

	Checksums        uint64 // checksums reported
	LastChecksumTick Tick
	LastChecksum     uint32 // the low 32 bits of the game's checksum after LastChecksumTick

	// Datagrams each way, and their payload bytes (without
	// netmodel.PacketOverhead); MaxPacket is the largest sent.
	PacketsSent, PacketsReceived uint64
	BytesSent, BytesReceived     uint64
	MaxPacket                    int
	// Dropped counts datagrams dropped, whatever the reason (duplicates
	// and stale ones too); Rejected those whose message was malformed or
	// forged.
	Dropped, Rejected uint64
	// Backlogged counts messages a stream could not take (Transport
	// Stream only): the server has not acknowledged enough of it.
	Backlogged uint64

	// A late joiner's: the snapshot (SnapshotBytes) was the state before
	// tick JoinedFrom, and its inputs count from JoinedAt; Joined is when
	// it had the snapshot, CaughtUp when it had simulated up to JoinedAt,
	// both from the client's start.
	JoinedFrom, JoinedAt Tick
	SnapshotBytes        int
	Joined, CaughtUp     time.Duration
	// BadSnapshots counts the snapshots it received that did not restore
	// to the checksum they came with; SourceChunks the chunks of its own
	// state it sent the server for a late joiner.
	BadSnapshots uint64
	SourceChunks uint64
}

// PlayerStats are the server's figures for one player.
type PlayerStats struct {
	Slot      int
	Connected bool // false once it left or was dropped
	// Reason says why the server dropped it (ReasonNone: it left, or is
	// connected), ReasonTick the tick the reason names; Told that the
	// server has finished telling it.
	Reason     Reason
	ReasonTick Tick
	Told       bool
	Have       Tick // the server holds the player's inputs before this tick
	Ack        Tick // the player holds everyone's inputs before this tick
	RTT        time.Duration

	PacketsSent, PacketsReceived uint64
	BytesSent, BytesReceived     uint64
	MaxPacket                    int
	Dropped, Rejected            uint64
	Backlogged                   uint64

	// A late joiner's: its snapshot is the state before tick JoinedFrom,
	// SnapshotBytes long, and its inputs count from JoinedAt (0 for the
	// players who started).
	JoinedFrom, JoinedAt Tick
	SnapshotBytes        int
	// SourceChunks counts the chunks of its state it sent for late
	// joiners (no referee).
	SourceChunks uint64
}

// ServerStats are the server's figures.
type ServerStats struct {
	Running bool
	Tick    Tick // the session clock's tick
	Players []PlayerStats
	// Verified counts the ticks whose checksums every connected player
	// reported, all equal. Unverified counts ticks dropped from the table
	// before every player reported them.
	Verified, Unverified uint64
	Desync               *DesyncError
	// Disconnected counts the players the server dropped, Drops the same
	// by reason.
	Disconnected uint64
	Drops        [NumReasons]uint64
	// Refereed says the server judges checksums with its own simulation
	// (SetReferee, and it has not fallen out of the buffer); RefereeTick is
	// the next tick it simulates. RefereeOff: it fell out of the buffer and
	// the majority decides since.
	Refereed    bool
	RefereeTick Tick
	RefereeOff  bool
	// LateJoins counts the players seated in the running session.
	// Without a referee, Joining are the joiners waiting for a player's
	// state; SnapshotRequests counts the states asked of players,
	// SnapshotFailures those that did not come in time, that the player
	// could not send or whose bytes a joiner found wrong. BadSnapshots
	// counts the snapshots a joiner found wrong, whoever sent them;
	// Accusations the times a joiner then found another player's state
	// right (its source is dropped, ReasonSnapshot, only once joiners of
	// two client ids accused it).
	// HeldOff counts the late joins refused because their client id left
	// a seat or was dropped a second time not long before (MaxLag,
	// doubling with each next time).
	LateJoins        uint64
	HeldOff          uint64
	Joining          int
	SnapshotRequests uint64
	SnapshotFailures uint64
	BadSnapshots     uint64
	Accusations      uint64
	// Watchers are the spectators now; WatchersDropped counts those
	// dropped for silence or for falling out of the buffer.
	Watchers        int
	WatchersDropped uint64
}

// Refusal is how many times the server refused a player something for one
// reason, for a summary or a metrics exporter (a counter labelled by
// Reason).
type Refusal struct {
	Reason string // snake_case, stable: a metric label
	Count  uint64
}

// Refusals appends the server's refusals in a fixed order, zeros
// included: the messages rejected as malformed or forged
// ("rejected_message"), from players, joiners and spectators, and the
// late joins refused to a client id that left or was dropped again not
// long before ("rejoin_held_off", ServerStats.HeldOff). The players
// it dropped are not among them: their reasons are in Stats.Drops, and
// the driver that lets them go counts them too.
func (s *Server[I, P]) Refusals(dst []Refusal) []Refusal {
	return append(dst, Refusal{"rejected_message", s.rejected}, Refusal{"rejoin_held_off", s.stats.HeldOff})
}
