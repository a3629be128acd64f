// Package replay records the snapshots of a match whose server simulates
// (snapshot interpolation, client prediction, state sync seen through
// interp.Tap) to a file, and plays them back with seek.
//
// # What a replay holds
//
// A server-simulated match is not re-simulated from inputs, as a lockstep
// replay is: a replay holds the server's snapshots, coded as interp codes
// them on the wire (stage 9 of wire/snapshot against the previous
// snapshots, the first of every KeyEvery coded whole: a keyframe), each
// with a checksum of the snapshot it decodes to. The cube world's 900
// cubes at 30 snapshots per second take about what a spectator receives.
//
// # Recording
//
//	rec, _ := replay.NewRecorder(w, header)       // header: NewHeader(cfg, ...)
//	srv, _ := interp.NewServer(cfg, rec.Wrap(game), now)
//	tap, _ := interp.NewTap(cfg, spec, n, now, rec.Wrap)
//	...
//	rec.Close()
//
// or Record(n, snapshot) for each snapshot.
//
// # Playing back
//
// Read loads a file (bounded: a malformed file is an error wrapping
// ErrFormat, never a panic, and no length in it sizes an allocation
// beyond the bytes present); Playback decodes it in order, seeks by
// decoding from the keyframe before the target, and draws any tick
// between two snapshots (Lerp); Verify decodes every snapshot and checks
// its checksum.
package replay

import (
	"errors"
	"fmt"
	"math"

	"github.com/netphys/netphys/netmodel/internal/replayfile"
	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// The file
//
//	file   = magic "NPSR" | version (1 byte) | block(header) | block(snapshot)*
//	block  = length (unsigned varint, 1 to MaxBlock) | that many bytes
//
//	header (one bit stream):
//	  model            bytes ≤ 32    "interp", "predict", "statesync"
//	  game, variant    bytes ≤ 64    "cube world" "cubes900", "arena" "4 players"
//	  party, note      bytes ≤ 64, ≤ 256
//	  objects          1 to MaxObjects
//	  tick rate        1 to 1000 Hz
//	  interval         1 to 60 ticks between snapshots
//	  key every        1 to 65535 snapshots between keyframes
//	  position bounds  min, max (3 × 64-bit IEEE 754 each), res (64 bits)
//	  orientation bits MinQuatBits to MaxQuatBits
//	  velocity         1 bit: sent; then its bounds as position's
//	  gravity          64 bits (m/s², stage 9's prediction)
//	  max simulated    0 to 64 ticks (stage 9)
//
//	snapshot (one bit stream):
//	  kind             2 bits, 0
//	  number           0 to 2⁴⁰: the snapshot's interp.Number
//	  checksum         32 bits: Checksum of the snapshot decoded
//	  packet           bytes ≤ MaxPacket: an interp packet (header,
//	                   resets, body), coded against the snapshots
//	                   before it back to the last keyframe; a keyframe's
//	                   names no baseline
//
// Numbers increase; the first snapshot is a keyframe.

// Magic opens every snapshot replay; Version is the format's version.
const (
	Magic   = "NPSR"
	Version = 1
)

// Bounds of the format.
const (
	// MaxBlock is the largest block.
	MaxBlock = 1 << 20
	// MaxPacket is the largest snapshot packet.
	MaxPacket = MaxBlock - 64
	// MaxObjects bounds a snapshot's objects.
	MaxObjects = 1 << 16
	maxNumber  = 1 << 40
	kindSnap   = 0
)

// format is the container of a snapshot replay file.
var format = replayfile.Format{Magic: Magic, Version: Version, MaxBlock: MaxBlock, Name: "snapshot replay", Err: ErrFormat}

// Errors of the package.
var (
	// ErrFormat: the bytes are not a snapshot replay this reader takes.
	ErrFormat = errors.New("replay: malformed snapshot replay")
	// ErrHeader: a header that cannot be written.
	ErrHeader = errors.New("replay: bad header")
	// ErrRecord: a recording that failed (a write error, numbers out of
	// order).
	ErrRecord = errors.New("replay: recording failed")
	// ErrChecksum: a snapshot decodes to another checksum than recorded.
	ErrChecksum = errors.New("replay: snapshot differs from the recording")
)

// Header describes the recorded match and how its snapshots are coded.
type Header struct {
	Model   string // "interp", "predict", "statesync"
	Game    string // "cube world", "arena", "VR table"
	Variant string // its setup: the layout, the players
	Party   string // who recorded: "server"
	Note    string // free text: the session's flags
	Objects int
	// TickRate is the server's rate, Hz; Interval the ticks between
	// snapshots (snapshot n is the state after tick n·Interval).
	TickRate, Interval int
	// KeyEvery is the snapshots between keyframes: seeking decodes at
	// most this many.
	KeyEvery int
	// Codec is the stage-9 configuration the snapshots are coded with.
	Codec snapshot.Config
}

// NewHeader returns the header of a match coded by cfg (as the server's
// or the tap's interp.Config), with a keyframe every 10 s.
func NewHeader(cfg interp.Config, objects int, model, game, variant, party string) Header {
	interval := cfg.TickRate / cfg.PPS
	return Header{
		Model: model, Game: game, Variant: variant, Party: party, Objects: objects,
		TickRate: cfg.TickRate, Interval: interval, KeyEvery: 10 * cfg.PPS,
		Codec: cfg.Codec.Config,
	}
}

// SnapshotCodec returns the codec of the snapshots.
func (h *Header) SnapshotCodec() snapshot.Codec {
	return snapshot.Codec{Stage: snapshot.RangeCoded, Config: h.Codec}
}

// Serialize writes, reads or measures the header.
func (h *Header) Serialize(s wire.Stream) error {
	if err := replayfile.SerializeLabels(s, &h.Model, &h.Game, &h.Variant, &h.Party, &h.Note); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &h.Objects, 1, MaxObjects); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &h.TickRate, 1, 1000); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &h.Interval, 1, 60); err != nil {
		return err
	}
	if err := wire.SerializeInt(s, &h.KeyEvery, 1, 65535); err != nil {
		return err
	}
	c := &h.Codec
	if err := serializeBounds(s, &c.Position); err != nil {
		return fmt.Errorf("position bounds: %w", err)
	}
	if err := wire.SerializeInt(s, &c.OrientationBits, wire.MinQuatBits, wire.MaxQuatBits); err != nil {
		return err
	}
	velocity := c.Velocity.Res > 0
	if err := wire.SerializeBool(s, &velocity); err != nil {
		return err
	}
	if velocity {
		if err := serializeBounds(s, &c.Velocity); err != nil {
			return fmt.Errorf("velocity bounds: %w", err)
		}
	} else if s.Mode() == wire.Reading {
		c.Velocity = wire.Bounds{}
	}
	if err := serializeFloat(s, &c.Gravity); err != nil {
		return err
	}
	if !(c.Gravity >= 0 && c.Gravity <= 1000) {
		return fmt.Errorf("gravity %g m/s²: want 0 to 1000", c.Gravity)
	}
	if s.Mode() == wire.Reading {
		c.TickRate = h.TickRate // stage 9 predicts at the server's rate
	}
	return wire.SerializeInt(s, &c.MaxSimulatedTicks, 0, 64)
}

// check returns what makes the header unwritable.
func (h *Header) check() error {
	var m wire.Measurer
	if err := h.Serialize(&m); err != nil {
		return fmt.Errorf("%w: %w", ErrHeader, err)
	}
	if h.Codec.TickRate != h.TickRate {
		return fmt.Errorf("%w: codec tick rate %d, the server's %d", ErrHeader, h.Codec.TickRate, h.TickRate)
	}
	return nil
}

// serializeBounds codes bounds as 7 float64s and checks, reading or
// writing, that they quantize: finite, Min ≤ Max, Res > 0, at most 2²⁴
// steps an axis (a snapshot position takes at most 3 × 24 bits).
func serializeBounds(s wire.Stream, b *wire.Bounds) error {
	for _, v := range []*float64{&b.Min.X, &b.Min.Y, &b.Min.Z, &b.Max.X, &b.Max.Y, &b.Max.Z, &b.Res} {
		if err := serializeFloat(s, v); err != nil {
			return err
		}
	}
	if !(b.Res > 0) || math.IsInf(b.Res, 0) {
		return fmt.Errorf("resolution %g", b.Res)
	}
	for i := range 3 {
		lo, hi := b.Min.Comp(i), b.Max.Comp(i)
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo <= hi) || !((hi-lo)/b.Res <= 1<<24) {
			return fmt.Errorf("axis %d: [%g, %g] at %g", i, lo, hi, b.Res)
		}
	}
	return nil
}

func serializeFloat(s wire.Stream, v *float64) error {
	bits := math.Float64bits(*v)
	if err := wire.SerializeBits(s, &bits, 64); err != nil {
		return err
	}
	*v = math.Float64frombits(bits)
	if math.IsNaN(*v) {
		return errors.New("NaN")
	}
	return nil
}

// record is one snapshot block.
type record struct {
	n      interp.Number
	sum    uint32
	packet []byte
}

func (r *record) serialize(s wire.Stream) error {
	kind := uint8(kindSnap)
	if err := wire.SerializeBits(s, &kind, 2); err != nil {
		return err
	}
	if kind != kindSnap {
		return fmt.Errorf("a block of unknown kind %d", kind)
	}
	n := int64(r.n)
	if err := wire.SerializeInt(s, &n, 0, maxNumber); err != nil {
		return err
	}
	r.n = interp.Number(n)
	if err := wire.SerializeBits(s, &r.sum, 32); err != nil {
		return err
	}
	return wire.SerializeBytes(s, &r.packet, MaxPacket)
}

// Checksum is the FNV-1a hash of a snapshot's decoded values (their
// IEEE 754 bits): what a recording's snapshots must decode to.
func Checksum(s *snapshot.Snapshot) uint32 {
	h := uint32(2166136261)
	mix := func(v float64) {
		b := math.Float64bits(v)
		for range 8 {
			h = (h ^ uint32(b&0xff)) * 16777619
			b >>= 8
		}
	}
	for i := range s.Cubes {
		c := &s.Cubes[i]
		for _, v := range []float64{c.Position.X, c.Position.Y, c.Position.Z, c.Rotation.X, c.Rotation.Y, c.Rotation.Z, c.Rotation.W} {
			mix(v)
		}
		if c.Interacting {
			mix(1)
		}
	}
	return h
}
