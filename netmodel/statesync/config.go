package statesync

import (
	"errors"
	"fmt"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// Errors of the model. Receive errors are also counted in Counters.
var (
	ErrConfig    = errors.New("statesync: invalid config")
	ErrFull      = errors.New("statesync: every guest seat is taken")
	ErrMalformed = errors.New("statesync: malformed packet")
	ErrBaseline  = errors.New("statesync: update against a baseline the receiver does not hold")
	ErrForged    = errors.New("statesync: forged update")
	ErrPlayer    = errors.New("statesync: the host seated this guest as another player")
	ErrFlood     = errors.New("statesync: too many datagrams from one guest")
	ErrLayout    = errors.New("statesync: the peer's world has another layout than this one's")
)

// Config sets up a host or a guest. Start from DefaultConfig; host and
// guests must agree on everything but Player and PacketBytes.
type Config struct {
	// Player is the local player: 0 for the host, 1-3 for a guest.
	Player Player
	// TimeStep is the simulation's fixed step (the Game's), usually 1/60 s.
	TimeStep time.Duration
	// MaxStepsPerUpdate bounds the steps one Update runs to catch up, so
	// that a slow machine falls behind instead of spiralling.
	MaxStepsPerUpdate int
	// Spec is the quantization of object states, on the wire and applied
	// to every object before every step on every machine.
	Spec wire.StateSpec
	// AvatarPosition and AvatarRotationBits quantize the avatars' poses.
	AvatarPosition     wire.Bounds
	AvatarRotationBits int
	// HeldRange bounds a held object's offset from its hand, m.
	HeldRange float64
	// Arena is where objects and avatars may be: states outside it from a
	// guest are rejected as forged. It lies inside Spec.Position.
	Arena wire.Bounds
	// Ballistic is what the delta coder's predictor needs of the physics.
	Ballistic Ballistic
	// PacketBytes is the budget of one packet's payload, in bytes: the
	// priority accumulator fills it. See BudgetFor.
	PacketBytes int
	// Coder is how this machine codes the packets it sends (a receiver
	// decodes either): CoderRange by default, CoderPlain to compare.
	Coder Coder
	// ThrownPriority is the priority factor of held-then-released objects
	// for ThrownTicks after the release, CollisionPriority that of objects
	// whose velocity jumped by more than CollisionSpeed m/s in one step
	// (a high-energy collision), for CollisionTicks.
	ThrownPriority    float64
	ThrownTicks       int
	CollisionPriority float64
	CollisionSpeed    float64
	CollisionTicks    int
	// SpreadSpeed is how fast, m/s, one of two touching objects must move
	// for authority to spread from one to the other.
	SpreadSpeed float64
	// YieldTicks is how many steps in a row an object under a guest's
	// authority may move slower than SpreadSpeed on the host (no
	// interaction, at most settling) before the host takes it back: the
	// host's world is then final for it, and the guest follows. It bounds
	// how long a guest can keep an object that neither side brings to
	// rest (see docs/statesync.md, Convergence).
	YieldTicks int
	// MaxSequenceLead is how far ahead of the host's a guest's authority
	// or ownership sequence may be before the host treats it as forged,
	// and how far, in all, the guests' claims may move the host's version
	// of one object on in one second: the host's versions then never run
	// half the sequence space (32768) ahead of an honest guest's, which
	// would wrap the comparison. A guest whose version of an object runs
	// further ahead of the host's than this takes the host's.
	MaxSequenceLead int
	// MaxImplausible is how many physically impossible claims (see
	// Limits) the host overrules from one guest before it drops it
	// from the match; 0 never drops.
	MaxImplausible int
	// Resync is how long a guest keeps its own version of an object while
	// the host goes on sending older ones (its claim lost, or refused)
	// before it takes the host's: the host's view is final.
	Resync time.Duration
	// JitterDelay is the most a link's playback runs behind the newest
	// packet, to ride out the network's jitter: the delay adapts to the
	// link below it (0 on a clean link), and remote avatars play back
	// with their link's.
	JitterDelay time.Duration
	// SmoothSmall and SmoothLarge are the visual smoothing factors: each
	// step the rendered pose keeps this share of its error against the
	// simulated pose, SmoothLarge for errors above SmoothLargeError m.
	SmoothSmall, SmoothLarge float64
	SmoothLargeError         float64
	// Reliable configures each peer's packet-ack endpoint.
	Reliable reliable.Config
	// RejoinGrace is how long the host holds a guest's seat for it after
	// it left, when the driver named the guest (Host.JoinClient, with
	// netcode's client id): within it, only a client with the same id is
	// seated there. 0 holds no seat. Default 30 s.
	RejoinGrace time.Duration
}

// Ballistic is the free flight the delta coder predicts: gravity and the
// integrator of package physics (Substeps of semi-implicit Euler per step).
type Ballistic struct {
	Gravity  float64 // m/s² along Y, negative downwards
	TimeStep float64 // s
	Substeps int
}

// BallisticOf returns the free flight of a physics world.
func BallisticOf(c physics.Config) Ballistic {
	return Ballistic{Gravity: c.Gravity.Y, TimeStep: c.TimeStep, Substeps: c.Substeps}
}

// BudgetFor returns the PacketBytes that keeps one direction of a link at
// kbps kilobits per second when packetsPerSecond packets are sent, once
// netmodel.PacketOverhead and the endpoint's header are paid.
func BudgetFor(kbps, packetsPerSecond int) int {
	return kbps*1000/8/packetsPerSecond - netmodel.PacketOverhead - reliable.MaxHeaderSize
}

// DefaultConfig returns the VR sample's settings for a host (Player 0):
// 60 steps and packets per second, a budget that fits 256 kbps, a
// playback delay of at most 100 ms and smoothing factors 0.95 and 0.85.
func DefaultConfig() Config {
	const avatarRes = 1.0 / 1024
	spec := wire.DefaultStateSpec()
	arena := spec.Position
	arena.Min.Y = -4
	return Config{
		TimeStep:          time.Second / 60,
		MaxStepsPerUpdate: 4,
		Spec:              spec,
		AvatarPosition: wire.Bounds{ // the spec's box on a 1 mm grid
			Min: spec.Position.Min, Max: spec.Position.Max.Sub(vecmath.V3(1, 1, 1).Scale(avatarRes - spec.Position.Res)), Res: avatarRes,
		},
		AvatarRotationBits: 11,
		HeldRange:          2,
		Arena:              arena,
		Ballistic:          BallisticOf(physics.DefaultConfig()),
		PacketBytes:        BudgetFor(256, 60),
		Coder:              CoderRange,
		ThrownPriority:     1e6,
		ThrownTicks:        60,
		CollisionPriority:  1e3,
		CollisionSpeed:     2,
		CollisionTicks:     30,
		SpreadSpeed:        0.2,
		YieldTicks:         120,
		MaxSequenceLead:    256,
		Resync:             3 * time.Second,
		MaxImplausible:     600,
		JitterDelay:        100 * time.Millisecond,
		SmoothSmall:        0.95,
		SmoothLarge:        0.85,
		SmoothLargeError:   0.25,
		Reliable:           reliable.DefaultConfig(),
		RejoinGrace:        30 * time.Second,
	}
}

func (c *Config) validate() error {
	switch {
	case c.Player >= MaxPlayers:
		return fmt.Errorf("%w: player %d", ErrConfig, c.Player)
	case c.TimeStep <= 0 || c.MaxStepsPerUpdate < 1:
		return fmt.Errorf("%w: time step %v, %d steps per update", ErrConfig, c.TimeStep, c.MaxStepsPerUpdate)
	case c.PacketBytes < 64 || c.PacketBytes > netmodel.MaxDatagram-reliable.MaxHeaderSize:
		return fmt.Errorf("%w: packet budget %d bytes", ErrConfig, c.PacketBytes)
	case c.AvatarRotationBits < wire.MinQuatBits || c.AvatarRotationBits > wire.MaxQuatBits ||
		c.Spec.OrientationBits < wire.MinQuatBits || c.Spec.OrientationBits > wire.MaxQuatBits:
		return fmt.Errorf("%w: rotation bits", ErrConfig)
	case c.Coder > CoderRange:
		return fmt.Errorf("%w: %v", ErrConfig, c.Coder)
	case c.Resync <= 0:
		return fmt.Errorf("%w: resync %v", ErrConfig, c.Resync)
	case c.RejoinGrace < 0:
		return fmt.Errorf("%w: rejoin grace %v, want 0 (none) or more", ErrConfig, c.RejoinGrace)
	case c.YieldTicks < 1:
		return fmt.Errorf("%w: yield ticks %d", ErrConfig, c.YieldTicks)
	case !(c.HeldRange > 0) || c.MaxSequenceLead < 1 || c.MaxSequenceLead > 1<<14:
		return fmt.Errorf("%w: held range %v, sequence lead %d", ErrConfig, c.HeldRange, c.MaxSequenceLead)
	case c.Ballistic.Substeps < 1 || !(c.Ballistic.TimeStep > 0):
		return fmt.Errorf("%w: ballistic %+v", ErrConfig, c.Ballistic)
	case !(c.SmoothSmall >= 0 && c.SmoothSmall < 1 && c.SmoothLarge >= 0 && c.SmoothLarge < 1):
		return fmt.Errorf("%w: smoothing factors %v, %v", ErrConfig, c.SmoothSmall, c.SmoothLarge)
	}
	return nil
}
