package interpreport

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire"
	"github.com/netphys/netphys/wire/snapshot"
)

// Condition is one network condition of the table, each way.
type Condition struct {
	Name string
	netsim.Conditions
}

// Mode is one way a client draws.
type Mode struct {
	Name          string
	Interpolation interp.Interpolation
	Extrapolate   bool
	Buffering     interp.Buffering
	SentVelocity  bool
}

// Config sets up a report run.
type Config struct {
	Seconds    float64 // of the scripted minute, from its start
	Warmup     float64 // seconds before the figures count: the delay estimate settles
	Seed       uint64
	Rates      []int // snapshots per second
	Modes      []Mode
	Conditions []Condition
	// Anchors are extra clients at AnchorRate under every condition: the
	// article's and Mirror's buffering.
	Anchors    []Mode
	AnchorRate int
	// VelocityRates are the rates at which a server whose codec sends
	// velocities (Velocity) feeds Hermite clients that use them, under
	// VelocityCondition (an index into Conditions): what sent velocities
	// cost and buy against the derived ones.
	VelocityRates     []int
	VelocityCondition int
	// Profiles are networks that change over time and drifting client
	// clocks, each with one client per ProfileModes at AnchorRate.
	Profiles     []Profile
	ProfileModes []Mode
	Velocity     wire.Bounds
	// The cost rows: CostClients clients that only acknowledge, at
	// CostRate under VelocityCondition, from CostFrom seconds into the
	// script (the katamari), measured for CostSeconds after a second of
	// warm-up, for the default codec and for stage 9 with the cube
	// world's simulation. CostClients 0: no cost rows.
	CostClients, CostRate int
	CostFrom, CostSeconds float64
	// Model is the model's configuration; PPS, Interpolation,
	// Extrapolate and Buffering are set per row.
	Model interp.Config
}

// DefaultConfig is the table: {10, 30, 60} pps × {linear,
// Hermite, Hermite + extrapolation} × {50 ms RTT / 0 %, 100 ms / 5 % with
// 10 ms jitter, 250 ms / 25 %}, over the first 20 s of the scripted
// minute (walk, katamari, blast), and the two anchors' buffering at
// 30 pps, 100 ms / 5 %.
func DefaultConfig() Config {
	return Config{
		Seconds: 20, Warmup: 3, Seed: 1,
		Rates: []int{10, 30, 60},
		Modes: []Mode{
			{Name: "linear", Interpolation: interp.Linear},
			{Name: "hermite", Interpolation: interp.Hermite},
			{Name: "hermite+extrap", Interpolation: interp.Hermite, Extrapolate: true},
		},
		Conditions: []Condition{
			{"50ms/0%", netsim.Conditions{Latency: 25 * time.Millisecond}},
			{"100ms/5%/10ms", netsim.Conditions{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}},
			{"250ms/25%", netsim.Conditions{Latency: 125 * time.Millisecond, Loss: 0.25}},
		},
		Anchors: []Mode{
			{Name: "hermite, article's fixed delay", Interpolation: interp.Hermite, Buffering: interp.Fixed},
			{Name: "hermite, Mirror's buffer", Interpolation: interp.Hermite, Buffering: interp.Mirror},
		},
		AnchorRate: 30,
		Profiles:   DefaultProfiles(),
		ProfileModes: []Mode{
			{Name: "hermite", Interpolation: interp.Hermite},
			{Name: "hermite, article's fixed delay", Interpolation: interp.Hermite, Buffering: interp.Fixed},
			{Name: "hermite, Mirror's buffer", Interpolation: interp.Hermite, Buffering: interp.Mirror},
		},
		VelocityRates: []int{10, 30}, VelocityCondition: 1,
		CostClients: 64, CostRate: 30, CostFrom: 5, CostSeconds: 3,
		Velocity: snapshot.VelocityBounds(32, 1.0/32),
		Model:    interp.DefaultConfig(),
	}
}

// Row is one line of the table.
type Row struct {
	PPS       int
	Mode      string
	Condition string
	// DelayMean and DelayP95: the render delay the model adds, the time
	// shown behind the server's minus the network's one-way latency.
	DelayMean, DelayP95, DelayMax time.Duration
	DryPercent                    float64 // rendered frames with no snapshot after the render time
	// SlowPercent: frames over which the time shown advanced at less than
	// 90 % of real time (the render clock slowing down to stay ahead of
	// the data it has).
	SlowPercent float64
	// Visual error of the moving cubes against the server's real state
	// at the time shown, m.
	ErrMean, ErrP95, ErrMax float64
	// Penetration: how much nearer the player's centre than in the
	// server's real state at the time shown a cube touching the player
	// is drawn, m: the deepest per frame, its mean over the frames with a
	// cube at the player, and the deepest of all.
	PenMean, PenMax float64
	DownKbps        float64 // per client, UDP/IPv4 and netcode overhead included
	UpKbps          float64
	EncodeMicros    float64 // server CPU (thread time) in Update per client per snapshot
}

// Result is the table and the server's own penetration for reference.
type Result struct {
	Rows              []Row
	Anchors           []Row
	Velocity          []Row // Hermite with sent velocities
	Profiles          []Row // Condition is the profile's name
	Cost              []CostRow
	EncodingsPerPkt   float64 // bodies coded per packet sent: what sharing saves
	Seconds, Warmup   float64
	AnchorsRate       int
	VelocityCondition string
}

// client is one measured client.
type client struct {
	mode  Mode
	c     *interp.Client
	slot  int
	lat   time.Duration
	stats *stats
	dry   uint64
	// The previous frame's time shown and elapsed time, for SlowPercent.
	lastShown, lastAt time.Duration
}

// match is one server at one rate under one condition.
type match struct {
	pps  int
	cond Condition
	prof *Profile // nil: cond throughout
	m    *simmatch.Match
	srv  *timedServer
	cl   []*client
}

// timedServer measures the CPU time of the server's Updates: the
// encoding (the game's Step and Capture are copies here).
type timedServer struct {
	*interp.Server
	spent time.Duration
}

func (s *timedServer) Update(now time.Time, send func(int, []byte)) error {
	t := threadCPU()
	err := s.Server.Update(now, send)
	s.spent += threadCPU() - t
	return err
}

var _ netmodel.Server = (*timedServer)(nil)

// Run plays the script once and measures every row on it. progress, if
// set, is called every simulated second.
func Run(cfg Config, progress func(second, total int)) (*Result, error) {
	// The servers' CPU is read from this thread's clock.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	sc, err := scene.New(scene.Cubes900, scene.DefaultConfig())
	if err != nil {
		return nil, err
	}
	objects := len(sc.Cubes) + 1
	game := &sharedGame{cubes: make([]snapshot.Cube, objects)}
	hist := NewHistory(512, objects)
	sc.Capture(game.cubes)
	hist.Put(0, game.cubes)

	var matches []*match
	var anchors, sentVel []*client
	for _, pps := range cfg.VelocityRates {
		if cfg.VelocityCondition < 0 || cfg.VelocityCondition >= len(cfg.Conditions) {
			break
		}
		vc := cfg
		vc.Model.Codec.Config.Velocity = cfg.Velocity
		mt, err := newMatch(vc, pps, cfg.Conditions[cfg.VelocityCondition], game, objects)
		if err != nil {
			return nil, err
		}
		cl, err := mt.join(vc, Mode{Name: "hermite, sent velocity", Interpolation: interp.Hermite, SentVelocity: true}, objects)
		if err != nil {
			return nil, err
		}
		sentVel = append(sentVel, cl)
		matches = append(matches, mt)
	}
	for _, pps := range cfg.Rates {
		for _, cond := range cfg.Conditions {
			mt, err := newMatch(cfg, pps, cond, game, objects)
			if err != nil {
				return nil, err
			}
			modes := cfg.Modes
			if pps == cfg.AnchorRate {
				modes = append(append([]Mode(nil), modes...), cfg.Anchors...)
			}
			for i, mode := range modes {
				cl, err := mt.join(cfg, mode, objects)
				if err != nil {
					return nil, err
				}
				if i >= len(cfg.Modes) {
					anchors = append(anchors, cl)
				}
			}
			matches = append(matches, mt)
		}
	}

	var profiled []*client
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i]
		mt, err := newMatch(cfg, cfg.AnchorRate, Condition{p.Name, p.at(0)}, game, objects)
		if err != nil {
			return nil, err
		}
		mt.prof = p
		for _, mode := range cfg.ProfileModes {
			cl, err := mt.join(cfg, mode, objects)
			if err != nil {
				return nil, err
			}
			profiled = append(profiled, cl)
		}
		matches = append(matches, mt)
	}

	model := cfg.Model
	rate := float64(model.TickRate)
	costStart := int64(cfg.CostFrom * rate)
	costMeasure := costStart + int64(rate)
	costEnd := costMeasure + int64(cfg.CostSeconds*rate)
	var costs []*costMatch
	ticks := int64(cfg.Seconds * float64(model.TickRate))
	warm := int64(cfg.Warmup * float64(model.TickRate))
	for tick := int64(1); tick <= ticks; tick++ {
		in := scene.PlayMinute.At(int(tick - 1))
		sc.Step(in)
		game.input = uint32(in.Bits())
		sc.Capture(game.cubes)
		hist.Put(tick, game.cubes)
		if cfg.CostClients > 0 && tick == costStart {
			names, codecs, err := costCodecs(cfg)
			if err != nil {
				return nil, err
			}
			for i := range names {
				// Tick costStart is due one interval after this start.
				c, err := newCostMatch(cfg, names[i], codecs[i], game, simmatch.Epoch.Add(time.Duration(tick-1)*model.TickInterval))
				if err != nil {
					return nil, err
				}
				costs = append(costs, c)
			}
		}
		for _, c := range costs {
			if tick == costMeasure {
				c.startMeasuring()
			}
			if tick < costEnd {
				if err := c.m.Run(model.TickInterval); err != nil {
					return nil, fmt.Errorf("cost %s: %w", c.name, err)
				}
			}
		}
		for _, mt := range matches {
			if mt.prof != nil {
				// The frame this Run ends with sends under these.
				if err := mt.m.Sim().SetConditions(mt.prof.at(mt.m.Elapsed() + model.TickInterval)); err != nil {
					return nil, err
				}
			}
			if err := mt.m.Run(model.TickInterval); err != nil {
				return nil, fmt.Errorf("%d pps, %s: %w", mt.pps, mt.cond.Name, err)
			}
			if tick <= warm {
				for _, cl := range mt.cl {
					cl.dry = cl.c.Counters().Dry
				}
				continue
			}
			for _, cl := range mt.cl {
				cl.measure(mt.m, hist, model.TickRate)
			}
		}
		if progress != nil && tick%int64(model.TickRate) == 0 {
			progress(int(tick)/model.TickRate, int(ticks)/model.TickRate)
		}
	}

	res := &Result{Seconds: cfg.Seconds, Warmup: cfg.Warmup, AnchorsRate: cfg.AnchorRate}
	if cfg.VelocityCondition >= 0 && cfg.VelocityCondition < len(cfg.Conditions) {
		res.VelocityCondition = cfg.Conditions[cfg.VelocityCondition].Name
	}
	var enc, pkts uint64
	for _, mt := range matches {
		k := mt.srv.EncoderCounters()
		enc, pkts = enc+k.Encodings, pkts+k.Packets
		for _, cl := range mt.cl {
			row := cl.row(mt, cfg)
			switch {
			case slices.Contains(anchors, cl):
				res.Anchors = append(res.Anchors, row)
			case slices.Contains(sentVel, cl):
				res.Velocity = append(res.Velocity, row)
			case slices.Contains(profiled, cl):
				res.Profiles = append(res.Profiles, row)
			default:
				res.Rows = append(res.Rows, row)
			}
		}
	}
	res.EncodingsPerPkt = float64(enc) / math.Max(1, float64(pkts))
	for _, c := range costs {
		res.Cost = append(res.Cost, c.row(cfg))
	}
	return res, nil
}

func newMatch(cfg Config, pps int, cond Condition, game interp.Game, objects int) (*match, error) {
	mc := cfg.Model
	mc.PPS = pps
	srv, err := interp.NewServer(mc, game, simmatch.Epoch)
	if err != nil {
		return nil, err
	}
	ts := &timedServer{Server: srv}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: cfg.Seed, Conditions: cond.Conditions}, Frame: mc.TickInterval}, ts)
	if err != nil {
		return nil, err
	}
	return &match{pps: pps, cond: cond, m: m, srv: ts}, nil
}

func (mt *match) join(cfg Config, mode Mode, objects int) (*client, error) {
	mc := cfg.Model
	mc.PPS = mt.pps
	mc.Interpolation, mc.Extrapolate, mc.Buffering, mc.SentVelocity = mode.Interpolation, mode.Extrapolate, mode.Buffering, mode.SentVelocity
	if mode.Buffering != interp.Adaptive {
		mc.SlowBelow = 0 // the anchors' clocks do not slow down
	}
	c, err := interp.NewClient(mc, objects, simmatch.Epoch)
	if err != nil {
		return nil, err
	}
	var nc netmodel.Client = c
	if mt.prof != nil && mt.prof.Drift != 0 {
		nc = driftClient{c, 1 + mt.prof.Drift}
	}
	slot, err := mt.m.Join(nc)
	if err != nil {
		return nil, err
	}
	cl := &client{mode: mode, c: c, slot: slot, lat: mt.cond.Latency, stats: newStats()}
	mt.cl = append(mt.cl, cl)
	return cl, nil
}

// measure compares the client's frame with the real state at the time it
// shows.
func (cl *client) measure(m *simmatch.Match, hist *History, rate int) {
	view, r, ok := cl.c.View()
	k := cl.c.Counters()
	dry := k.Dry != cl.dry
	cl.dry = k.Dry
	if !ok {
		return
	}
	s := cl.stats
	s.frames++
	if dry {
		s.dryFrames++
	}
	shown := time.Duration(r / float64(rate) * float64(time.Second))
	s.delay(m.Elapsed() - shown - cl.lat)
	if cl.lastAt > 0 {
		s.steps++
		if shown-cl.lastShown < (m.Elapsed()-cl.lastAt)*9/10 {
			s.slow++
		}
	}
	cl.lastShown, cl.lastAt = shown, m.Elapsed()
	a, b, u, ok := hist.Between(r)
	if !ok {
		return
	}
	ViewErrors(view, a, b, u, s.errs.Add)
	player := a[0].Lerp(b[0], u)
	near := false
	deepest := 0.0
	for i := 1; i < len(view); i++ {
		// A cube in contact with the player: how much nearer its centre
		// than in the real state it is drawn. Linear interpolation cuts
		// the chord of a cube moving around the player.
		dist := a[i].Lerp(b[i], u).Sub(player).Length()
		if dist > contactDistance {
			continue
		}
		near = true
		drawn := view[i].Position.Sub(view[0].Position).Length()
		deepest = max(deepest, dist-drawn)
	}
	if near {
		s.pen(deepest)
	}
}

// contactDistance is the largest centre distance at which a cube (1 m)
// can touch the player (1.5 m): the half diagonals added.
var contactDistance = (0.5 + 0.75) * 1.7320508075688772

func (cl *client) row(mt *match, cfg Config) Row {
	s := cl.stats
	tr := mt.m.Traffic(cl.slot)
	secs := mt.m.Elapsed()
	snaps := mt.srv.Counters().Snapshots
	clients := uint64(len(mt.cl))
	return Row{
		PPS: mt.pps, Mode: cl.mode.Name, Condition: mt.cond.Name,
		DelayMean: s.delayMean(), DelayP95: s.delayQuantile(0.95), DelayMax: s.delayMax,
		DryPercent:  100 * float64(s.dryFrames) / math.Max(1, float64(s.frames)),
		SlowPercent: 100 * float64(s.slow) / math.Max(1, float64(s.steps)),
		ErrMean:     s.errs.Mean(), ErrP95: s.errs.Quantile(0.95), ErrMax: s.errs.Max(),
		PenMean: s.penMean(), PenMax: s.penMax,
		DownKbps: tr.DownKbps(secs), UpKbps: tr.UpKbps(secs),
		EncodeMicros: float64(mt.srv.spent.Microseconds()) / math.Max(1, float64(snaps*clients)),
	}
}
