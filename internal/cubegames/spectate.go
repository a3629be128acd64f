package cubegames

import (
	"fmt"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/interp"
	snapreplay "github.com/netphys/netphys/netmodel/interp/replay"
	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/viewer"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// Spectators of the cube games whose server simulates, through the
// runtime's match.WithSpectators: what each host shows them (World), how a
// spectator draws it, and what draws their replays.

// spectator is a player that watches: an interp client of the host's
// tap (or of interp's server), drawn as the model draws its world.
type spectator struct {
	*interpPlayer
	draw func(view []snapshot.Cube, dst []viewer.Cube) []viewer.Cube
}

func newSpectator(s match.PlayerSetup, cfg interp.Config, objects int, draw func([]snapshot.Cube, []viewer.Cube) []viewer.Cube) (match.Player, error) {
	c, err := interp.NewClient(cfg, objects, s.Now)
	if err != nil {
		return nil, err
	}
	if s.Keys != nil && s.Keys.Viewer != nil {
		s.Keys.Viewer.SetControls(match.WatchControls) // the page's keys do nothing
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

func (h *predictHost) WorldTick() int64 { return int64(h.Tick()) }

func (h *predictHost) CaptureWorld(dst []wire.BodyState) {
	for i := range dst {
		dst[i] = h.arena.Body(i)
	}
}

// arenaParkedAbove: scene.Arena parks an absent player's capsule in a row
// 50 m up, which a spectator does not draw.
const arenaParkedAbove = 45

// arenaDrawer draws the arena's bodies from snapshots.
func arenaDrawer(cfg scene.ArenaConfig) func([]snapshot.Cube, []viewer.Cube) []viewer.Cube {
	var bodies []wire.BodyState
	var present []bool
	return func(view []snapshot.Cube, dst []viewer.Cube) []viewer.Cube {
		bodies, present = bodies[:0], present[:0]
		for i, c := range view {
			bodies = append(bodies, wire.BodyState{Position: c.Position, Rotation: c.Rotation, AtRest: !c.Interacting})
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

func (h *statesyncHost) WorldTick() int64 { return int64(h.Tick()) }

func (h *statesyncHost) CaptureWorld(dst []wire.BodyState) {
	w := h.world
	for i := range w.Cubes {
		s := w.Object(i)
		dst[i] = wire.BodyState{Position: s.Position, Rotation: s.Rotation, LinearVelocity: s.LinearVelocity, AtRest: s.AtRest}
	}
	for p := range scene.VRPlayers {
		a := w.Avatar(statesync.Player(p))
		for part, t := range []vecmath.Transform{a.Parts[scene.VRLeftHand].Pose, a.Parts[scene.VRRightHand].Pose, a.Parts[scene.VRHead].Pose} {
			s := wire.BodyState{Position: vrAbsent, Rotation: vecmath.QuatIdentity, AtRest: true}
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
				Rotation:    [4]float32{float32(c.Rotation.X), float32(c.Rotation.Y), float32(c.Rotation.Z), float32(c.Rotation.W)},
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
		return fmt.Errorf("cubegames: a replay of %s %s %q with %d objects: %s", h.Model, h.Game, h.Variant, h.Objects, why)
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

// recordInterp wraps an interp host's game to record its snapshots when
// s.Record is set; close ends the recording (keep false: discards it).
func recordInterp(s match.Setup, h snapreplay.Header, game interp.Game) (_ interp.Game, close func(keep bool) error, _ error) {
	if s.Record == "" {
		return game, func(bool) error { return nil }, nil
	}
	rec, closeRec, err := match.RecordSnapshots(s, h)
	if err != nil {
		return nil, nil, err
	}
	return rec.Wrap(game), closeRec, nil
}

// Close ends the match's recording, if it records one: kept if a client
// was sent snapshots (a host nobody watched keeps none).
func (h *interpHost) Close() error {
	if h.close == nil {
		return nil
	}
	err := h.close(h.Counters().Packets > 0)
	h.close = nil
	return err
}
