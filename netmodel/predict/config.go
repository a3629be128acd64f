package predict

import (
	"errors"
	"fmt"
	"time"

	"github.com/netphys/netphys/transport/reliable"
)

// ErrConfig reports a Config that cannot work.
var ErrConfig = errors.New("predict: invalid config")

// Config sets up a Server or a Client. Both sides must use the same
// TickRate; the other fields are each side's own.
type Config struct {
	// TickRate is the simulation rate, Hz (30 or 60 typically); it must
	// match the game's fixed step.
	TickRate int
	// Window is the server's history P: the states, inputs and bodies it
	// keeps, which bound how far back a late input (MaxLate) and lag
	// compensation (MaxRewind) may reach, and how long an outcome waits
	// before it is committed. Default 1 s. Also bounds how far a client
	// predicts beyond the newest server state.
	Window time.Duration
	// MaxLate is how late an input may arrive, after its tick was
	// stepped with a guess, and still rewrite that tick (a rewind); a
	// later one is dropped and counted (ServerCounters.InputsTooOld). It
	// bounds what a lag switch gains: a player who holds its packets back
	// and sends them in a burst moves, in the states the others receive,
	// as the guess had it (its last controls for Grace, then standing
	// still) but for the last MaxLate, instead of jumping to where the
	// held inputs took it. Legitimate inputs arrive before their tick (the
	// clients run ahead) or a tick or two late after a loss. Default
	// 100 ms; at most Window.
	MaxLate time.Duration
	// MaxRewind caps a shot's lag compensation, since a client can claim
	// anything (Shooter.Trigger's behind). Default 300 ms; at most Window.
	MaxRewind time.Duration
	// Grace is how long the server repeats a silent player's last
	// controls (its guess for inputs that have not arrived); after it the
	// player steps with the zero input, standing still, so that a
	// disconnected player's ghost does not run on until the connection
	// times out. Default 250 ms; at most Window.
	Grace time.Duration
	// RejoinGrace is how long a player's character waits for its client
	// to come back after the client left: a client joining with the same
	// client id (Server.JoinClient) within it gets the character back as
	// it is, on whatever slot; meanwhile it stands with the zero input,
	// in the world for the others, and its player number is nobody
	// else's. After it (or at once with 0, or for a client without an id)
	// the character leaves the world (Joiner.Park). Default 30 s.
	RejoinGrace time.Duration
	// MaxAhead bounds how far in the future an input may be stamped;
	// inputs beyond are dropped. Default 1 s.
	MaxAhead time.Duration
	// TargetLead is how early, ticks, a client aims for its inputs to
	// arrive at the server in the worst case of the last LeadWindow: the
	// safety margin on top of what jitter and loss already cost. Default 1.
	TargetLead float64
	// LeadWindow is how long the server remembers input arrivals when it
	// tells a client its worst lead. Default 1 s.
	LeadWindow time.Duration
	// ResimBudget is how many re-simulated ticks per simulated tick one
	// client's late inputs may cost the server on average; a rewind that
	// would exceed the client's budget (a bucket of Window ticks) is
	// refused and counted. Default 0.5.
	ResimBudget float64
	// SendEvery: the server sends a state every SendEvery ticks. Default 1.
	SendEvery int
	// InterpExtra is how many ticks more than the worst recent delay of
	// the server's states a client waits before it shows other players
	// and cubes, so that a lost state is interpolated across. Default 1.
	InterpExtra int
	// NearRadius is how close, m, another body must be to a client's
	// player for a misprediction of it to make the client reconcile:
	// bodies further away cannot change the player's next moves before
	// the next state. Default 4 m.
	NearRadius float64
	// SmoothTime is the time constant with which a client's visual
	// correction decays after a misprediction. Default 100 ms.
	SmoothTime time.Duration
	// MaxTicksPerUpdate bounds the ticks one Update call simulates, so
	// that a stalled process catches up gradually. Default 8.
	MaxTicksPerUpdate int
	// Reliable configures the packet-ack endpoints.
	Reliable reliable.Config
}

// DefaultConfig returns a 60 Hz setup with a 1 s window and a 300 ms cap
// on lag compensation.
func DefaultConfig() Config {
	return Config{
		TickRate:          60,
		Window:            time.Second,
		MaxRewind:         300 * time.Millisecond,
		MaxLate:           100 * time.Millisecond,
		MaxAhead:          time.Second,
		Grace:             250 * time.Millisecond,
		RejoinGrace:       30 * time.Second,
		TargetLead:        1,
		LeadWindow:        time.Second,
		ResimBudget:       0.5,
		SendEvery:         1,
		InterpExtra:       1,
		NearRadius:        4,
		SmoothTime:        100 * time.Millisecond,
		MaxTicksPerUpdate: 8,
		Reliable:          reliable.DefaultConfig(),
	}
}

// ticks converts d to whole ticks, rounding to nearest.
func (c *Config) ticks(d time.Duration) int {
	return int((int64(d)*int64(c.TickRate) + int64(time.Second)/2) / int64(time.Second))
}

// tickDuration is the length of one tick.
func (c *Config) tickDuration() time.Duration { return time.Second / time.Duration(c.TickRate) }

func (c *Config) validate(players, bodies int) error {
	switch {
	case c.TickRate < 1 || c.TickRate > 1000:
		return fmt.Errorf("%w: tick rate %d Hz", ErrConfig, c.TickRate)
	case c.ticks(c.Window) < 2 || c.ticks(c.Window) > 4*MaxInputs:
		return fmt.Errorf("%w: window %v is %d ticks, want 2..%d", ErrConfig, c.Window, c.ticks(c.Window), 4*MaxInputs)
	case c.MaxRewind < 0 || c.MaxRewind > c.Window || c.ticks(c.MaxRewind) > 255:
		return fmt.Errorf("%w: max rewind %v, want 0..window and at most 255 ticks", ErrConfig, c.MaxRewind)
	case c.MaxLate < 0 || c.MaxLate > c.Window:
		return fmt.Errorf("%w: max late %v, want 0..window", ErrConfig, c.MaxLate)
	case c.Grace < 0 || c.Grace > c.Window:
		return fmt.Errorf("%w: grace %v, want 0..window", ErrConfig, c.Grace)
	case c.RejoinGrace < 0:
		return fmt.Errorf("%w: rejoin grace %v, want 0 (none) or more", ErrConfig, c.RejoinGrace)
	case c.ticks(c.MaxAhead) < 1 || c.ticks(c.MaxAhead) > 4*MaxInputs:
		return fmt.Errorf("%w: max ahead %v", ErrConfig, c.MaxAhead)
	case !(c.TargetLead >= 0 && c.TargetLead <= 16):
		return fmt.Errorf("%w: target lead %v ticks", ErrConfig, c.TargetLead)
	case c.ticks(c.LeadWindow) < 1 || c.LeadWindow > c.Window:
		return fmt.Errorf("%w: lead window %v, want at least a tick and at most the window", ErrConfig, c.LeadWindow)
	case !(c.NearRadius >= 0) || c.NearRadius > 1e6:
		return fmt.Errorf("%w: near radius %v m", ErrConfig, c.NearRadius)
	case !(c.ResimBudget >= 0):
		return fmt.Errorf("%w: resimulation budget %v", ErrConfig, c.ResimBudget)
	case c.SendEvery < 1 || c.InterpExtra < 0 || c.SmoothTime < 0 || c.MaxTicksPerUpdate < 1:
		return fmt.Errorf("%w: send every %d, interp extra %d, smooth %v, %d ticks per update",
			ErrConfig, c.SendEvery, c.InterpExtra, c.SmoothTime, c.MaxTicksPerUpdate)
	case players < 1 || players > MaxPlayers || bodies < players || bodies > MaxBodies:
		return fmt.Errorf("%w: game of %d players and %d bodies", ErrConfig, players, bodies)
	}
	return nil
}
