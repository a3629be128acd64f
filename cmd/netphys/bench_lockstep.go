package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
)

// bench lockstep: the deterministic-lockstep table. Four players play
// their scripted minutes (scene.PlayerBot: the cube world's input stream)
// in virtual time over netsim, under five network conditions, three ways:
// redundant inputs over datagrams, the same inputs over the TCP model,
// and rollback. The network figures do not depend on what the game
// simulates, so the table's sessions step inputChain, which only hashes
// the inputs (its checksums still prove every player applied the same
// ones): four copies of the 900-cube world for every row would take
// minutes. What rollback costs in the cube world is measured separately,
// on the real worlds, and the table's CPU column applies that measured
// cost to the row's re-simulations.

func init() {
	register(&command{
		name:    "bench lockstep",
		summary: "the lockstep table: 4 players over datagrams, the TCP model and rollback at 0 ms to 2 s RTT, and rollback's cost in the cube world",
		setup:   setupBenchLockstep,
	})
}

type lsCondition struct {
	name string
	rtt  time.Duration
	loss float64
}

var lsConditions = []lsCondition{
	{"0ms/0%", 0, 0},
	{"100ms/1%", 100 * time.Millisecond, 0.01},
	{"250ms/5%", 250 * time.Millisecond, 0.05},
	{"1s/10%", time.Second, 0.10},
	{"2s/25%", 2 * time.Second, 0.25},
}

type lsMode struct {
	flag, name string
	cfg        func() lockstep.Config
}

var lsModes = []lsMode{
	{"udp", "UDP redundant", lockstep.DefaultConfig},
	{"tcp", "TCP baseline", lockstep.DefaultStreamConfig},
	{"rollback", "rollback", lockstep.DefaultRollbackConfig},
}

type lsOptions struct {
	players             int
	warmup, measure     time.Duration
	seed                uint64
	conditions          []lsCondition
	modes               []lsMode
	cubeWarmup, vrSteps int
	skipCubes           bool
	skipLateJoin        bool
	// game is the sessions' world: nil for inputChain, else a cube
	// world of that layout in every client (a soak with the real worlds).
	game             *scene.Layout
	stdout, progress io.Writer
}

func setupBenchLockstep(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	players := fs.Int("players", 4, "players, 1 to 4")
	seconds := fs.Float64("seconds", 60, "seconds measured, after the warm-up (the scripted minute is 60 s; after it the bots idle)")
	warmup := fs.Duration("warmup", 10*time.Second, "virtual time before measuring, while the delay adapts (its stalls are counted apart)")
	seed := fs.Uint64("seed", 1, "seed of the network simulator")
	conds := fs.String("conditions", "all", "comma-separated conditions to run, from "+lsConditionNames())
	cubeWarmup := fs.Int("cube-warmup", 300, "ticks of scripted play before rollback's cost is measured in the cube worlds")
	vrSteps := fs.Int("vr-steps", 25, "re-simulated steps per frame to time in the cube worlds (the VR article's 25 at 90 Hz and 250 ms)")
	skipCubes := fs.Bool("no-cubes", false, "skip the cube-world cost measurement")
	skipLateJoin := fs.Bool("no-late-join", false, "skip the late-join rows")
	modes := fs.String("modes", "all", "comma-separated rows to run, from udp,tcp,rollback")
	game := fs.String("game", "inputs", "what every client steps: inputs (a hash of the inputs, free) or a cube-world layout (cubes900, tower20, pyramid10: each player steps its own world, slow)")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unexpected arguments %q", args)
		}
		o := lsOptions{players: *players, warmup: *warmup, measure: time.Duration(*seconds * float64(time.Second)),
			seed: *seed, cubeWarmup: *cubeWarmup, vrSteps: *vrSteps, skipCubes: *skipCubes, skipLateJoin: *skipLateJoin, stdout: os.Stdout, progress: os.Stderr}
		if o.players < 1 || o.players > lockstep.MaxPlayers || o.measure < time.Second || o.warmup < 0 || o.vrSteps < 1 || o.cubeWarmup < 0 {
			return fmt.Errorf("need 1–4 players, at least 1 s measured, a non-negative warm-up and at least one step")
		}
		for _, name := range strings.Split(*conds, ",") {
			for _, c := range lsConditions {
				if name == "all" || name == c.name {
					o.conditions = append(o.conditions, c)
				}
			}
		}
		if len(o.conditions) == 0 {
			return fmt.Errorf("--conditions %q: want all or some of %s", *conds, lsConditionNames())
		}
		for _, name := range strings.Split(*modes, ",") {
			for _, m := range lsModes {
				if name == "all" || name == m.flag {
					o.modes = append(o.modes, m)
				}
			}
		}
		if len(o.modes) == 0 {
			return fmt.Errorf("--modes %q: want all or some of udp,tcp,rollback", *modes)
		}
		if *game != "inputs" {
			l, err := scene.ParseLayout(*game)
			if err != nil {
				return fmt.Errorf("--game: %w", err)
			}
			o.game = &l
		}
		return benchLockstep(ctx, o)
	}
}

func lsConditionNames() string {
	var names []string
	for _, c := range lsConditions {
		names = append(names, c.name)
	}
	return strings.Join(names, ",")
}

// inputChain is the table's game: its state is a hash of every input so
// far, so it costs nothing to step and its checksums still show whether
// every player applied the same inputs.
type inputChain struct {
	h     uint64
	saved []uint64
}

func (g *inputChain) Step(in []scene.Input) {
	for _, x := range in {
		g.h = (g.h ^ uint64(x.Bits()+1)) * 1099511628211
	}
}
func (g *inputChain) Checksum() uint64 { return g.h }
func (g *inputChain) Save(slot int) {
	for len(g.saved) <= slot {
		g.saved = append(g.saved, 0)
	}
	g.saved[slot] = g.h
}
func (g *inputChain) Load(slot int) { g.h = g.saved[slot] }

// lsResult is one row of the table.
type lsResult struct {
	cond  lsCondition
	mode  string
	err   error // a desync or a timeout that stopped the session
	ran   float64
	delay struct{ mean, p95 time.Duration }
	// Stalled frames per minute, hitches (runs of stalled frames) per
	// minute and the longest stall in the measured window; warmStalls
	// during the warm-up.
	stallsPerMin, hitchesPerMin float64
	longest                     time.Duration
	warmStalls                  uint64
	// Client datagrams (the article's input packets), without IP, UDP
	// and netcode overhead; kbps with it.
	bytesMean        float64
	bytesMax         int
	upKbps, downKbps float64
	// Ticks re-simulated by one client in one frame, and the share of
	// frames with a rollback.
	resim         struct{ mean, p95, max float64 }
	rollbackShare float64
	// Game saves per client and frame: before every tick that rests on a
	// prediction, re-simulated or new.
	savesPerFrame float64
	desyncs       int
}

func benchLockstep(ctx context.Context, o lsOptions) error {
	var rows []lsResult
	for _, c := range o.conditions {
		for _, m := range o.modes {
			if err := ctx.Err(); err != nil {
				return err
			}
			fmt.Fprintf(o.progress, "bench lockstep: %-9s %-13s ", c.name, m.name)
			start := time.Now()
			r, err := runLockstepRow(o, c, m)
			if err != nil {
				return err
			}
			fmt.Fprintf(o.progress, "%.1f s\n", time.Since(start).Seconds())
			rows = append(rows, r)
		}
	}
	var costs []cubeCost
	if !o.skipCubes {
		for _, l := range []scene.Layout{scene.Cubes900, scene.Pyramid10} {
			fmt.Fprintf(o.progress, "bench lockstep: rollback cost in %v, %d players\n", l, o.players)
			c, err := measureCubeCost(l, o)
			if err != nil {
				return err
			}
			costs = append(costs, c)
		}
	}
	var joins []ljResult
	if !o.skipLateJoin {
		cubes := scene.Cubes900
		for _, layout := range []*scene.Layout{nil, &cubes} {
			for _, c := range ljConditions {
				for _, m := range o.modes {
					for _, refereed := range ljSources {
						if m.flag == "tcp" {
							continue // late join needs datagrams
						}
						if err := ctx.Err(); err != nil {
							return err
						}
						fmt.Fprintf(o.progress, "bench lockstep: late join, %-10s %-9s %-13s referee %-5v ", ljGameName(layout), c.name, m.name, refereed)
						start := time.Now()
						r, err := runLateJoinRow(o, c, m, layout, refereed)
						if err != nil {
							return err
						}
						fmt.Fprintf(o.progress, "%.1f s\n", time.Since(start).Seconds())
						joins = append(joins, r)
					}
				}
			}
		}
	}
	printLockstep(o, rows, costs)
	if len(joins) > 0 {
		printLateJoin(o, joins)
	}
	return nil
}

func runLockstepRow(o lsOptions, c lsCondition, mode lsMode) (lsResult, error) {
	r := lsResult{cond: c, mode: mode.name}
	cfg := mode.cfg()
	cfg.Players = o.players
	srv, err := lockstep.NewServer[scene.Input](cfg, simmatch.Epoch)
	if err != nil {
		return r, err
	}
	cond := netsim.Conditions{Latency: c.rtt / 2, Loss: c.loss}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: o.seed, Conditions: cond}}, srv)
	if err != nil {
		return r, err
	}
	clients, err := joinLockstepPlayers(m, cfg, o.players, o.game)
	if err != nil {
		return r, err
	}
	if r.err = m.Run(o.warmup); r.err != nil {
		r.desyncs = 1
		return r, nil
	}
	frame := time.Second / 60
	before := make([]lockstep.Stats, len(clients))
	traffic := make([]simmatch.Traffic, len(clients))
	for p, cl := range clients {
		before[p], traffic[p] = cl.Stats(), m.Traffic(p)
		r.warmStalls += before[p].Stalled
	}
	prev := slices.Clone(before)
	run := make([]time.Duration, len(clients)) // current stall of each client
	var delays []time.Duration
	var resims []float64
	rollbacks, hitches := 0, 0
	start := m.Now()
	for m.Now().Sub(start) < o.measure {
		if r.err = m.Run(frame); r.err != nil {
			r.desyncs = 1
			break
		}
		for p, cl := range clients {
			s := cl.Stats()
			delays = append(delays, s.InputDelay)
			resims = append(resims, float64(s.LastResimulated))
			if s.LastResimulated > 0 {
				rollbacks++
			}
			if s.Stalled > prev[p].Stalled {
				if run[p] == 0 {
					hitches++
				}
				run[p] += frame
				r.longest = max(r.longest, run[p])
			} else {
				run[p] = 0
			}
			prev[p] = s
		}
	}
	window := m.Now().Sub(start)
	var stalls, packets, bytes, ran, saves float64
	for p, cl := range clients {
		s := cl.Stats()
		stalls += float64(s.Stalled - before[p].Stalled)
		packets += float64(s.PacketsSent - before[p].PacketsSent)
		bytes += float64(s.BytesSent - before[p].BytesSent)
		ran += float64(s.Tick - before[p].Tick)
		saves += float64(s.Saves - before[p].Saves)
		r.bytesMax = max(r.bytesMax, s.MaxPacket)
		t := m.Traffic(p)
		r.upKbps += float64(t.UpBytes-traffic[p].UpBytes) * 8 / 1000 / window.Seconds()
		r.downKbps += float64(t.DownBytes-traffic[p].DownBytes) * 8 / 1000 / window.Seconds()
	}
	n := float64(len(clients))
	r.stallsPerMin = stalls / n / window.Minutes()
	r.hitchesPerMin = float64(hitches) / n / window.Minutes()
	r.ran = ran / n / (window.Seconds() * 60)
	r.bytesMean = bytes / max(packets, 1)
	r.savesPerFrame = saves / n / (window.Seconds() * 60)
	r.upKbps, r.downKbps = r.upKbps/n, r.downKbps/n
	if st := srv.Stats(m.Now()); st.Desync != nil {
		r.desyncs = 1
	}
	if len(delays) > 0 {
		slices.Sort(delays)
		r.delay.mean = mean(delays)
		r.delay.p95 = delays[len(delays)*95/100]
		r.resim.mean = mean(resims)
		slices.Sort(resims)
		r.resim.p95, r.resim.max = resims[len(resims)*95/100], resims[len(resims)-1]
		r.rollbackShare = float64(rollbacks) / float64(len(resims))
	}
	return r, nil
}

func mean[T time.Duration | float64](xs []T) T {
	var sum float64
	for _, x := range xs {
		sum += float64(x)
	}
	return T(sum / float64(len(xs)))
}

// cubeCost is what rollback costs in one cube world with every player's
// scripted input: the wall-clock time of one step, save and load, and of
// a rollback of vrSteps (load, then step and save that many ticks).
type cubeCost struct {
	layout           scene.Layout
	cubes            int
	step, save, load time.Duration
	vr               time.Duration
}

func measureCubeCost(l scene.Layout, o lsOptions) (cubeCost, error) {
	g, err := scene.NewLockstep(l, scene.DefaultConfig(), o.players)
	if err != nil {
		return cubeCost{}, err
	}
	c := cubeCost{layout: l, cubes: len(g.Scene.Cubes)}
	inputs := make([]scene.Input, o.players)
	tick := 0
	step := func() {
		for p := range inputs {
			inputs[p] = scene.PlayerBot(p)(lockstep.Tick(tick))
		}
		g.Step(inputs)
		tick++
	}
	for range o.cubeWarmup {
		step()
	}
	const reps = 30
	g.Save(0)
	t0 := time.Now()
	for range reps {
		step()
	}
	t1 := time.Now()
	for range reps {
		g.Save(1)
	}
	t2 := time.Now()
	for range reps {
		g.Load(0)
	}
	t3 := time.Now()
	c.step, c.save, c.load = t1.Sub(t0)/reps, t2.Sub(t1)/reps, t3.Sub(t2)/reps
	tick -= reps
	// One rollback as a client does it: restore, then re-simulate and
	// save again every tick up to where it was.
	g.Save(0)
	from := tick
	t4 := time.Now()
	const vrReps = 2
	for range vrReps {
		g.Load(0)
		tick = from
		for range o.vrSteps {
			g.Save(1)
			step()
		}
	}
	c.vr = time.Since(t4) / vrReps
	return c, nil
}

func printLockstep(o lsOptions, rows []lsResult, costs []cubeCost) {
	w := o.stdout
	fmt.Fprintf(w, "lockstep: %d players, their scripted minutes (scene.PlayerBot), %.0f s measured after %v of warm-up, 60 Hz, RTT and loss each way as named, seed %d\n",
		o.players, o.measure.Seconds(), o.warmup, o.seed)
	world := "inputChain (a hash of the inputs: network figures do not depend on the game)"
	if o.game != nil {
		world = fmt.Sprintf("the %v cube world, one per player", *o.game)
	}
	fmt.Fprintf(w, "sessions step %s; bytes/packet: client datagrams without IP/UDP/netcode headers; kbps per player with them (%d bytes a datagram)\n",
		world, netmodel.PacketOverhead)
	var per *cubeCost
	if len(costs) > 0 {
		per = &costs[0]
		fmt.Fprintf(w, "rollback CPU ms/frame: the row's re-simulated steps, saves and loads at the costs measured in the %v world below, on top of the frame's own step\n", per.layout)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "condition\tmode\tran %\tdelay mean\tdelay p95\tstalled frames/min\thitches/min\tlongest stall\twarm-up stalls\tbytes/pkt mean\tmax\tkbps up\tkbps down\tresim/frame mean\tp95\tmax\tCPU ms/frame mean\tmax\tdesyncs\t")
	for _, r := range rows {
		cpuMean, cpuMax := "-", "-"
		resMean, resP95, resMax := "-", "-", "-"
		if r.mode == "rollback" {
			resMean, resP95, resMax = fmt.Sprintf("%.2f", r.resim.mean), fmt.Sprintf("%.0f", r.resim.p95), fmt.Sprintf("%.0f", r.resim.max)
			if per != nil {
				// Every re-simulated tick steps; the saves (of new and
				// re-simulated ticks alike) and the loads are counted apart.
				base := r.savesPerFrame*ms(per.save) + r.rollbackShare*ms(per.load)
				cpuMean = fmt.Sprintf("%.1f", r.resim.mean*ms(per.step)+base)
				cpuMax = fmt.Sprintf("%.1f", r.resim.max*ms(per.step+per.save)+ms(per.save+per.load))
			}
		}
		desync := fmt.Sprint(r.desyncs)
		if r.err != nil {
			desync = r.err.Error()
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f ms\t%.0f ms\t%.1f\t%.1f\t%.0f ms\t%d\t%.1f\t%d\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			r.cond.name, r.mode, 100*r.ran, ms(r.delay.mean), ms(r.delay.p95), r.stallsPerMin, r.hitchesPerMin, ms(r.longest), r.warmStalls,
			r.bytesMean, r.bytesMax, r.upKbps, r.downKbps, resMean, resP95, resMax, cpuMean, cpuMax, desync)
	}
	tw.Flush()
	if len(costs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nrollback in the cube world, %d players after %d ticks of their scripts, wall clock on this machine:\n\n", o.players, o.cubeWarmup)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "world\tcubes\tstep ms\tsave ms\tload ms\trollback of %d ticks ms\tframes of 60 Hz\tof 90 Hz\t\n", o.vrSteps)
	for _, c := range costs {
		fmt.Fprintf(tw, "%v\t%d\t%.2f\t%.3f\t%.3f\t%.1f\t%.1f\t%.1f\t\n", c.layout, c.cubes, ms(c.step), ms(c.save), ms(c.load),
			ms(c.vr), ms(c.vr)/(1000.0/60), ms(c.vr)/(1000.0/90))
	}
	tw.Flush()
}
