package snapshot

import (
	"errors"
	"fmt"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// Errors of the snapshot codecs, wrapped with %w.
var (
	// ErrStage: the codec's Stage is not one of the nine.
	ErrStage = errors.New("snapshot: unknown stage")
	// ErrCount: a snapshot's cube count differs from its baseline's, or a
	// decode target holds no cubes.
	ErrCount = errors.New("snapshot: cube count mismatch")
	// ErrTrailing: a decoded packet holds more than padding after the
	// snapshot.
	ErrTrailing = errors.New("snapshot: trailing data")
)

// Cube is the visual state of one cube: what a snapshot-interpolation
// client needs to draw it.
type Cube struct {
	Position vecmath.Vec3 // metres, Y up
	Rotation vecmath.Quat // unit
	// LinearVelocity (m/s) is sent by stages 1–3 only, as in the article,
	// and decodes as zero from the later stages.
	LinearVelocity vecmath.Vec3
	Interacting    bool // touched by a player since it last came to rest
}

// Snapshot is the state of every cube of the scene at one tick. The cube
// count is a property of the scene that both sides know; it is never read
// from a packet.
type Snapshot struct {
	Cubes []Cube

	// Inputs are the inputs of the ticks after the reference's Base up to
	// this snapshot, oldest first, for a codec with a Simulator: the
	// sender sets BaseAge of them, Decode fills them in. Other codecs
	// ignore them.
	Inputs []uint32

	// memo is the integer form Decode or Quantize computed, so that
	// coding against this snapshot as a reference does not quantize it
	// again (that would be most of the work). It is trusted only while
	// Cubes still equal its copy of them.
	memo *memo
}

// Stage selects one row of the snapshot-compression table; each stage adds
// to the previous one.
type Stage int

// The stages of the table.
const (
	// Uncompressed: float32 position, orientation and linear velocity,
	// one interacting bit: 321 bits per cube.
	Uncompressed Stage = iota + 1
	// SmallestThreeOrientation: orientation as smallest three, 9 bits per
	// component (29 bits).
	SmallestThreeOrientation
	// QuantizedPosition: position at 512 values per metre within bounds
	// (50 bits).
	QuantizedPosition
	// NoVelocity: velocity dropped, 80 bits per cube.
	NoVelocity
	// ChangedBits: delta against the baseline, one "not changed" bit per
	// cube.
	ChangedBits
	// ChangedIndices: the count and the relative-encoded indices of the
	// changed cubes instead of one bit per cube.
	ChangedIndices
	// RelativeEncoding: positions and smallest-three components relative
	// to the baseline's.
	RelativeEncoding
	// SeparateChanges: position-changed and orientation-changed bits.
	SeparateChanges
	// RangeCoded: prediction from the two newest baselines, or from the
	// Codec's Simulator run forward from them, everything range-coded
	// under adaptive context models.
	RangeCoded
	numStages = RangeCoded
)

// Stages lists every stage in table order.
var Stages = []Stage{
	Uncompressed, SmallestThreeOrientation, QuantizedPosition, NoVelocity, ChangedBits,
	ChangedIndices, RelativeEncoding, SeparateChanges, RangeCoded,
}

var stageNames = [...]string{"", "uncompressed", "smallest three", "quantized position", "no velocity",
	"changed bits", "changed indices", "relative encoding", "separate changes", "range coded"}

// String returns the stage's name in the table.
func (s Stage) String() string {
	if s < 1 || s > numStages {
		return fmt.Sprintf("stage(%d)", int(s))
	}
	return stageNames[s]
}

// Config holds the quantization the stages share.
type Config struct {
	// Position bounds of stages 3–9; Res is 1/512 m in the article.
	Position wire.Bounds
	// OrientationBits per smallest-three component (9 in the article).
	OrientationBits int
	// Gravity (m/s², pointing down -Y) and TickRate (Hz, ticks per
	// second) let stage 9 predict cubes in flight; Gravity 0 disables it.
	Gravity  float64
	TickRate int
	// MaxSimulatedTicks bounds the work one stage-9 packet can ask of a
	// receiver whose codec has a Simulator: a packet whose Base is older
	// than this many ticks is predicted in straight lines instead, so no
	// packet, honest or hostile, makes the receiver simulate more ticks
	// (at most 64 whatever the setting; 0 never simulates). Both ends
	// must agree. Default 16: about 13 ms of the cube world's 900-cube
	// simulation, and every packet at 100 ms RTT down to 15 pps.
	MaxSimulatedTicks int
	// Velocity, when its Res is above 0, makes stage 9 send the linear
	// velocity of every cube that changed, quantized within these bounds
	// (m/s; faster cubes are clamped), for a receiver that interpolates
	// with it (Hermite). It is coded as a residual from the mean
	// velocity over the ticks since Base, which both sides know once the
	// position is decoded. The zero value sends none; the other stages
	// ignore it (stages 1–3 send float32 velocities).
	Velocity wire.Bounds
}

// stageConfig returns the configuration the codec's stage codes with: the
// velocity bounds only for stage 9.
func (c Codec) stageConfig() Config {
	cfg := c.Config
	if c.Stage != RangeCoded {
		cfg.Velocity = wire.Bounds{}
	}
	return cfg
}

// sendsVelocity reports whether cfg codes velocities.
func (cfg Config) sendsVelocity() bool { return cfg.Velocity.Res > 0 }

// VelocityBounds returns velocity bounds of ±max m/s (the top excluded)
// at res m/s, for Config.Velocity.
func VelocityBounds(max, res float64) wire.Bounds {
	return wire.Bounds{Min: vecmath.V3(-max, -max, -max), Max: vecmath.V3(max-res, max-res, max-res), Res: res}
}

// DefaultConfig returns the article's quantization: x and z in
// [-256, 256) m and y in [0, 32) m at 512 values per metre (18 + 14 + 18
// bits), 9 bits per smallest-three component. A scene whose cubes leave
// these bounds must widen them: positions outside are ErrRange.
func DefaultConfig() Config {
	const res = 1.0 / 512
	return Config{
		Position: wire.Bounds{
			Min: vecmath.V3(-256, 0, -256),
			Max: vecmath.V3(256-res, 32-res, 256-res),
			Res: res,
		},
		OrientationBits:   9,
		Gravity:           9.81,
		TickRate:          60,
		MaxSimulatedTicks: 16,
	}
}

// Reference is what both sides hold to code a snapshot against: snapshots
// the receiver has decoded and the sender knows it has (from acks).
type Reference struct {
	// Base is the baseline of the delta stages (5–9); nil codes every cube
	// in full (stage 9: each predicted from the cubes before it).
	Base *Snapshot
	// Prev is a snapshot older than Base; stage 9 extrapolates each cube's
	// motion from Prev to Base. Nil: no prediction.
	Prev *Snapshot
	// BaseAge is the number of ticks from Base to the coded snapshot and
	// PrevAge from Prev to Base. Prediction needs both > 0 and BaseAge
	// at most 64·PrevAge and 2²⁰; otherwise Prev is ignored. Which
	// PrevAge predicts best changes from snapshot to snapshot: a fresh
	// velocity from two close snapshots, or less quantization noise from
	// two far apart. A sender can measure candidates with Size and keep
	// the smallest (internal/compression does).
	BaseAge, PrevAge int
}

// Codec encodes and decodes snapshots at one stage of the table.
type Codec struct {
	Stage  Stage
	Config Config
	// Simulator, if set, is what stage 9 predicts with whenever the
	// reference has a Base and a Prev (at most Config.MaxSimulatedTicks
	// ticks old): see
	// Simulator. The other stages ignore it.
	Simulator Simulator
}

// Serialize codes snap against ref on s. When s reads, snap.Cubes must
// already hold the scene's cube count; the decoded cubes replace them.
// Writing requires len(snap.Cubes) to equal the baseline's. Stage 9 is
// meant for a range coder (wire.NewRangeEncoder); the others for the bit
// packer, though every stage runs on either.
func (c Codec) Serialize(s wire.Stream, snap *Snapshot, ref Reference) error {
	n := len(snap.Cubes)
	if n == 0 || (ref.Base != nil && len(ref.Base.Cubes) != n) || (ref.Prev != nil && len(ref.Prev.Cubes) != n) {
		return fmt.Errorf("snapshot: %d cubes against a reference of another size: %w", n, ErrCount)
	}
	switch c.Stage {
	case Uncompressed, SmallestThreeOrientation:
		return c.serializeFloats(s, snap)
	case QuantizedPosition, NoVelocity:
		return c.serializeQuantized(s, snap)
	case ChangedBits, ChangedIndices, RelativeEncoding, SeparateChanges:
		return c.serializeDelta(s, snap, ref)
	case RangeCoded:
		return c.serializePredicted(s, snap, ref)
	}
	return fmt.Errorf("snapshot: stage %d: %w", c.Stage, ErrStage)
}
