package cubegames

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/interp"
	snapreplay "github.com/netphys/netphys/netmodel/interp/replay"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
	"github.com/netphys/netphys/wire/snapshot"
)

// Interp registers snapshot interpolation (package netmodel/interp) over
// the cube world: the server plays player 1's scripted minute on a loop
// (a bot: clients only watch, as in the article, where the simulation
// side is driven locally), and every --players client draws the world
// interpolated between the snapshots it receives.
func init() {
	match.Register(&match.Model{
		Name:       "interp",
		Summary:    "snapshot interpolation: the server simulates, clients draw interpolated snapshots (64 viewers at most)",
		Flags:      interpFlags,
		MaxPlayers: match.MaxPlayers,
		Keys:       CubeKeys,
		Records:    true,
	})
}

func interpFlags(fs *flag.FlagSet) func() (match.Sides, error) {
	def := interp.DefaultConfig()
	pps := fs.Int("pps", def.PPS, "interp: snapshots per second, a divisor of the 60 Hz tick (10, 12, 15, 20, 30 or 60; 1 to 6 too)")
	hermite := fs.Bool("hermite", false, "interp: Hermite interpolation instead of linear")
	extrapolate := fs.Bool("extrapolate", false, "interp: extrapolate up to 200 ms past the newest snapshot")
	buffering := fs.String("buffering", "adaptive", "interp: render delay, adaptive, fixed (the article's) or mirror (these two without slowing down through stalls)")
	layoutFlag := layoutFlag(fs)
	return func() (match.Sides, error) {
		layout, err := layoutFlag.Models()
		if err != nil {
			return match.Sides{}, err
		}
		cfg := def
		cfg.PPS, cfg.Extrapolate = *pps, *extrapolate
		if *hermite {
			cfg.Interpolation = interp.Hermite
		}
		switch *buffering {
		case "adaptive":
		case "fixed":
			cfg.Buffering, cfg.SlowBelow = interp.Fixed, 0 // the anchors as they are: no slowing down
		case "mirror":
			cfg.Buffering, cfg.SlowBelow = interp.Mirror, 0
		default:
			return match.Sides{}, fmt.Errorf("--buffering %q: want adaptive, fixed or mirror", *buffering)
		}
		if cfg.PPS < 1 || cfg.TickRate%cfg.PPS != 0 {
			return match.Sides{}, fmt.Errorf("--pps %d: want a divisor of %d (10, 20, 30, 60)", cfg.PPS, cfg.TickRate)
		}
		// The demo's viewers measure their error against its server.
		truth := &serverTruth{}
		return match.Sides{
			NewHost: func(s match.Setup) (match.Host, error) {
				layout, err := matchLayout(layout, s.World)
				if err != nil {
					return nil, err
				}
				game, err := scene.NewInterpGame(layout, scene.DefaultConfig(), scene.PlayerScript(0))
				if err != nil {
					return nil, err
				}
				truth.host(game.Objects(), cfg.TickRate)
				rec := &recordedGame{InterpGame: game, truth: truth, state: make([]snapshot.Cube, game.Objects())}
				recorded, closeRec, err := recordInterp(s, snapreplay.NewHeader(cfg, game.Objects(), "interp", scene.ReplayGame, layout.String(), "server"), rec)
				if err != nil {
					return nil, err
				}
				srv, err := interp.NewServer(cfg, recorded, s.Now)
				if err != nil {
					return nil, errors.Join(err, closeRec(false))
				}
				return &interpHost{Server: srv, game: game, close: closeRec}, nil
			},
			NewPlayer: func(s match.PlayerSetup) (match.Player, error) {
				// The client needs only the object count of the layout.
				game, err := scene.NewInterpGame(layout, scene.DefaultConfig(), nil)
				if err != nil {
					return nil, err
				}
				c, err := interp.NewClient(cfg, game.Objects(), s.Now)
				if err != nil {
					return nil, err
				}
				return &interpPlayer{Client: c, slot: s.Slot, ticks: s.Ticks, first: -1, cfg: scene.DefaultConfig(), err: newViewError(truth, s.Now)}, nil
			},
			// The client's buffer expects the server's rate; how it
			// draws (Hermite, extrapolation, buffering) is its own.
			Config: fmt.Sprintf("%d snapshots per second", cfg.PPS),
			World:  layout.String(),
		}, nil
	}
}

// interpHost is the server: it shows the world it simulates.
type interpHost struct {
	*interp.Server
	refusalScrape
	refused []interp.Refusal // the server's counters, read every Update
	game    *scene.InterpGame
	cubes   []viewer.Cube
	close   func(keep bool) error // the match's recording (serve --record); nil: none
}

// Update runs the server and keeps its refusals for the metrics.
func (h *interpHost) Update(now time.Time, send func(slot int, datagram []byte)) error {
	err := h.Server.Update(now, send)
	h.refused = h.Refusals(h.refused[:0])
	keep(&h.refusalScrape, h.refused)
	return err
}

func (h *interpHost) Views(dst []viewer.View) []viewer.View {
	v := SceneView("server", h.game.Scene, 0, h.cubes)
	h.cubes = v.Cubes
	return append(dst, v)
}

func (h *interpHost) Figures(_ time.Time, dst []viewer.Figure) []viewer.Figure {
	c, e := h.Counters(), h.EncoderCounters()
	return append(dst,
		viewer.Figure{Name: "server tick", Value: float64(h.Tick())},
		viewer.Figure{Name: "snapshots", Value: float64(c.Snapshots)},
		viewer.Figure{Name: "encodings/packet", Value: float64(e.Encodings) / max(1, float64(e.Packets))},
	)
}

func (h *interpHost) Summary(_ time.Time, dst []match.Line) []match.Line {
	c, e := h.Counters(), h.EncoderCounters()
	return append(dst,
		match.Line{Name: "ticks", Value: fmt.Sprint(c.Ticks)},
		match.Line{Name: "snapshots", Value: fmt.Sprintf("%d, %d packets, %.1f bytes mean payload", c.Snapshots, c.Packets, float64(c.Bytes)/max(1, float64(c.Packets)))},
		match.Line{Name: "encodings", Value: fmt.Sprintf("%d for %d packets (clients with the same baselines share one)", e.Encodings, e.Packets)},
		match.Line{Name: "dropped", Value: fmt.Sprintf("%d client datagrams, %d updates behind, %d states clamped", c.Dropped, c.Behind, c.Clamped)},
	)
}

// interpPlayer is a viewer: it draws the interpolated world.
type interpPlayer struct {
	*interp.Client
	slot, ticks int
	first       float64 // the first tick shown; -1 before
	cfg         scene.Config
	cubes       []viewer.Cube
	err         *viewError
}

// Update draws the frame and measures it.
func (p *interpPlayer) Update(now time.Time, send func([]byte)) error {
	if err := p.Client.Update(now, send); err != nil {
		return err
	}
	view, tick, ok := p.View()
	p.err.measure(now, view, tick, ok)
	return nil
}

func (p *interpPlayer) Views(dst []viewer.View) []viewer.View {
	view, _, ok := p.View()
	if !ok {
		return dst
	}
	p.cubes = interpCubes(view, p.cfg, p.cubes[:0])
	return append(dst, viewer.View{Name: fmt.Sprintf("client %d interpolated", p.slot+1), Cubes: p.cubes})
}

// interpCubes converts a drawn snapshot (object 0 the player) to the
// viewer's cubes, with the ids SceneView gives the same bodies.
func interpCubes(view []snapshot.Cube, cfg scene.Config, dst []viewer.Cube) []viewer.Cube {
	for i, c := range view {
		id, half, player := uint32(scene.MaxPlayers+i-1), float32(cfg.CubeSize/2), false
		if i == 0 {
			id, half, player = 0, float32(cfg.PlayerSize/2), true
		}
		dst = append(dst, viewer.Cube{
			ID:          id,
			Position:    [3]float32{float32(c.Position.X), float32(c.Position.Y), float32(c.Position.Z)},
			Rotation:    [4]float32{float32(c.Rotation.X), float32(c.Rotation.Y), float32(c.Rotation.Z), float32(c.Rotation.W)},
			HalfExtents: [3]float32{half, half, half},
			Interacting: c.Interacting, Player: player,
		})
	}
	return dst
}

func (p *interpPlayer) Figures(_ time.Time, dst []viewer.Figure) []viewer.Figure {
	k := p.Counters()
	_, tick, _ := p.View()
	dst = append(dst,
		viewer.Figure{Name: "tick shown", Value: tick},
		viewer.Figure{Name: "render delay", Value: ms(p.RenderDelay()), Unit: "ms"},
		viewer.Figure{Name: "dry frames", Value: 100 * float64(k.Dry) / max(1, float64(k.Frames)), Unit: "%"},
		viewer.Figure{Name: "snapshot loss", Value: 100 * p.Loss(), Unit: "%"},
		viewer.Figure{Name: "rtt", Value: ms(p.Endpoint().Stats().RTT), Unit: "ms"},
	)
	return p.err.figures(dst)
}

func (p *interpPlayer) Summary(_ time.Time, dst []match.Line) []match.Line {
	k := p.Counters()
	_, tick, _ := p.View()
	dst = append(dst,
		match.Line{Name: "tick shown", Value: fmt.Sprintf("%.1f", tick)},
		match.Line{Name: "snapshots", Value: fmt.Sprintf("%d drawn, %d late (baselines only)", k.Snapshots, k.Late)},
		match.Line{Name: "frames", Value: fmt.Sprintf("%d, %d dry (%.2f %%), %d extrapolated", k.Frames, k.Dry, 100*float64(k.Dry)/max(1, float64(k.Frames)), k.Extrapolated)},
		match.Line{Name: "render delay", Value: p.RenderDelay().Round(time.Millisecond).String()},
		match.Line{Name: "dropped", Value: fmt.Sprintf("%d datagrams: %d without their baseline, %d far ahead, %d stale", k.Dropped, k.NoBaseline, k.FarAhead, k.Stale)},
	)
	return p.err.summary(dst)
}

// Done: the view has shown Ticks ticks since its first snapshot (the
// server's ticks count from its own start, not the player's).
func (p *interpPlayer) Done() bool {
	_, tick, ok := p.View()
	if !ok {
		return false
	}
	if p.first < 0 {
		p.first = tick
	}
	return p.ticks > 0 && tick-p.first >= float64(p.ticks)
}
