package compression

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire/snapshot"
)

// udpIPv4Header is counted on every datagram, as the article does.
const udpIPv4Header = 28

// tickRate is the simulation and snapshot rate, Hz.
const tickRate = 60

// Config sets up a report run.
type Config struct {
	Ticks      int               // how much of the script to play; PlayMinute.Len() for the full minute
	Conditions netsim.Conditions // each way
	Seed       uint64
	Stages     []snapshot.Stage
	Snapshot   snapshot.Config
}

// DefaultConfig is the setting: the scripted minute, 100 ms RTT
// (50 ms each way) and 5 % loss each way, every stage.
func DefaultConfig() Config {
	return Config{
		Ticks:      scene.PlayMinute.Len(),
		Conditions: netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.05},
		Seed:       1,
		Stages:     snapshot.Stages,
		Snapshot:   snapshot.DefaultConfig(),
	}
}

// Row is one stage's line of the table.
type Row struct {
	Stage              snapshot.Stage
	MeanKbps, PeakKbps float64 // at 60 packets per second, UDP/IPv4 headers included; peak over 1 s windows
	MeanBytes          float64 // snapshot packet payload (header + coded snapshot), bytes
	MaxBytes           int
	MaxPositionError   float64 // m, decoded against the sender's true state
	MaxRotationError   float64 // radians
	Decoded            int     // snapshots the receiver decoded
	Simulated          bool    // stage 9 predicted with the scene's simulation
}

type stageStats struct {
	packets, payloadBytes, maxBytes int
	wireBytes                       int   // datagram bytes with headers
	window                          []int // wire bytes of the last tickRate ticks
	peakWindow                      int
	tickBytes                       int
	maxPos, maxRot                  float64
	decoded                         int
}

func (s *stageStats) addPacket(payload, wire int) {
	s.packets++
	s.payloadBytes += payload
	s.maxBytes = max(s.maxBytes, payload)
	s.wireBytes += wire
	s.tickBytes += wire
}

// endTick closes a tick's bandwidth window.
func (s *stageStats) endTick() {
	s.window = append(s.window, s.tickBytes)
	if len(s.window) > tickRate {
		s.window = s.window[1:]
	}
	s.tickBytes = 0
	if len(s.window) == tickRate {
		sum := 0
		for _, b := range s.window {
			sum += b
		}
		s.peakWindow = max(s.peakWindow, sum)
	}
}

func (s *stageStats) addError(truth, got *snapshot.Snapshot) {
	s.decoded++
	for i := range truth.Cubes {
		t, g := &truth.Cubes[i], &got.Cubes[i]
		s.maxPos = math.Max(s.maxPos, t.Position.Sub(g.Position).Length())
		s.maxRot = math.Max(s.maxRot, t.Orientation.Angle(g.Orientation))
	}
}

// Run plays the script once and measures every stage on it. progress, if
// set, is called once a second of simulated play.
func Run(cfg Config, progress func(tick, total int)) ([]Row, error) {
	sc, err := scene.New(scene.Cubes900, scene.DefaultConfig())
	if err != nil {
		return nil, err
	}
	cubes := len(sc.Cubes) + 1
	start := time.Unix(0, 0)
	pipes := make([]*pipeline, len(cfg.Stages))
	for i, st := range cfg.Stages {
		if pipes[i], err = newPipeline(st, cfg, cubes, start); err != nil {
			return nil, err
		}
	}
	var truth snapRing
	for i := range truth {
		truth[i].snap.Cubes = make([]snapshot.Cube, cubes)
	}
	var inputs [ring]uint32 // by tick, for stage 9's simulation
	for tick := 0; tick < cfg.Ticks; tick++ {
		in := scene.PlayMinute.At(tick)
		inputs[tick%ring] = uint32(in.Bits())
		sc.Step(in)
		now := start.Add(time.Duration(tick) * time.Second / tickRate)
		t := &truth[tick%ring]
		capture(sc, cfg.Snapshot, t.snap.Cubes)
		t.tick, t.valid = tick, true
		// Each end first takes in what arrived, then sends, as a game
		// loop does: the sender codes against a snapshot acknowledged
		// this very tick (BaseAge 6 at 100 ms RTT rather than 7).
		for _, p := range pipes {
			if err := p.deliver(now, &truth); err != nil {
				return nil, err
			}
			if err := p.send(now, tick, &t.snap, &inputs); err != nil {
				return nil, err
			}
			p.stats.endTick()
		}
		if progress != nil && tick%tickRate == 0 {
			progress(tick, cfg.Ticks)
		}
	}
	rows := make([]Row, len(pipes))
	secs := float64(cfg.Ticks) / tickRate
	for i, p := range pipes {
		s := &p.stats
		rows[i] = Row{
			Stage:            p.codec.Stage,
			MeanKbps:         float64(s.wireBytes) * 8 / 1000 / secs,
			PeakKbps:         float64(s.peakWindow) * 8 / 1000,
			MeanBytes:        float64(s.payloadBytes) / float64(max(s.packets, 1)),
			MaxBytes:         s.maxBytes,
			MaxPositionError: s.maxPos,
			MaxRotationError: s.maxRot,
			Decoded:          s.decoded,
			Simulated:        p.codec.Simulator != nil,
		}
	}
	return rows, nil
}

// capture copies the scene into a snapshot: the player first, then the
// cubes. Positions are clamped into the codec's bounds; a cube flung out of
// them is drawn at the edge rather than breaking the stream.
func capture(sc *scene.Scene, cfg snapshot.Config, dst []snapshot.Cube) {
	b := cfg.Position
	put := func(i int, st physics.BodyState, interacting bool) {
		dst[i] = snapshot.Cube{
			Position:       b.Clamp(st.Position),
			Orientation:    st.Rotation,
			LinearVelocity: st.LinearVelocity,
			Interacting:    interacting,
		}
	}
	put(0, sc.State(sc.Player), false)
	for i, id := range sc.Cubes {
		put(i+1, sc.State(id), sc.Interacting(i))
	}
}

// Print writes the table.
func Print(w io.Writer, cfg Config, rows []Row) {
	fmt.Fprintf(w, "snapshot compression: %d cubes incl. the player, %.0f s scripted play, 60 snapshots/s, latency %v each way, loss %.0f %% each way\n",
		901, float64(cfg.Ticks)/tickRate, cfg.Conditions.Latency, 100*cfg.Conditions.Loss)
	fmt.Fprintf(w, "%-2s %-34s %10s %10s %10s %9s %12s %12s\n", "#", "stage", "mean kbps", "peak kbps", "bytes/snap", "max bytes", "max pos err", "max rot err")
	for _, r := range rows {
		name := r.Stage.String()
		if r.Simulated {
			name += " + simulation"
		}
		fmt.Fprintf(w, "%-2d %-34s %10.1f %10.1f %10.1f %9d %10.2f mm %9.3f deg\n",
			int(r.Stage), name, r.MeanKbps, r.PeakKbps, r.MeanBytes, r.MaxBytes,
			1000*r.MaxPositionError, r.MaxRotationError*180/math.Pi)
	}
}
