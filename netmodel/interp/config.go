package interp

import (
	"errors"
	"fmt"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/wire/snapshot"
)

// Errors of the model, wrapped with %w.
var (
	// ErrConfig reports a configuration that cannot work.
	ErrConfig = errors.New("interp: invalid configuration")
	// ErrUnexpected: a client sent a payload; clients send only acks.
	ErrUnexpected = errors.New("interp: unexpected payload from a client")
	// ErrSlot: a slot outside the server's range or not joined.
	ErrSlot = errors.New("interp: no client in that slot")
)

// Interpolation selects how the client draws between two snapshots.
type Interpolation int

const (
	// Linear: positions lerped, orientations nlerped.
	Linear Interpolation = iota
	// Hermite: positions on a cubic Hermite curve through the two
	// snapshots with velocities from their neighbours in the buffer
	// (central differences, Catmull–Rom), orientations nlerped. The
	// velocities cost no bits: `netphys bench interp` compares them with
	// velocities sent by the server.
	Hermite
)

func (m Interpolation) String() string {
	if m == Hermite {
		return "hermite"
	}
	return "linear"
}

// Buffering selects how the client chooses its render delay.
type Buffering int

const (
	// Adaptive (the default) picks the least delay whose predicted share
	// of dry frames, from the measured delivery delays and loss, is at
	// most Config.DryTarget (buffer.go).
	Adaptive Buffering = iota
	// Fixed is the article's: three send intervals plus a jitter
	// allowance (350 ms at 10 pps, 150 at 30, 85 at 60) after the
	// fastest delivery.
	Fixed
	// Mirror is Mirror's snapshot interpolation: the send interval times
	// a multiplier of 1 + (interval + delivery-interval std-dev)/interval
	// after the mean delivery.
	Mirror
)

func (b Buffering) String() string {
	switch b {
	case Fixed:
		return "fixed"
	case Mirror:
		return "mirror"
	}
	return "adaptive"
}

// Config configures both ends of the model; both must agree on Codec's
// stage and quantization, TickRate and PPS.
type Config struct {
	// Codec codes the snapshots. Its Simulator, if any, belongs to this
	// end: the server and each client need their own.
	Codec snapshot.Codec
	// TickRate is the server's simulation rate, Hz. Default 60.
	TickRate int
	// TickInterval is the duration of one tick: time.Second/TickRate,
	// truncated to whole nanoseconds so that drivers stepping by it
	// agree with the server exactly.
	TickInterval time.Duration
	// PPS is the snapshot rate per client, packets per second: 10, 20,
	// 30 or 60 (any divisor of TickRate). Default 30.
	PPS int
	// Reliable configures each peer's endpoint. Its fragments must fit
	// netmodel.MaxDatagram.
	Reliable reliable.Config
	// MaxTicksPerUpdate bounds the ticks one server Update simulates, so
	// a slow machine falls behind instead of spiralling. Default 8.
	MaxTicksPerUpdate int

	// Interpolation is the client's curve. Default Linear.
	Interpolation Interpolation
	// SentVelocity makes Hermite take its tangents from the snapshots'
	// LinearVelocity, for a codec that sends it (stage 9 with
	// Codec.Config.Velocity set, or stages 1–3), instead of deriving them
	// from the neighbouring snapshots.
	SentVelocity bool
	// Extrapolate lets the client run past its newest snapshot, for at
	// most ExtrapolationLimit (default 200 ms), and blend back over
	// BlendTime (default 100 ms) when data arrives. Off by default: it
	// ignores collisions, and rigid bodies extrapolate poorly.
	Extrapolate        bool
	ExtrapolationLimit time.Duration
	BlendTime          time.Duration
	// Buffering chooses the render delay. Default Adaptive.
	Buffering Buffering
	// DryTarget is the share of rendered frames Adaptive lets run dry
	// (no snapshot after the render time). Default 0.001, a fifth of
	// the 0.5 % budget: the estimate has its own error, and a dry spell
	// comes in runs of frames.
	DryTarget float64
	// MaxDelay caps the render delay, beyond the fastest delivery. The
	// adaptive delay covers every delivery it sampled, since one late
	// snapshot in Samples is already more than DryTarget; a server
	// that stalls (an overloaded machine) sends a burst of late
	// snapshots, and without a cap the delay would cover the stall for
	// the next Samples snapshots. Default 1 s.
	MaxDelay time.Duration
	// MaxTimeScale bounds how much faster or slower than the server's
	// timeline (real time, on clocks that do not drift) the render clock
	// runs to reach its target: 0.05 is ±5 %. The clock never jumps
	// after the first snapshot.
	MaxTimeScale float64
	// SlowBelow and MinScale: when no snapshot has arrived for SlowGap
	// send intervals and those buffered ahead of the render clock cover
	// less than SlowBelow, the clock slows in proportion, down to
	// MinScale times the server's rate, so that a stall of the link
	// shows as a moment of slow motion instead of a frozen world, and
	// then takes the time back within MaxTimeScale. Default 100 ms and
	// 0.2; SlowBelow 0 turns it off (`bench interp` and `--buffering`
	// do for the Fixed and Mirror anchors, to show them as they are).
	SlowBelow time.Duration
	MinScale  float64
	// MaxAhead is how far past the snapshot the client expects now, in
	// seconds of snapshots, a packet may be before it is dropped as far
	// ahead. Default 2 s.
	MaxAhead time.Duration
}

// DefaultConfig returns 30 snapshots per second of a 60 Hz simulation,
// coded by stage 9 (range coded, straight-line prediction, no Simulator:
// its per-packet simulation would cost the server 4–7 ms per distinct
// baseline pair), with linear interpolation and adaptive buffering.
func DefaultConfig() Config {
	r := reliable.DefaultConfig()
	r.MaxPacketSize = 60 * 1024
	r.FragmentSize = 1024
	r.FragmentAbove = 1024
	r.MaxFragments = 60
	return Config{
		Codec:              snapshot.Codec{Stage: snapshot.RangeCoded, Config: snapshot.DefaultConfig()},
		TickRate:           60,
		TickInterval:       time.Second / 60,
		PPS:                30,
		Reliable:           r,
		MaxTicksPerUpdate:  8,
		ExtrapolationLimit: 200 * time.Millisecond,
		BlendTime:          100 * time.Millisecond,
		DryTarget:          0.001,
		MaxDelay:           time.Second,
		MaxTimeScale:       0.05,
		SlowBelow:          100 * time.Millisecond,
		MinScale:           0.2,
		MaxAhead:           2 * time.Second,
	}
}

// interval returns the ticks between snapshots.
func (c *Config) interval() int { return c.TickRate / c.PPS }

func (c *Config) validate() error {
	switch {
	case c.TickRate < 1 || c.TickRate > 1000 || c.TickInterval != time.Second/time.Duration(c.TickRate):
		return fmt.Errorf("%w: tick rate %d Hz, tick interval %v", ErrConfig, c.TickRate, c.TickInterval)
	case c.PPS < 1 || c.PPS > c.TickRate || c.TickRate%c.PPS != 0 || c.interval() > 60:
		return fmt.Errorf("%w: %d snapshots per second must divide the tick rate %d", ErrConfig, c.PPS, c.TickRate)
	case c.MaxTicksPerUpdate < 1:
		return fmt.Errorf("%w: MaxTicksPerUpdate %d", ErrConfig, c.MaxTicksPerUpdate)
	case c.ExtrapolationLimit < 0 || c.ExtrapolationLimit > 200*time.Millisecond || c.BlendTime < 0:
		return fmt.Errorf("%w: extrapolation limit %v (at most 200 ms), blend %v", ErrConfig, c.ExtrapolationLimit, c.BlendTime)
	case !(c.DryTarget > 0 && c.DryTarget < 0.5) || !(c.MaxTimeScale > 0 && c.MaxTimeScale <= 0.05) || c.MaxAhead <= 0 || c.MaxDelay <= 0:
		return fmt.Errorf("%w: dry target %g, time scale %g (at most 0.05), max ahead %v, max delay %v", ErrConfig, c.DryTarget, c.MaxTimeScale, c.MaxAhead, c.MaxDelay)
	case c.SlowBelow < 0 || c.SlowBelow > time.Second || !(c.MinScale > 0 && c.MinScale <= 1-c.MaxTimeScale):
		return fmt.Errorf("%w: slow below %v (0 to 1 s), min scale %g (above 0, at most 1 - MaxTimeScale)", ErrConfig, c.SlowBelow, c.MinScale)
	case c.SentVelocity && c.Codec.Stage > snapshot.QuantizedPosition && !(c.Codec.Stage == snapshot.RangeCoded && c.Codec.Config.Velocity.Res > 0):
		return fmt.Errorf("%w: SentVelocity with a codec that sends no velocity", ErrConfig)
	case c.Reliable.FragmentSize+reliable.MaxHeaderSize+reliable.FragmentHeaderSize > netmodel.MaxDatagram ||
		c.Reliable.FragmentAbove+reliable.MaxHeaderSize > netmodel.MaxDatagram:
		return fmt.Errorf("%w: reliable fragments of %d bytes exceed a %d-byte datagram", ErrConfig, c.Reliable.FragmentSize, netmodel.MaxDatagram)
	}
	return nil
}
