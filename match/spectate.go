package match

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/interp"
	snapreplay "github.com/netphys/netphys/netmodel/interp/replay"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/viewer"
	"github.com/netphys/netphys/wire"
)

// Spectators of the models whose server simulates. A spectator says so
// in the driver's hello (udpdrive.Watching: play --spectate), so the host
// takes it by Watch and never seats it: the players neither see it nor
// wait for it. predict's and statesync's hosts show their authoritative
// world through an interp.Tap (WithSpectators): every spectator is an interp
// client of it, drawn as the model draws its world, and serve --record
// writes the tap's snapshots. interp's clients are spectators already:
// its host takes a spectator as any client. lockstep's spectators are
// its own (lockstep.NewSpectator: they simulate the relayed inputs).

// World is what a host shows its spectators (WithSpectators).
type World interface {
	// WorldTick is the tick the host's world is at.
	WorldTick() int64
	// CaptureWorld writes the state of every object spectators draw.
	CaptureWorld(dst []wire.BodyState)
}

// SpectatorConfig is the interp configuration spectators of a world
// stepped at tickRate with states quantized by spec use: 30 snapshots a
// second (or one a tick, below 30 Hz). A spectator's interp.Client takes
// it.
func SpectatorConfig(tickRate int, spec wire.StateSpec) interp.Config {
	cfg := interp.DefaultConfig()
	cfg.TickRate, cfg.TickInterval = tickRate, time.Second/time.Duration(tickRate)
	cfg.Codec.Config.TickRate = tickRate
	cfg.PPS = min(cfg.PPS, tickRate)
	return interp.TapConfig(cfg, spec)
}

// Watched is a host with spectators of its world (WithSpectators); its
// Host is the model's.
type Watched struct {
	Host
	world    World
	tap      *interp.Tap
	watching []bool // by slot
	watchers int
	close    func(keep bool) error // the recording's; nil: none
	// played: a player has joined; a host nobody played (the next
	// match's, still waiting when serve stops) keeps no replay.
	played bool
}

// WatchedWorld describes the world of a host with spectators: what its
// replay's header names (a game's replay viewer reads them back), its
// tick rate, its objects and how their states are quantized.
type WatchedWorld struct {
	Model, Game, Variant string
	TickRate, Objects    int
	Spec                 wire.StateSpec
}

// WithSpectators returns host with spectators of w: a client whose hello
// says it watches (play --spectate, udpdrive.Watching) is never seated
// in the model but gets interp snapshots of w (an interp.Tap), which
// s.Record, if set, also records (serve --record). The host keeps its
// optional capabilities (netmodel.Identified, udpdrive.Releaser,
// Refuser, Agreer, io.Closer).
func WithSpectators(host Host, w World, s Setup, d WatchedWorld) (Host, error) {
	h := &Watched{Host: host, world: w}
	cfg := SpectatorConfig(d.TickRate, d.Spec)
	var wrap func(interp.Game) interp.Game
	if s.Record != "" {
		rec, closeRec, err := RecordSnapshots(s, snapreplay.NewHeader(cfg, d.Objects, d.Model, d.Game, d.Variant, "server"))
		if err != nil {
			return nil, err
		}
		wrap, h.close = rec.Wrap, closeRec
	}
	tap, err := interp.NewTap(cfg, d.Spec, d.Objects, s.Now, wrap)
	if err != nil {
		h.Close()
		return nil, err
	}
	h.tap = tap
	return h, nil
}

// Tap is what serves the spectators: its Server has their counters.
func (h *Watched) Tap() *interp.Tap { return h.tap }

func (h *Watched) isWatching(slot int) bool {
	return slot >= 0 && slot < len(h.watching) && h.watching[slot]
}

// Watch implements udpdrive.Spectated: the client in slot watches.
func (h *Watched) Watch(now time.Time, slot int) error {
	if err := h.tap.Join(slot); err != nil {
		return err
	}
	for len(h.watching) <= slot {
		h.watching = append(h.watching, false)
	}
	h.watching[slot] = true
	h.watchers++
	return nil
}

// JoinClient forwards a player's join with its client id to a model
// that is netmodel.Identified (its rejoin), else to Join.
func (h *Watched) JoinClient(now time.Time, slot int, clientID uint64) error {
	if m, ok := h.Host.(netmodel.Identified); ok {
		return h.seated(m.JoinClient(now, slot, clientID))
	}
	return h.Join(now, slot)
}

// Join seats a player in the model.
func (h *Watched) Join(now time.Time, slot int) error { return h.seated(h.Host.Join(now, slot)) }

// seated notes that a join without err seated a player.
func (h *Watched) seated(err error) error {
	if err == nil {
		h.played = true
	}
	return err
}

// Receive hands a spectator's datagrams (its acks) to the tap, a
// player's to the model.
func (h *Watched) Receive(now time.Time, slot int, datagram []byte) error {
	if h.isWatching(slot) {
		return h.tap.Receive(slot, datagram)
	}
	return h.Host.Receive(now, slot, datagram)
}

// Leave takes a spectator off the tap, a player out of the match.
func (h *Watched) Leave(now time.Time, slot int) {
	if h.isWatching(slot) {
		h.watching[slot] = false
		h.tap.Leave(slot)
		return
	}
	h.Host.Leave(now, slot)
}

// Update runs the model, then brings the tap to its tick.
func (h *Watched) Update(now time.Time, send func(int, []byte)) error {
	if err := h.Host.Update(now, send); err != nil {
		return err
	}
	return h.tap.Update(h.world.WorldTick(), h.world.CaptureWorld, send)
}

func (h *Watched) spectators() int {
	n := 0
	for _, w := range h.watching {
		if w {
			n++
		}
	}
	return n
}

func (h *Watched) Figures(now time.Time, dst []viewer.Figure) []viewer.Figure {
	return append(h.Host.Figures(now, dst), viewer.Figure{Name: "spectators", Value: float64(h.spectators())})
}

func (h *Watched) Summary(now time.Time, dst []Line) []Line {
	c := h.tap.Server().Counters()
	return append(h.Host.Summary(now, dst), Line{"spectators", fmt.Sprintf("%d watching, %d in the match; %d snapshots, %d packets, %.1f bytes mean", h.spectators(), h.watchers, c.Snapshots, c.Packets, float64(c.Bytes)/max(1, float64(c.Packets)))})
}

// RefusalCounts forwards the model's (Refuser).
func (h *Watched) RefusalCounts() []Count {
	if r, ok := h.Host.(Refuser); ok {
		return r.RefusalCounts()
	}
	return nil
}

// Released forwards the model's (udpdrive.Releaser) for its players.
func (h *Watched) Released(slot int) (code, reason string, done bool) {
	if r, ok := h.Host.(udpdrive.Releaser); ok && !h.isWatching(slot) {
		return r.Released(slot)
	}
	return "", "", false
}

// Agreement forwards the model's (Agreer).
func (h *Watched) Agreement(now time.Time) string {
	if a, ok := h.Host.(Agreer); ok {
		return a.Agreement(now)
	}
	return ""
}

// Close ends the recording and what the model keeps open.
func (h *Watched) Close() error {
	var err error
	if h.close != nil {
		err, h.close = h.close(h.played), nil
	}
	if c, ok := h.Host.(io.Closer); ok {
		err = errors.Join(err, c.Close())
	}
	return err
}
