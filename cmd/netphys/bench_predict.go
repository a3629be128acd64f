package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
)

// bench predict: the client-prediction model's report (issue 13). Eight
// bots play the arena over the network simulator in virtual time, at 30
// and at 60 Hz, under three network conditions; the table gives the
// mispredicted ticks, the corrections, the re-simulation work on both
// sides, the hit-registration agreement and the traffic.

func init() {
	register(&command{
		name:    "bench predict",
		summary: "client prediction, reconciliation and lag compensation: 8 bots in the arena at 30 and 60 Hz under three network conditions",
		setup: func(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
			dur := fs.Duration("duration", time.Minute, "virtual match length per row")
			full := fs.Bool("full", false, "5-minute matches instead of 60 s (several minutes on 2 cores)")
			players := fs.Int("players", 8, "bots, 1 to 16")
			seed := fs.Uint64("seed", 1, "seed of the bots and of the network simulator")
			rate := fs.Int("rate", 0, "only this tick rate (30 or 60); 0: both")
			cond := fs.Int("condition", 0, "only this network condition (1: 50 ms, 2: 150 ms ±20 ms 2 %, 3: 300 ms 10 %); 0: all")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return fmt.Errorf("unexpected arguments %q", args)
				}
				if *full {
					*dur = 5 * time.Minute
				}
				if *dur < 5*time.Second || *players < 1 || *players > scene.MaxArenaPlayers {
					return fmt.Errorf("need --duration >= 5s and 1 <= --players <= %d", scene.MaxArenaPlayers)
				}
				if *cond < 0 || *cond > len(predictConditions) || (*rate != 0 && *rate != 30 && *rate != 60) {
					return fmt.Errorf("--rate is 0, 30 or 60 and --condition 0 to %d", len(predictConditions))
				}
				return benchPredict(ctx, os.Stdout, os.Stderr, *dur, *players, *seed, *rate, *cond)
			}
		},
	})
}

// predictCondition is one row's network: the same each way.
type predictCondition struct {
	name string
	c    netsim.Conditions
}

var predictConditions = []predictCondition{
	{"50 ms RTT", netsim.Conditions{Latency: 25 * time.Millisecond}},
	{"150 ms RTT ±20 ms 2 %", netsim.Conditions{Latency: 75 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.02}},
	{"300 ms RTT 10 %", netsim.Conditions{Latency: 150 * time.Millisecond, Loss: 0.10}},
}

// timedArena is the arena with the steps that step a tick again timed:
// the model tells it when it re-simulates (predict.Resimulator).
type timedArena struct {
	*scene.Arena
	resimulating bool
	resim        time.Duration
}

func (g *timedArena) Resimulating(on bool) { g.resimulating = on }

func (g *timedArena) Step(in []scene.ArenaInput) {
	if !g.resimulating {
		g.Arena.Step(in)
		return
	}
	start := time.Now()
	g.Arena.Step(in)
	g.resim += time.Since(start)
}

type predictRow struct {
	rate                           int
	cond                           string
	free, freeMiss, contact, cMiss uint64
	corrSum, corrMax               float64
	clientTicks, clientResim       uint64
	clientResimCPU                 time.Duration
	rewinds                        uint64
	serverResimCPU                 time.Duration
	seen, confirmed                int
	upKbps, downKbps               float64
	elapsed                        time.Duration
	shots, capped                  uint64
}

func benchPredict(ctx context.Context, stdout, progress io.Writer, dur time.Duration, players int, seed uint64, onlyRate, onlyCond int) error {
	var rows []predictRow
	for _, rate := range []int{30, 60} {
		if onlyRate != 0 && rate != onlyRate {
			continue
		}
		for i, pc := range predictConditions {
			if onlyCond != 0 && i+1 != onlyCond {
				continue
			}
			r, err := predictMatch(ctx, progress, rate, pc, dur, players, seed)
			if err != nil {
				return err
			}
			rows = append(rows, r)
		}
	}
	fmt.Fprintf(stdout, "netphys predict: %d bots in the arena, %v of virtual time per row, 1 s window, lag compensation capped at %v\n\n",
		players, dur, predict.DefaultConfig().MaxRewind)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Hz\tnetwork\tmispredicted free\tmispredicted pushing\tcorrection mean/max m\tresim/client tick\tresim µs/client tick\trewinds/s\trewind ms/s\thits confirmed\tshots over cap\tkbps up/down\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%.3f / %.2f\t%.2f\t%.1f\t%.2f\t%.2f\t%s\t%s\t%.1f / %.1f\t\n",
			r.rate, r.cond, pct(r.freeMiss, r.free), pct(r.cMiss, r.contact),
			safeDiv(r.corrSum, float64(r.freeMiss+r.cMiss)), r.corrMax,
			safeDiv(float64(r.clientResim), float64(r.clientTicks)),
			safeDiv(float64(r.clientResimCPU.Microseconds()), float64(r.clientTicks)),
			safeDiv(float64(r.rewinds), r.elapsed.Seconds()),
			safeDiv(float64(r.serverResimCPU.Microseconds())/1000, r.elapsed.Seconds()),
			pct(uint64(r.confirmed), uint64(r.seen)), pct(r.capped, r.shots), r.upKbps, r.downKbps)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\nmispredicted: own-player ticks the server had more than one quantization step (1/512 m) away from the prediction,")
	fmt.Fprintln(stdout, "  free: no contact with a cube or another player since the prediction's base state; pushing: with one.")
	fmt.Fprintln(stdout, "hits confirmed: shots the shooter saw hit that the server committed as hits on the same target;")
	fmt.Fprintln(stdout, "  shots over cap: shots that claimed to see further back than the lag-compensation cap, judged at the cap.")
	fmt.Fprintln(stdout, "resim: ticks stepped again by client reconciliations, per predicted tick; rewinds: server reconciliations of late inputs.")
	fmt.Fprintln(stdout, "kbps: per client, with 47 bytes of UDP, netcode and MAC overhead per packet.")
	return nil
}

func pct(n, d uint64) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f %% of %d", 100*float64(n)/float64(d), d)
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// predictMatch plays one row's match.
func predictMatch(ctx context.Context, progress io.Writer, rate int, pc predictCondition, dur time.Duration, players int, seed uint64) (predictRow, error) {
	row := predictRow{rate: rate, cond: pc.name}
	cfg := predict.DefaultConfig()
	cfg.TickRate = rate
	acfg := scene.DefaultArenaConfig(rate)
	acfg.Players = players
	sg, err := newTimedArena(acfg)
	if err != nil {
		return row, err
	}
	srv, err := predict.NewServer[scene.ArenaInput](cfg, sg, simmatch.Epoch)
	if err != nil {
		return row, err
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: seed, Conditions: pc.c}}, srv)
	if err != nil {
		return row, err
	}
	clients, games, err := joinArenaBots(m, cfg, acfg, players, seed)
	if err != nil {
		return row, err
	}
	type shot struct {
		shooter int
		tick    predict.Tick
	}
	committed := map[shot]int{}
	var seen []struct {
		shot
		target int
	}
	var hits []predict.Hit
	var seenBuf []predict.SeenHit
	const chunk = 10 * time.Second
	for m.Elapsed() < dur {
		if err := ctx.Err(); err != nil {
			return row, err
		}
		if err := m.Run(min(chunk, dur-m.Elapsed())); err != nil {
			return row, err
		}
		hits = srv.TakeCommitted(hits[:0])
		for _, h := range hits {
			committed[shot{h.Shooter, h.Tick}] = h.Target
		}
		for p, c := range clients {
			seenBuf = c.TakeSeenHits(seenBuf[:0])
			for _, s := range seenBuf {
				seen = append(seen, struct {
					shot
					target int
				}{shot{p, s.Tick}, s.Target})
			}
		}
		fmt.Fprintf(progress, "bench predict: %d Hz, %s: %v of %v\n", rate, pc.name, m.Elapsed().Round(time.Second), dur)
	}
	// Only the shots whose ticks the server has committed can be judged.
	last := srv.Tick() - predict.Tick(rate) - 1
	for _, s := range seen {
		if s.tick >= last {
			continue
		}
		row.seen++
		if t, ok := committed[s.shot]; ok && t == s.target {
			row.confirmed++
		}
	}
	for p, c := range clients {
		st := c.Stats()
		row.free += st.Compared
		row.freeMiss += st.Mispredicted
		row.contact += st.ComparedContact
		row.cMiss += st.MispredictedContact
		row.corrSum += st.CorrectionSum
		row.corrMax = max(row.corrMax, st.CorrectionMax)
		row.clientTicks += st.Ticks
		row.clientResim += st.ResimTicks
		row.clientResimCPU += games[p].resim
		row.shots += st.Shots
		tr := m.Traffic(p)
		row.upKbps += tr.UpKbps(m.Elapsed()) / float64(players)
		row.downKbps += tr.DownKbps(m.Elapsed()) / float64(players)
	}
	sc := srv.Counters()
	row.rewinds, row.serverResimCPU = sc.Rewinds, sg.resim
	row.elapsed = m.Elapsed()
	row.capped = sc.BehindClamped
	fmt.Fprintf(progress, "bench predict: %d Hz, %s: server %+v\n", rate, pc.name, sc)
	return row, nil
}
