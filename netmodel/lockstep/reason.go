package lockstep

import (
	"errors"
	"fmt"
)

// Reason says why the server dropped a player from a running session (or
// from the lobby). The player receives it: its client's Update returns a
// *DroppedError carrying it.
type Reason uint8

const (
	// ReasonNone: the player is in the session, or left by itself.
	ReasonNone Reason = iota
	// ReasonDesync: its checksum of a tick differs from the server's own
	// simulation (the referee) or from the majority of the players.
	ReasonDesync
	// ReasonTimeout: nothing was heard from it for Config.Timeout.
	ReasonTimeout
	// ReasonNoAck: it acknowledged none of the others' inputs for
	// Config.Timeout while inputs waited for it.
	ReasonNoAck
	// ReasonLag: its inputs lagged the session clock by more than
	// Config.MaxLag, however much else it sent.
	ReasonLag
	// ReasonBuffer: the inputs the session still needs from it no longer
	// fit in Config.Buffer.
	ReasonBuffer
	// ReasonNoStart: the lobby was full for Config.StartTimeout and its
	// round trip was still unknown (its datagrams acknowledge none of the
	// server's): the session started without it.
	ReasonNoStart
	// ReasonSnapshot: asked for its state as a late joiner's snapshot
	// (no referee), it sent one that does not restore to the checksum
	// every player agreed on for that tick, as late joiners of two
	// different client ids found (each then restored another player's),
	// or it claimed a state larger than Config.MaxSnapshotBytes.
	ReasonSnapshot
	// ReasonSourceTimeout: asked for its state as a late joiner's
	// snapshot (no referee), it did not send it within Config.Timeout.
	ReasonSourceTimeout
	// ReasonJoinFailed: as a late joiner (no referee), the states of two
	// players did not restore, in its client, to the checksum every player
	// agreed on.
	ReasonJoinFailed
	// NumReasons is the number of reasons, for tables indexed by Reason.
	NumReasons
)

// String is a short name, for metrics and logs.
func (r Reason) String() string {
	switch r {
	case ReasonNone:
		return "none"
	case ReasonDesync:
		return "desync"
	case ReasonTimeout:
		return "timeout"
	case ReasonNoAck:
		return "no_ack"
	case ReasonLag:
		return "lag"
	case ReasonBuffer:
		return "buffer"
	case ReasonNoStart:
		return "no_start"
	case ReasonSnapshot:
		return "bad_snapshot"
	case ReasonSourceTimeout:
		return "no_snapshot"
	case ReasonJoinFailed:
		return "join_failed"
	}
	return fmt.Sprintf("reason_%d", int(r))
}

// explain is what the dropped player is told, tick being the tick the
// reason names (the checksum's tick, or the session tick of the drop).
func (r Reason) explain(tick Tick, cfg *Config) string {
	switch r {
	case ReasonDesync:
		return fmt.Sprintf("your state differs from the server's at tick %d (a different build, layout or game, or a modified client)", tick)
	case ReasonTimeout:
		return fmt.Sprintf("the server heard nothing from you for %v (at tick %d)", cfg.Timeout, tick)
	case ReasonNoAck:
		return fmt.Sprintf("your client acknowledged none of the other players' inputs for %v (at tick %d)", cfg.Timeout, tick)
	case ReasonLag:
		return fmt.Sprintf("your inputs fell more than %v behind the session clock at tick %d: the others would have waited for them", cfg.MaxLag, tick)
	case ReasonBuffer:
		return fmt.Sprintf("the inputs the session still needed from you no longer fit in its buffer of %d ticks (at tick %d)", cfg.Buffer, tick)
	case ReasonNoStart:
		return fmt.Sprintf("no round trip to you was measured within %v of the lobby filling up (your datagrams acknowledge none of the server's): the session started without you", cfg.StartTimeout)
	case ReasonSnapshot:
		return fmt.Sprintf("the state after tick %d you sent for a late joiner does not restore to the checksum every player agreed on for that tick, as two late joiners found, or is larger than the session takes (a modified client, or a game whose MarshalState and UnmarshalState do not round-trip)", tick)
	case ReasonSourceTimeout:
		return fmt.Sprintf("the server asked for your state after tick %d for a late joiner and did not get it within %v", tick, cfg.Timeout)
	case ReasonJoinFailed:
		return fmt.Sprintf("two players' states (the last after tick %d) did not restore in your client to the checksum every player agreed on: a different build or game, or a modified client", tick)
	}
	return fmt.Sprintf("%v at tick %d", r, tick)
}

// ErrDropped is wrapped by a *DroppedError.
var ErrDropped = errors.New("lockstep: the server dropped this player")

// DroppedError is what a client's Update returns once the server told it
// that it was dropped from the session, and why. errors.Is(err,
// ErrDropped) holds.
type DroppedError struct {
	Reason Reason
	Tick   Tick
	cfg    *Config
}

func (e *DroppedError) Error() string {
	cfg := DefaultConfig()
	if e.cfg != nil {
		cfg = *e.cfg
	}
	return fmt.Sprintf("%v: %s", ErrDropped, e.Reason.explain(e.Tick, &cfg))
}

// Is makes errors.Is(err, ErrDropped) hold.
func (e *DroppedError) Is(target error) bool { return target == ErrDropped }
