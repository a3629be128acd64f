package cubegames

import (
	"flag"
	"fmt"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/viewer"
	"github.com/netphys/netphys/wire"
)

// Predict registers client prediction with server reconciliation and lag
// compensation (package netmodel/predict) over the shooter arena
// (scene.Arena).
func init() {
	match.Register(&match.Model{
		Name:       "predict",
		Summary:    "client prediction, server reconciliation and lag-compensated shots in the arena (16 players at most)",
		Flags:      predictFlags,
		MaxPlayers: scene.MaxArenaPlayers,
		Keys:       "arrows move, space jumps, z fires at the nearest player shown",
		Records:    true, // the snapshots spectators get (spectate.go)
	})
}

func predictFlags(fs *flag.FlagSet) func() (match.Sides, error) {
	rate := fs.Int("predict-rate", 60, "predict: tick rate, 30 or 60 Hz")
	maxRewind := fs.Duration("predict-max-rewind", predict.DefaultConfig().MaxRewind, "predict: cap of lag compensation (how far back a shot may be judged)")
	return func() (match.Sides, error) {
		if *rate != 30 && *rate != 60 {
			return match.Sides{}, fmt.Errorf("--predict-rate %d: want 30 or 60", *rate)
		}
		cfg := predict.DefaultConfig()
		cfg.TickRate, cfg.MaxRewind = *rate, *maxRewind
		arena := func(players int) (*scene.Arena, error) {
			if players > scene.MaxArenaPlayers {
				return nil, fmt.Errorf("predict: %d players, the arena holds %d", players, scene.MaxArenaPlayers)
			}
			acfg := scene.DefaultArenaConfig(cfg.TickRate)
			acfg.Players = players
			return scene.NewArena(acfg)
		}
		return match.Sides{
			NewHost: func(s match.Setup) (match.Host, error) {
				if err := oneWorld(s.World, "the arena"); err != nil {
					return nil, err
				}
				a, err := arena(s.Players)
				if err != nil {
					return nil, err
				}
				srv, err := predict.NewServer[scene.ArenaInput](cfg, a, s.Now)
				if err != nil {
					return nil, err
				}
				h := &predictHost{Server: srv, arena: a}
				return match.WithSpectators(h, h, s, match.WatchedWorld{Model: "predict", Game: "arena", Variant: fmt.Sprintf("%d players", s.Players), TickRate: cfg.TickRate, Objects: a.Bodies(), Spec: a.Spec()})
			},
			NewPlayer: func(s match.PlayerSetup) (match.Player, error) {
				a, err := arena(s.Players)
				if err != nil {
					return nil, err
				}
				if s.Spectate {
					return newSpectator(s, match.SpectatorConfig(cfg.TickRate, a.Spec()), a.Bodies(), arenaDrawer(a.Config()))
				}
				return newPredictPlayer(cfg, a, s)
			},
			// Server and players step the same ticks; the rewind cap is
			// the server's alone.
			Config: fmt.Sprintf("%d Hz", cfg.TickRate),
			World:  "the arena",
		}, nil
	}
}

// predictHost is the authority: it shows the world as the server has it.
type predictHost struct {
	*predict.Server[scene.ArenaInput, *scene.ArenaInput]
	refusalScrape
	refused []predict.Refusal // the server's counters, read every Update
	arena   *scene.Arena
	hits    []predict.Hit
	kills   uint64 // committed hits
	cubes   []viewer.Cube
	bodies  []wire.BodyState
	present []bool
	rate    rate
}

// Update runs the server and takes the hits it committed.
func (h *predictHost) Update(now time.Time, send func(int, []byte)) error {
	err := h.Server.Update(now, send)
	h.hits = h.TakeCommitted(h.hits[:0])
	h.kills += uint64(len(h.hits))
	h.refused = h.Refusals(h.refused[:0])
	keep(&h.refusalScrape, h.refused)
	return err
}

func (h *predictHost) Views(dst []viewer.View) []viewer.View {
	h.bodies, h.present = h.bodies[:0], h.present[:0]
	for i := 0; i < h.arena.Bodies(); i++ {
		h.bodies = append(h.bodies, h.arena.Body(i))
	}
	for p := 0; p < h.arena.Players(); p++ {
		h.present = append(h.present, h.arena.IsPresent(p))
	}
	v := arenaView("server", h.arena.Config(), h.bodies, h.present, -1, h.cubes)
	h.cubes = v.Cubes
	return append(dst, v)
}

func (h *predictHost) Figures(now time.Time, dst []viewer.Figure) []viewer.Figure {
	c := h.Counters()
	return append(dst,
		viewer.Figure{Name: "server tick", Value: float64(h.Tick())},
		viewer.Figure{Name: "rewinds", Value: h.rate.per(now, c.Rewinds), Unit: "/s"},
		viewer.Figure{Name: "late inputs", Value: float64(c.InputsLate)},
		viewer.Figure{Name: "hits committed", Value: float64(h.kills)},
	)
}

func (h *predictHost) Summary(_ time.Time, dst []match.Line) []match.Line {
	c := h.Counters()
	return append(dst,
		match.Line{Name: "ticks", Value: fmt.Sprint(c.Ticks)},
		match.Line{Name: "rewinds", Value: fmt.Sprintf("%d, %d ticks re-simulated, %d refused over budget", c.Rewinds, c.ResimTicks, c.RewindsDenied)},
		match.Line{Name: "inputs", Value: fmt.Sprintf("%d late, %d guessed (%d standing still after the grace); refused: %d too late to rewind for, %d too far ahead", c.InputsLate, c.InputsGuessed, c.InputsIdle, c.InputsTooOld, c.InputsTooNew)},
		match.Line{Name: "shots", Value: fmt.Sprintf("%d resolved, %d hits committed, %d claiming a view older than the lag-compensation cap (judged at the cap); refused: %d too late for the cap, %d by the game's rules", c.Shots, h.kills, c.BehindClamped, c.ShotsTooLate, c.ShotsRefused)},
		match.Line{Name: "bodies out of the arena's spec", Value: fmt.Sprint(c.OutOfSpec)},
		match.Line{Name: "rejoins", Value: fmt.Sprintf("%d players back to their characters, %d characters parked when nobody came back", c.Rejoins, c.Expired)},
		match.Line{Name: "refusals", Value: refusals(h.Refusals(nil))},
		match.Line{Name: "packets", Value: fmt.Sprintf("%d input packets, %d malformed, %d over the rate limit", c.Packets, c.BadPackets, c.FloodPackets)},
	)
}

// predictPlayer is one player: a predicting client with its own arena.
type predictPlayer struct {
	*predict.Client[scene.ArenaInput, *scene.ArenaInput]
	arena  *scene.Arena
	slot   int
	ticks  int
	bot    *scene.Bot
	keys   *match.Keys // nil: the bot plays
	cubes  []viewer.Cube
	bodies []wire.BodyState
	rate   rate
}

func newPredictPlayer(cfg predict.Config, a *scene.Arena, s match.PlayerSetup) (*predictPlayer, error) {
	// The arena's bot plays a bot, and a player whose keys autoplay.
	p := &predictPlayer{arena: a, slot: s.Slot, ticks: s.Ticks, bot: scene.NewBot(s.Slot, uint64(s.Slot)+1, a.Config())}
	if !s.Bot && s.Keys != nil {
		p.keys = s.Keys
		p.keys.Viewer.SetControls(predictControls)
	}
	c, err := predict.NewClient[scene.ArenaInput](cfg, a, p.control, s.Now)
	if err != nil {
		return nil, err
	}
	p.Client = c
	return p, nil
}

// predictControls are the arena's keys, for the page.
var predictControls = []viewer.Control{
	{Keys: []string{"left", "up", "down", "right"}, Does: "move"},
	{Keys: []string{"space"}, Does: "jump"},
	{Keys: []string{"z"}, Does: "fire at the nearest player shown"},
}

// control is the player's predict.Control[scene.ArenaInput]: the arena
// bot, or the keys: arrows move, space jumps, z fires at the nearest
// player shown (the viewer has no mouse to aim with).
func (p *predictPlayer) control(t predict.Tick, v *predict.View) scene.ArenaInput {
	if p.keys == nil {
		return p.bot.Input(t, v)
	}
	k := p.keys.At(int(t))
	if k.Auto {
		return p.bot.Input(t, v)
	}
	var mx, mz float64
	if k.Held.Has(viewer.KeyLeft) {
		mx--
	}
	if k.Held.Has(viewer.KeyRight) {
		mx++
	}
	if k.Held.Has(viewer.KeyUp) {
		mz--
	}
	if k.Held.Has(viewer.KeyDown) {
		mz++
	}
	yaw, pitch := 0.0, 0.0
	eye := v.Own.Position.Add(vecmath.V3(0, p.arena.Config().EyeHeight, 0))
	best := -1.0
	for i, on := range v.Present {
		d := v.Bodies[i].Position.Sub(eye)
		if on && i != v.You && (best < 0 || d.Length() < best) {
			best = d.Length()
			yaw, pitch = vecmath.Atan2(d.X, d.Z), vecmath.Atan2(d.Y, vecmath.V3(d.X, 0, d.Z).Length())
		}
	}
	in, err := scene.MakeArenaInput(mx, mz, yaw, pitch, k.Held.Has(viewer.KeySpace), k.Held.Has(viewer.KeyZ) && best >= 0)
	if err != nil {
		return scene.ArenaInput{}
	}
	return in
}

// Views shows the world as the player sees it: its own player predicted,
// the others interpolated.
func (p *predictPlayer) Views(dst []viewer.View) []viewer.View {
	if !p.Started() {
		return dst
	}
	p.bodies = p.Rendered(p.bodies)
	v := arenaView(fmt.Sprintf("player %d predicted", p.slot+1), p.arena.Config(), p.bodies, p.Shown().Present, p.You(), p.cubes)
	p.cubes = v.Cubes
	return append(dst, v)
}

func (p *predictPlayer) Figures(now time.Time, dst []viewer.Figure) []viewer.Figure {
	st := p.Stats()
	rtt := time.Duration(0)
	if ep := p.Endpoint(); ep != nil {
		rtt = ep.Stats().RTT
	}
	return append(dst,
		viewer.Figure{Name: "tick", Value: float64(p.Tick())},
		viewer.Figure{Name: "others shown", Value: float64(p.Delay()) * 1000 * p.arena.Config().Physics.TimeStep, Unit: "ms behind"},
		viewer.Figure{Name: "mispredicted", Value: percent(st.Mispredicted+st.MispredictedContact, st.Compared+st.ComparedContact), Unit: "%"},
		viewer.Figure{Name: "largest correction", Value: 100 * st.CorrectionMax, Unit: "cm"},
		viewer.Figure{Name: "reconciliations", Value: p.rate.per(now, st.Reconciles), Unit: "/s"},
		viewer.Figure{Name: "rtt", Value: ms(rtt), Unit: "ms"},
	)
}

func (p *predictPlayer) Summary(_ time.Time, dst []match.Line) []match.Line {
	st := p.Stats()
	return append(dst,
		match.Line{Name: "ticks", Value: fmt.Sprintf("%d predicted, %d held back waiting for the server, others shown %d ticks behind", st.Ticks, st.Stalls, p.Delay())},
		match.Line{Name: "mispredicted", Value: fmt.Sprintf("%d of %d ticks clear of contacts, %d of %d near them", st.Mispredicted, st.Compared, st.MispredictedContact, st.ComparedContact)},
		match.Line{Name: "corrections", Value: fmt.Sprintf("largest %.3f m", st.CorrectionMax)},
		match.Line{Name: "reconciliations", Value: fmt.Sprintf("%d, %d ticks re-simulated", st.Reconciles, st.ResimTicks)},
		match.Line{Name: "shots", Value: fmt.Sprintf("%d fired, %d seen to hit, %d hits confirmed by the server", st.Shots, st.HitsSeen, st.HitsConfirmed)},
	)
}

// Done: the player has predicted the ticks it was asked to play.
func (p *predictPlayer) Done() bool { return p.ticks > 0 && p.Stats().Ticks >= uint64(p.ticks) }

// arenaView draws the arena for the viewer: capsules as boxes of their
// size, player me last (the page's camera follows the last player), then
// the cubes; parked players are not drawn.
func arenaView(name string, cfg scene.ArenaConfig, bodies []wire.BodyState, present []bool, me int, dst []viewer.Cube) viewer.View {
	cubes := dst[:0]
	add := func(id int, s wire.BodyState, half vecmath.Vec3, player bool) {
		cubes = append(cubes, viewer.Cube{
			ID:          uint32(id),
			Position:    [3]float32{float32(s.Position.X), float32(s.Position.Y), float32(s.Position.Z)},
			Rotation:    [4]float32{float32(s.Rotation.X), float32(s.Rotation.Y), float32(s.Rotation.Z), float32(s.Rotation.W)},
			HalfExtents: [3]float32{float32(half.X), float32(half.Y), float32(half.Z)},
			Player:      player, AtRest: s.AtRest,
		})
	}
	r := cfg.PlayerRadius
	capsule := vecmath.V3(r, cfg.PlayerHalfHeight+r, r)
	for p := 0; p < cfg.Players; p++ {
		if p != me && present[p] {
			add(p, bodies[p], capsule, true)
		}
	}
	if me >= 0 && me < cfg.Players {
		add(me, bodies[me], capsule, true)
	}
	h := cfg.CubeSize / 2
	for i := cfg.Players; i < len(bodies); i++ {
		add(scene.MaxArenaPlayers+i, bodies[i], vecmath.V3(h, h, h), false)
	}
	return viewer.View{Name: name, Cubes: cubes}
}

// rate turns a running count into a rate per second over the last second.
type rate struct {
	at    time.Time
	from  uint64
	value float64
}

func (r *rate) per(now time.Time, count uint64) float64 {
	if r.at.IsZero() {
		r.at, r.from = now, count
	} else if d := now.Sub(r.at); d >= time.Second {
		r.value = float64(count-r.from) / d.Seconds()
		r.at, r.from = now, count
	}
	return r.value
}

func percent(n, d uint64) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}
