package match

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	snapreplay "github.com/netphys/netphys/netmodel/interp/replay"
	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/viewer"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// Spectators of the models whose server simulates. A spectator says so
// in the driver's hello (udpdrive.Watching: play --spectate), so the host
// takes it by Watch and never seats it: the players neither see it nor
// wait for it. predict's and statesync's hosts show their authoritative
// world through an interp.Tap (watched): every spectator is an interp
// client of it, drawn as the model draws its world, and serve --record
// writes the tap's snapshots. interp's clients are spectators already:
// its host takes a spectator as any client. lockstep's spectators are
// its own (lockstep.NewSpectator: they simulate the relayed inputs).

// world is what a host shows its spectators.
type world interface {
	// worldTick is the tick the host's world is at.
	worldTick() int64
	// captureWorld writes the state of every object spectators draw.
	captureWorld(dst []wire.CubeState)
}

// spectatorConfig is the interp configuration spectators of a world
// stepped at tickRate with states quantized by spec use: 30 snapshots a
// second (or one a tick, below 30 Hz).
func spectatorConfig(tickRate int, spec wire.StateSpec) interp.Config {
	cfg := interp.DefaultConfig()
	cfg.TickRate, cfg.TickInterval = tickRate, time.Second/time.Duration(tickRate)
	cfg.Codec.Config.TickRate = tickRate
	cfg.PPS = min(cfg.PPS, tickRate)
	return interp.TapConfig(cfg, spec)
}

// watched is a host with spectators of its world.
type watched struct {
	Host
	world    world
	tap      *interp.Tap
	watching []bool // by slot
	watchers int
	close    func() error // the recording's; nil: none
	// With seats, a player's slot in the model is the lowest seat free
	// when it joins, not its driver's slot, which a spectator that came
	// first may hold: seat[slot] and slotOf[seat], -1 when free.
	seat, slotOf []int
	send, out    func(int, []byte) // sendFrom; the driver's send during Update
}

// watchedWorld describes the world of a watched host: the replay's header
// names it (ReplayDrawer reads them back).
type watchedWorld struct {
	model, game, variant string
	tickRate, objects    int
	spec                 wire.StateSpec
	// seats, if above 0, is the model's player slots, which the host
	// gives the players in the order they join (a model whose clients
	// learn their seat from the server: predict). 0: a player's seat is
	// its driver's slot (statesync's guests derive theirs from it).
	seats int
}

// watch returns host with spectators of w, recording its snapshots to
// s.Record if set.
func watch(host Host, w world, s Setup, d watchedWorld) (Host, error) {
	h := &watched{Host: host, world: w}
	h.slotOf = make([]int, d.seats)
	for i := range h.slotOf {
		h.slotOf[i] = -1
	}
	h.send = h.sendFrom
	cfg := spectatorConfig(d.tickRate, d.spec)
	var wrap func(interp.Game) interp.Game
	if s.Record != "" {
		rec, closeRec, err := recordSnapshots(s, snapreplay.NewHeader(cfg, d.objects, d.model, d.game, d.variant, "server"))
		if err != nil {
			return nil, err
		}
		wrap, h.close = rec.Wrap, closeRec
	}
	tap, err := interp.NewTap(cfg, d.spec, d.objects, s.Now, wrap)
	if err != nil {
		h.Close()
		return nil, err
	}
	h.tap = tap
	return h, nil
}

func (h *watched) isWatching(slot int) bool {
	return slot >= 0 && slot < len(h.watching) && h.watching[slot]
}

// Watch implements udpdrive.Spectated: the client in slot watches.
func (h *watched) Watch(now time.Time, slot int) error {
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

// Join seats a player: in its driver's slot, or with seats in the lowest
// free seat.
func (h *watched) Join(now time.Time, slot int) error {
	if len(h.slotOf) == 0 {
		return h.Host.Join(now, slot)
	}
	seat := slices.Index(h.slotOf, -1)
	if seat < 0 {
		return fmt.Errorf("match: every one of the %d seats is taken", len(h.slotOf))
	}
	if err := h.Host.Join(now, seat); err != nil {
		return err
	}
	for len(h.seat) <= slot {
		h.seat = append(h.seat, -1)
	}
	h.seat[slot], h.slotOf[seat] = seat, slot
	return nil
}

// seatOf is the model's slot of the player in the driver's slot; -1: none.
func (h *watched) seatOf(slot int) int {
	if len(h.slotOf) == 0 {
		return slot
	}
	if slot < 0 || slot >= len(h.seat) {
		return -1
	}
	return h.seat[slot]
}

// sendFrom sends the model's datagram for seat to its player's slot.
func (h *watched) sendFrom(seat int, b []byte) {
	slot := seat
	if len(h.slotOf) > 0 {
		if seat < 0 || seat >= len(h.slotOf) || h.slotOf[seat] < 0 {
			return
		}
		slot = h.slotOf[seat]
	}
	h.out(slot, b)
}

// Receive hands a spectator's datagrams (its acks) to the tap, a
// player's to the model.
func (h *watched) Receive(now time.Time, slot int, datagram []byte) error {
	if h.isWatching(slot) {
		return h.tap.Receive(slot, datagram)
	}
	return h.Host.Receive(now, h.seatOf(slot), datagram)
}

// Leave takes a spectator off the tap, a player out of the match.
func (h *watched) Leave(now time.Time, slot int) {
	if h.isWatching(slot) {
		h.watching[slot] = false
		h.tap.Leave(slot)
		return
	}
	seat := h.seatOf(slot)
	if seat < 0 {
		return
	}
	h.Host.Leave(now, seat)
	if len(h.slotOf) > 0 {
		h.seat[slot], h.slotOf[seat] = -1, -1
	}
}

// Update runs the model, then brings the tap to its tick.
func (h *watched) Update(now time.Time, send func(int, []byte)) error {
	h.out = send
	defer func() { h.out = nil }()
	if err := h.Host.Update(now, h.send); err != nil {
		return err
	}
	return h.tap.Update(h.world.worldTick(), h.world.captureWorld, send)
}

func (h *watched) spectators() int {
	n := 0
	for _, w := range h.watching {
		if w {
			n++
		}
	}
	return n
}

func (h *watched) Figures(now time.Time, dst []viewer.Figure) []viewer.Figure {
	return append(h.Host.Figures(now, dst), viewer.Figure{Name: "spectators", Value: float64(h.spectators())})
}

func (h *watched) Summary(now time.Time, dst []Line) []Line {
	c := h.tap.Server().Counters()
	return append(h.Host.Summary(now, dst), Line{"spectators", fmt.Sprintf("%d watching, %d in the match; %d snapshots, %d packets, %.1f bytes mean", h.spectators(), h.watchers, c.Snapshots, c.Packets, float64(c.Bytes)/max(1, float64(c.Packets)))})
}

// RefusalCounts forwards the model's (Refuser).
func (h *watched) RefusalCounts() []Count {
	if r, ok := h.Host.(Refuser); ok {
		return r.RefusalCounts()
	}
	return nil
}

// Released forwards the model's (udpdrive.Releaser) for its players.
func (h *watched) Released(slot int) (code, reason string, done bool) {
	if r, ok := h.Host.(udpdrive.Releaser); ok && !h.isWatching(slot) && h.seatOf(slot) >= 0 {
		return r.Released(h.seatOf(slot))
	}
	return "", "", false
}

// Agreement forwards the model's (Agreer).
func (h *watched) Agreement(now time.Time) string {
	if a, ok := h.Host.(Agreer); ok {
		return a.Agreement(now)
	}
	return ""
}

// Close ends the recording and what the model keeps open.
func (h *watched) Close() error {
	var err error
	if h.close != nil {
		err, h.close = h.close(), nil
	}
	if c, ok := h.Host.(io.Closer); ok {
		err = errors.Join(err, c.Close())
	}
	return err
}

// spectator is a player that watches: an interp client of the host's
// tap (or of interp's server), drawn as the model draws its world.
type spectator struct {
	*interpPlayer
	draw func(view []snapshot.Cube, dst []viewer.Cube) []viewer.Cube
}

func newSpectator(s PlayerSetup, cfg interp.Config, objects int, draw func([]snapshot.Cube, []viewer.Cube) []viewer.Cube) (Player, error) {
	c, err := interp.NewClient(cfg, objects, s.Now)
	if err != nil {
		return nil, err
	}
	if k, ok := s.Controls.(*Keys); ok {
		k.Viewer.SetControls(WatchControls) // the page's keys do nothing
	}
	// No server in this process to measure against.
	p := &interpPlayer{Client: c, slot: s.Slot, ticks: s.Ticks, first: -1, err: newViewError(&serverTruth{}, s.Now)}
	return &spectator{interpPlayer: p, draw: draw}, nil
}

func (p *spectator) Views(dst []viewer.View) []viewer.View {
	view, _, ok := p.View()
	if !ok {
		return dst
	}
	p.cubes = p.draw(view, p.cubes[:0])
	return append(dst, viewer.View{Name: "spectator", Cubes: p.cubes})
}

// The arena's world for spectators: its bodies, players first.

func (h *predictHost) worldTick() int64 { return int64(h.Tick()) }

func (h *predictHost) captureWorld(dst []wire.CubeState) {
	for i := range dst {
		dst[i] = h.arena.Body(i)
	}
}

// arenaParkedAbove: scene.Arena parks an absent player's capsule in a row
// 50 m up, which a spectator does not draw.
const arenaParkedAbove = 45

// arenaDrawer draws the arena's bodies from snapshots.
func arenaDrawer(cfg scene.ArenaConfig) func([]snapshot.Cube, []viewer.Cube) []viewer.Cube {
	var bodies []wire.CubeState
	var present []bool
	return func(view []snapshot.Cube, dst []viewer.Cube) []viewer.Cube {
		bodies, present = bodies[:0], present[:0]
		for i, c := range view {
			bodies = append(bodies, wire.CubeState{Position: c.Position, Orientation: c.Orientation, AtRest: !c.Interacting})
			if i < cfg.Players {
				present = append(present, c.Position.Y < arenaParkedAbove)
			}
		}
		return arenaView("", cfg, bodies, present, -1, dst).Cubes
	}
}

// The VR table's world for spectators: the cubes, then three parts (two
// hands, the head) of each of the table's players; an absent player's
// parts lie below the floor, where a spectator does not draw them.

var vrAbsent = vecmath.V3(0, -15, 0)

// vrObjects is the number of objects of a VR world for spectators.
func vrObjects(w *scene.VR) int { return len(w.Cubes) + 3*scene.VRPlayers }

func (h *statesyncHost) worldTick() int64 { return int64(h.Tick()) }

func (h *statesyncHost) captureWorld(dst []wire.CubeState) {
	w := h.world
	for i := range w.Cubes {
		s := w.Object(i)
		dst[i] = wire.CubeState{Position: s.Position, Orientation: s.Rotation, LinearVelocity: s.LinearVelocity, AtRest: s.AtRest}
	}
	for p := range scene.VRPlayers {
		a := w.Avatar(statesync.Player(p))
		for part, t := range []vecmath.Transform{a.Hands[0], a.Hands[1], a.Head} {
			s := wire.CubeState{Position: vrAbsent, Orientation: vecmath.QuatIdentity, AtRest: true}
			if w.Present(p) {
				s.Position, s.AtRest = t.Pos, false
			}
			dst[len(w.Cubes)+3*p+part] = s
		}
	}
}

// vrDrawer draws the VR table from snapshots: cubes white (the spectator
// does not know who has authority), avatars in their players' colours.
func vrDrawer(cfg scene.VRConfig, cubes int) func([]snapshot.Cube, []viewer.Cube) []viewer.Cube {
	return func(view []snapshot.Cube, dst []viewer.Cube) []viewer.Cube {
		half := float32(cfg.CubeSize / 2)
		for i, c := range view {
			vc := viewer.Cube{
				ID:          uint32(i),
				Position:    vec32(c.Position),
				Rotation:    [4]float32{float32(c.Orientation.X), float32(c.Orientation.Y), float32(c.Orientation.Z), float32(c.Orientation.W)},
				HalfExtents: [3]float32{half, half, half},
			}
			if i >= cubes {
				if c.Position.Y < vrAbsent.Y+5 {
					continue
				}
				p, part := (i-cubes)/3, (i-cubes)%3
				r := float32(cfg.HandRadius)
				if part == 2 {
					r = float32(cfg.HeadRadius)
				}
				vc.Rotation, vc.HalfExtents, vc.Player = [4]float32{0, 0, 0, 1}, [3]float32{r, r, r}, true
				vc.Owner = uint8(statesync.OwnerOf(statesync.Player(p)))
			}
			dst = append(dst, vc)
		}
		return dst
	}
}

// Watch implements udpdrive.Spectated: interp's clients all watch.
func (h *interpHost) Watch(now time.Time, slot int) error { return h.Server.Join(now, slot) }

// ReplayDrawer returns what draws the snapshots of a replay h heads: one
// that serve --record wrote of predict, statesync or interp.
func ReplayDrawer(h snapreplay.Header) (func(view []snapshot.Cube, dst []viewer.Cube) []viewer.Cube, error) {
	bad := func(why string) error {
		return fmt.Errorf("match: a replay of %s %s %q with %d objects: %s", h.Model, h.Game, h.Variant, h.Objects, why)
	}
	switch h.Model {
	case "predict":
		var players int
		if _, err := fmt.Sscanf(h.Variant, "%d players", &players); err != nil || players < 1 || players > scene.MaxArenaPlayers {
			return nil, bad("want a variant of 1 to 16 players")
		}
		cfg := scene.DefaultArenaConfig(h.TickRate)
		cfg.Players = players
		if h.Objects != players+cfg.Cubes {
			return nil, bad(fmt.Sprintf("the arena of %d players has %d bodies", players, players+cfg.Cubes))
		}
		return arenaDrawer(cfg), nil
	case "statesync":
		cfg := scene.DefaultVRConfig()
		w, err := scene.NewVR(cfg, 0, nil)
		if err != nil {
			return nil, err
		}
		if h.Objects != vrObjects(w) {
			return nil, bad(fmt.Sprintf("the VR table has %d objects", vrObjects(w)))
		}
		return vrDrawer(cfg, len(w.Cubes)), nil
	case "interp":
		layout, err := scene.ParseLayout(h.Variant)
		if err != nil {
			return nil, bad(err.Error())
		}
		g, err := scene.NewInterpGame(layout, scene.DefaultConfig(), nil)
		if err != nil {
			return nil, err
		}
		if h.Objects != g.Objects() {
			return nil, bad(fmt.Sprintf("the %s world has %d objects", layout, g.Objects()))
		}
		cfg := scene.DefaultConfig()
		return func(view []snapshot.Cube, dst []viewer.Cube) []viewer.Cube { return interpCubes(view, cfg, dst) }, nil
	}
	return nil, bad("this program draws predict, statesync and interp replays")
}
