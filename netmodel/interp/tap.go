package interp

import (
	"fmt"
	"time"

	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// Tap shows the authoritative world of another model (predict's server,
// statesync's host) through this one: any number of this package's
// clients join it as spectators and get its snapshots, coded as a
// Server codes them, and a recorder (package interp/replay) may take the
// same snapshots. The host steps its world itself; the tap only looks.
//
// The tap's time is the host's tick: Update takes the tick the host's
// world is at, and the tap's Server steps to exactly that tick, on a
// clock of start + tick·TickInterval (so its reliable endpoints time
// their acks in the host's ticks, a tick's precision). Snapshot n is the
// host's world when its tick reached n·interval; an Update in which the
// host stepped several ticks (catching up) gives the snapshots due in it
// the world after the last. The spectators never hold the host back:
// the tap sends, and takes only acks.
type Tap struct {
	srv   *Server
	src   *tapSource
	cfg   Config
	start time.Time
	now   time.Time
	tick  int64
}

// tapSource is the tap's StateGame: its steps are the host's, counted;
// its states are those the host's capture writes.
type tapSource struct {
	spec    wire.StateSpec
	objects int
	capture func(dst []wire.BodyState)
}

func (s *tapSource) Objects() int                       { return s.objects }
func (s *tapSource) Step() uint32                       { return 0 }
func (s *tapSource) Spec() wire.StateSpec               { return s.spec }
func (s *tapSource) CaptureStates(dst []wire.BodyState) { s.capture(dst) }

// NewTap returns a tap of a world of objects objects whose states are
// quantized by spec (ForStates codes them), at the host's tick 0 at
// start. wrap, if not nil, wraps the game the tap's server captures:
// replay.Recorder.Wrap records every snapshot. Spectators must use
// Config().
func NewTap(cfg Config, spec wire.StateSpec, objects int, start time.Time, wrap func(Game) Game) (*Tap, error) {
	if objects < 1 {
		return nil, fmt.Errorf("%w: a tap of %d objects", ErrConfig, objects)
	}
	src := &tapSource{spec: spec, objects: objects}
	_, game := ForStates(cfg, src)
	cfg = TapConfig(cfg, spec)
	if wrap != nil {
		game = wrap(game)
	}
	srv, err := NewServer(cfg, game, start)
	if err != nil {
		return nil, err
	}
	return &Tap{srv: srv, src: src, cfg: cfg, start: start, now: start}, nil
}

// TapConfig is the configuration a tap of cfg codes states of spec with
// (ForStates'), which its spectators' clients must use.
func TapConfig(cfg Config, spec wire.StateSpec) Config {
	cfg, _ = ForStates(cfg, &tapSource{spec: spec, objects: 1})
	// The tap's server steps the ticks a host stepped in one Update: it
	// never falls behind one.
	cfg.MaxTicksPerUpdate = max(cfg.MaxTicksPerUpdate, 64)
	return cfg
}

// Config is the configuration the tap codes with, which its spectators'
// clients must use.
func (t *Tap) Config() Config { return t.cfg }

// Server is the tap's server, for its counters.
func (t *Tap) Server() *Server { return t.srv }

// Join adds a spectator in slot (the host's slot numbering).
func (t *Tap) Join(slot int) error { return t.srv.Join(t.now, slot) }

// Leave removes the spectator in slot.
func (t *Tap) Leave(slot int) { t.srv.Leave(t.now, slot) }

// Receive takes a spectator's datagram (its acks).
func (t *Tap) Receive(slot int, datagram []byte) error {
	return t.srv.Receive(t.now, slot, datagram)
}

// Update brings the tap to the host's tick: the snapshots due on the way
// capture the host's world with capture (called only when one is due)
// and go to every spectator through send. A tick behind the last is an
// error: a host's ticks only go forward.
func (t *Tap) Update(tick int64, capture func(dst []wire.BodyState), send func(slot int, datagram []byte)) error {
	if tick < t.tick {
		return fmt.Errorf("%w: the host's tick %d after %d", ErrConfig, tick, t.tick)
	}
	t.tick = tick
	t.now = t.start.Add(time.Duration(tick) * t.cfg.TickInterval)
	t.src.capture = capture
	err := t.srv.Update(t.now, send)
	t.src.capture = nil
	return err
}

// Lerp draws an object at fraction u of the way from a to b, as a
// Linear client draws it between two snapshots.
func Lerp(a, b *snapshot.Cube, u float64) snapshot.Cube { return lerpCube(a, b, u) }
