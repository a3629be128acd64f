package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
)

func init() {
	register(&command{
		name:    "bench statesync",
		summary: "state sync with distributed authority: host + 3 guests play the scripted VR match under nine network conditions (the article's four, then reorder, jitter, duplicates, outages, asymmetric loss)",
		setup:   setupBenchStatesync,
	})
}

// statesyncCondition is one row of the report: the conditions of every
// link each way, or, with at, of each guest's link up and down at each
// moment of the match.
type statesyncCondition struct {
	name string
	c    netsim.Conditions
	at   func(elapsed time.Duration) (up, down netsim.Conditions)
}

func statesyncConditions() []statesyncCondition {
	const rtt100 = 50 * time.Millisecond
	return []statesyncCondition{
		{name: "0 / 0"},
		{name: "100 ms / 5 %", c: netsim.Conditions{Latency: rtt100, Loss: 0.05}},
		{name: "250 ms / 25 %", c: netsim.Conditions{Latency: 125 * time.Millisecond, Loss: 0.25}},
		{name: "1 s / 50 % bursts", c: netsim.Conditions{Latency: 500 * time.Millisecond, Burst: netsim.BurstLoss(0.5, 10)}},
		{name: "reorder 30 % +200 ms", c: netsim.Conditions{Latency: rtt100, Jitter: 10 * time.Millisecond, Reorder: 0.3, ReorderDelay: 200 * time.Millisecond}},
		{name: "jitter ±40 ms", c: netsim.Conditions{Latency: rtt100, Jitter: 40 * time.Millisecond}},
		{name: "duplicate 25 %", c: netsim.Conditions{Latency: rtt100, Jitter: 5 * time.Millisecond, Duplicate: 0.25}},
		{name: "outage 2.5 s / 10 s", at: func(t time.Duration) (up, down netsim.Conditions) {
			c := netsim.Conditions{Latency: rtt100}
			if t%(10*time.Second) >= 7500*time.Millisecond {
				c.Loss = 1
			}
			return c, c
		}},
		{name: "asym 40 % up / 2 % down", at: func(time.Duration) (up, down netsim.Conditions) {
			return netsim.Conditions{Latency: rtt100, Loss: 0.4}, netsim.Conditions{Latency: rtt100, Loss: 0.02}
		}},
	}
}

func setupBenchStatesync(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	kbps := fs.Int("kbps", 256, "packet budget each way per player, in kbps at 60 packets per second")
	seconds := fs.Int("seconds", scene.VRMatchSeconds, "seconds of the scripted match to play before every bot stops (the script lasts 120; its players rest from 100)")
	stops := fs.String("stops", "", "instead of the table, the convergence after play stops at each of these seconds (e.g. 45,62,77,90)")
	settle := fs.Int("settle", 30, "seconds to wait after play for every guest to hold the host's bits")
	seed := fs.Uint64("seed", 1, "seed of the network simulator")
	seeds := fs.Int("seeds", 1, "instead of the table, run each condition with this many seeds from --seed on and print one line per run (the convergence sweep)")
	only := fs.String("condition", "", "run only the condition whose name starts with this (e.g. 250)")
	coderName := fs.String("coder", statesync.DefaultConfig().Coder.String(), "how packets are coded: plain (bit packer) or range (adaptive range coder)")
	return func(ctx context.Context, args []string) error {
		coder, err := statesync.ParseCoder(*coderName)
		if err != nil {
			return err
		}
		if *seeds > 1 {
			return statesyncSweep(ctx, os.Stdout, *only, statesyncRun{kbps: *kbps, play: *seconds * 60, settle: *settle * 60, coder: coder}, *seed, *seeds)
		}
		plays := []int{*seconds}
		if *stops != "" {
			if plays, err = parseSeconds(*stops); err != nil {
				return err
			}
		}
		var rows []statesyncRow
		var offline []string // per play
		for _, play := range plays {
			rest, err := offlineRest(play, *settle)
			if err != nil {
				return fmt.Errorf("offline: %w", err)
			}
			offline = append(offline, rest)
			for _, c := range statesyncConditions() {
				if *only != "" && !startsWith(c.name, *only) {
					continue
				}
				slog.Info("bench statesync", "condition", c.name, "play", play)
				r, err := runStatesync(ctx, c, statesyncRun{kbps: *kbps, play: play * 60, settle: *settle * 60, seed: *seed, coder: coder})
				if err != nil {
					return fmt.Errorf("%s: %w", c.name, err)
				}
				rows = append(rows, r)
			}
		}
		if *stops != "" {
			printStatesyncStops(os.Stdout, *kbps, rows, offline)
			return nil
		}
		printStatesync(os.Stdout, *kbps, coder, rows, offline[0])
		return nil
	}
}

// offlineRest is the offline-rest cell: how many seconds after play
// stopped the match played on one world with nobody on a network rested,
// the physics' share of convergence.
func offlineRest(play, settle int) (string, error) {
	r, err := scene.PlayVROffline(scene.DefaultVRConfig(), play*60, settle*60)
	if err != nil || !r.Rested {
		return "no", err
	}
	return fmt.Sprintf("%.1f", float64(r.RestSteps)/60), nil
}

// parseSeconds reads a comma-separated list of seconds of play.
func parseSeconds(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > scene.VRMatchSeconds {
			return nil, fmt.Errorf("--stops: %q is not a second of the match (1-%d)", f, scene.VRMatchSeconds)
		}
		out = append(out, n)
	}
	return out, nil
}

// calmPiles sets calm[i] for each cube whose pile on w (the
// cubes it touches, and theirs) is settled on the host, under nobody's
// authority on its node and touched by no moving hand or head. A cube that
// moves in a calm pile moves by itself: jitter. One that moves because a
// thrown cube hit its tower on this machine before authority spread to it
// moves in a pile that is not calm: an interaction.
func calmPiles(w *scene.VR, authority func(int) (statesync.Owner, statesync.Owner, statesync.Version), settled func(int) bool, calm []bool) {
	parent := make([]int, len(calm))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	touched := make([]bool, len(calm))
	w.Touches(func(a, b int) { parent[find(a)] = find(b) }, func(_ statesync.Player, i int) { touched[i] = true })
	quiet := make([]bool, len(calm)) // per root
	for i := range quiet {
		quiet[i] = true
	}
	for i := range calm {
		a, h, _ := authority(i)
		if touched[i] || !settled(i) || a != statesync.Nobody || h != statesync.Nobody {
			quiet[find(i)] = false
		}
	}
	for i := range calm {
		calm[i] = quiet[find(i)]
	}
}

func startsWith(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

type statesyncRun struct {
	kbps, play, settle int // kbps budget, ticks of play, ticks to settle
	seed               uint64
	coder              statesync.Coder
}

// statesyncRow is what one condition measured.
type statesyncRow struct {
	name                   string
	stop                   int     // s of play before the players stopped acting
	up, down, hostTotal    float64 // kbps: per guest (mean) and the host's sum both ways
	errMoving, errRest     float64 // mean position error on guests, m
	restToBits             []float64
	converged              bool
	convergedAfter         float64 // s after play stopped
	hostRested             float64 // s after play stopped when every cube rested on the host
	lastRestLag            float64 // s from the host's world resting for good to every guest holding its bits
	restSpeed              float64 // max speed on guests of cubes resting on the host, m/s
	towerSpeed             float64 // max speed on any machine of the cubes still standing in their towers, m/s
	standing               int     // cubes of the towers nobody touched and no cube of which moved 5 cm on any machine
	lost                   int
	host                   statesync.Counters
	pops                   float64 // per guest per minute
	cpuPerTick             time.Duration
	predictable, predicted uint64
	grabsLost, overruled   uint64 // on the guests
	// flight*: predictions of cubes that flew freely since their baseline.
	flightPredictable, flightPredicted uint64
	// guests: the guests' counters summed (packet contents up).
	guests statesync.Counters
}

// timedServer measures the host's CPU time.
type timedServer struct {
	*statesync.Host
	spent time.Duration
}

func (t *timedServer) Receive(now time.Time, slot int, d []byte) error {
	start := time.Now()
	err := t.Host.Receive(now, slot, d)
	t.spent += time.Since(start)
	return err
}

func (t *timedServer) Update(now time.Time, send func(int, []byte)) error {
	start := time.Now()
	err := t.Host.Update(now, send)
	t.spent += time.Since(start)
	return err
}

// restEvent follows one cube from its rest on its authority's machine to
// the same bits on every machine.
type restEvent struct {
	moving  bool
	pending bool
	since   int
}

func runStatesync(ctx context.Context, c statesyncCondition, run statesyncRun) (statesyncRow, error) {
	row := statesyncRow{name: c.name, hostRested: -1, stop: min(run.play, scene.VRMatchPlaySeconds*60) / 60}
	vcfg := scene.DefaultVRConfig()
	worlds, bots, err := newVRTable(vcfg)
	if err != nil {
		return row, err
	}
	cfg := statesync.DefaultConfig()
	cfg.Ballistic = statesync.BallisticOf(vcfg.Physics)
	cfg.PacketBytes = statesync.BudgetFor(run.kbps, 60)
	cfg.Coder = run.coder
	host, err := statesync.NewHost(cfg, worlds[0])
	if err != nil {
		return row, err
	}
	ts := &timedServer{Host: host}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: run.seed, Conditions: c.c}}, ts)
	if err != nil {
		return row, err
	}
	var up, down netsim.Conditions // c.at's conditions in force
	nodes := []interface {
		Authority(int) (statesync.Owner, statesync.Owner, statesync.Version)
		Counters() statesync.Counters
	}{host}
	guests, err := joinVRGuests(m, cfg, worlds)
	if err != nil {
		return row, err
	}
	for _, g := range guests {
		nodes = append(nodes, g)
	}
	cubes := worlds[0].Objects()
	// standing: the cube is in one of the towers, has stayed within 5 cm of
	// where the match started on every machine, and no machine ever gave
	// anyone authority over it (nobody touched it).
	standing := make([]bool, cubes)
	start := make([]physics.BodyState, cubes)
	for k := range vcfg.Towers {
		for _, i := range worlds[0].Tower(k) {
			standing[i] = true
		}
	}
	for i := range start {
		start[i] = worlds[0].Object(i)
	}
	standingSpeed := make([]float64, cubes) // fastest seen while standing
	quantSpeed := func(s physics.BodyState) float64 {
		v, _ := cfg.Spec.LinearVelocity.Quantize(cfg.Spec.LinearVelocity.Clamp(s.LinearVelocity))
		return v.Length()
	}
	events := make([]restEvent, cubes)
	restedFor := make([]int, cubes)
	guestRest := make([][]bool, len(worlds)) // at rest on the guest in the last frame
	calm := make([][]bool, len(worlds))      // in a calm pile on the guest (calmPiles)
	for p := range guestRest {
		guestRest[p] = make([]bool, cubes)
		calm[p] = make([]bool, cubes)
	}
	var errMoving, errRest float64
	var nMoving, nRest int
	frame := time.Second / 60
	total := run.play + run.settle
	// Convergence counts from when the players stop acting: the script's
	// rest, or the end of play if that comes first.
	stop := row.stop * 60
	restingSince := -1 // tick from which every cube rests on the host, after play stopped
	for tick := 1; tick <= total; tick++ {
		if err := ctx.Err(); err != nil {
			return row, err
		}
		if tick == run.play+1 {
			for _, b := range bots {
				b.Stop() // play stops: hands open and go to rest
			}
		}
		if c.at != nil {
			if u, d := c.at(m.Elapsed()); tick == 1 || u != up || d != down {
				up, down = u, d
				for slot := range guests {
					if err := m.SetLink(slot, up, down); err != nil {
						return row, err
					}
				}
			}
		}
		if err := m.Run(frame); err != nil {
			return row, err
		}
		if tick%(10*60) == 0 {
			slog.Info("bench statesync", "condition", c.name, "seconds", tick/60, "of", total/60)
		}
		same, hostResting := true, true
		// settled: at rest on the host for a second, under nobody's
		// authority there.
		settled := func(i int) bool {
			ha, hh, _ := host.Authority(i)
			return worlds[0].Object(i).AtRest && restedFor[i] >= 60 && ha == statesync.Nobody && hh == statesync.Nobody
		}
		for p := 1; p < len(worlds); p++ {
			calmPiles(worlds[p], nodes[p].Authority, settled, calm[p])
		}
		for i := range cubes {
			hs := worlds[0].Object(i)
			auth, _, _ := host.Authority(i)
			ap := 0
			if pl, ok := auth.Player(); ok {
				ap = int(pl)
			}
			identical := hs.AtRest
			hostResting = hostResting && hs.AtRest
			for p := 1; p < len(worlds); p++ {
				gs := worlds[p].Object(i)
				d := gs.Position.Sub(hs.Position).Length()
				if hs.AtRest {
					errRest += d
					nRest++
				} else {
					errMoving += d
					nMoving++
				}
				identical = identical && gs == hs
				// Jitter: a cube resting on the host and on this guest, in
				// a pile that nobody touches, that moves on the guest.
				if calm[p][i] && guestRest[p][i] {
					// What the next step starts from: the quantized velocity.
					row.restSpeed = max(row.restSpeed, quantSpeed(gs))
				}
				guestRest[p][i] = gs.AtRest
			}
			if hs.AtRest {
				restedFor[i]++
			} else {
				restedFor[i] = 0
			}
			same = same && identical
			for p := range worlds {
				s := worlds[p].Object(i)
				a, h, _ := nodes[p].Authority(i)
				if standing[i] && (s.Position.Sub(start[i].Position).Length() > 0.05 || a != statesync.Nobody || h != statesync.Nobody) {
					standing[i] = false
				}
			}
			if standing[i] {
				for p := range worlds {
					standingSpeed[i] = max(standingSpeed[i], quantSpeed(worlds[p].Object(i)))
				}
			}
			e := &events[i]
			onAuthority := worlds[ap].Object(i)
			switch {
			case !onAuthority.AtRest:
				e.moving, e.pending = true, false
			case e.moving && !e.pending:
				e.moving, e.pending, e.since = false, true, tick
			}
			if e.pending && identical {
				row.restToBits = append(row.restToBits, float64(tick-e.since)/60)
				e.pending = false
			}
		}
		if tick > stop && hostResting && row.hostRested < 0 {
			row.hostRested = float64(tick-stop) / 60
		}
		switch {
		case tick <= stop || !hostResting:
			restingSince = -1
		case restingSince < 0:
			restingSince = tick
		}
		if tick > stop && same && !row.converged {
			row.converged, row.convergedAfter = true, float64(tick-stop)/60
			row.lastRestLag = float64(tick-restingSince) / 60
			break
		}
	}
	for i := range cubes {
		if p := worlds[0].Object(i).Position; p.Y < -1 || p.Length() > 200 {
			row.lost++
		}
	}
	// A tower stood if all of its cubes did; only those show jitter, the
	// others were hit.
	for k := range vcfg.Towers {
		stood, fastest := true, 0.0
		for _, i := range worlds[0].Tower(k) {
			stood = stood && standing[i]
			fastest = max(fastest, standingSpeed[i])
		}
		if stood {
			row.standing += len(worlds[0].Tower(k))
			row.towerSpeed = max(row.towerSpeed, fastest)
		}
	}
	if nMoving > 0 {
		row.errMoving = errMoving / float64(nMoving)
	}
	if nRest > 0 {
		row.errRest = errRest / float64(nRest)
	}
	el := m.Elapsed()
	for slot := range guests {
		tr := m.Traffic(slot)
		row.up += tr.UpKbps(el) / float64(len(guests))
		row.down += tr.DownKbps(el) / float64(len(guests))
		row.hostTotal += tr.UpKbps(el) + tr.DownKbps(el)
	}
	row.host = host.Counters()
	for _, g := range guests {
		gc := g.Counters()
		row.pops += float64(gc.Pops)
		row.overruled += gc.Overruled
		row.grabsLost += gc.GrabsLost
		row.predictable += gc.Predictable
		row.predicted += gc.Predicted
		row.flightPredictable += gc.FlightPredictable
		row.flightPredicted += gc.FlightPredicted
		row.guests.PacketsSent += gc.PacketsSent
		row.guests.Late += gc.Late
		row.guests.Duplicates += gc.Duplicates
		row.guests.AvatarBytes += gc.AvatarBytes
	}
	row.pops /= float64(len(guests)) * el.Minutes()
	row.predictable += row.host.Predictable
	row.predicted += row.host.Predicted
	row.flightPredictable += row.host.FlightPredictable
	row.flightPredicted += row.host.FlightPredicted
	row.cpuPerTick = ts.spent / time.Duration(max(row.host.Steps, 1))
	return row, nil
}

// per returns a/b, 0 for b = 0.
func per(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// hitRate formats a/b as a percentage with its counts.
func hitRate(a, b uint64) string { return fmt.Sprintf("%.1f %% (%d/%d)", 100*per(a, b), a, b) }

// percentile returns the p-quantile (0-1) of xs, sorted in place.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[min(len(xs)-1, int(float64(p*float64(len(xs)))))]
}

func printStatesync(w io.Writer, kbps int, coder statesync.Coder, rows []statesyncRow, offline string) {
	fmt.Fprintf(w, "netphys bench statesync: host + 3 guests, scripted VR match, budget %d kbps per player each way (%d-byte packets at 60/s), %s coder\n\n",
		kbps, statesync.BudgetFor(kbps, 60), coder)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "RTT / loss\tup kbps\tdown kbps\thost kbps\terr moving cm\terr rest mm\trest→bits p50 s\tp95 s\tmax s\tconverged\tafter host rest s\tstanding\ttower speed\trest speed\tlost\timplausible\tconflicts\tprediction\tin flight\tpops/min\thost µs/tick\tcubes/pkt\tbits/cube\tavatar B/pkt down\tup\t")
	for _, r := range rows {
		conv := convergence(r)
		hit := 0.0
		if r.predictable > 0 {
			hit = 100 * float64(r.predicted) / float64(r.predictable)
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t%s\t%d\t%.3f\t%.3f\t%d\t%d\t%s\t%.1f %%\t%s\t%.1f\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t\n",
			r.name, r.up, r.down, r.hostTotal, 100*r.errMoving, 1000*r.errRest,
			percentile(r.restToBits, 0.5), percentile(r.restToBits, 0.95), percentile(r.restToBits, 1),
			conv, lastRestLag(r), r.standing, r.towerSpeed, r.restSpeed, r.lost, r.host.Implausible,
			fmt.Sprintf("grabs %d won %d lost, %d overruled, %d stale", r.host.GrabsWon, r.host.GrabsLost+r.grabsLost, r.overruled, r.host.Stale),
			hit, hitRate(r.flightPredicted, r.flightPredictable), r.pops, float64(r.cpuPerTick.Microseconds()),
			per(r.host.UpdatesSent, r.host.PacketsSent), 8*per(r.host.UpdateBytes, r.host.UpdatesSent),
			per(r.host.AvatarBytes, r.host.PacketsSent), per(r.guests.AvatarBytes, r.guests.PacketsSent))
	}
	tw.Flush()
	if len(rows) > 0 {
		fmt.Fprintf(w, "\noffline rest: %s s after play stopped at %d s (one world, no network)\n", offline, rows[0].stop)
	}
	fmt.Fprintln(w, "\nprediction: moving cubes coded against a moving baseline whose ballistic prediction hit, of all (hits/tries); in flight: of those")
	fmt.Fprintln(w, "that flew freely from the baseline on (velocities exactly what gravity made of the baseline's: nothing touched them);")
	fmt.Fprintln(w, "cubes/pkt, bits/cube: updates per host packet and their mean size (flags between them included); avatar B/pkt: bytes of")
	fmt.Fprintln(w, "avatars per packet, host to guest (up to three) and guest to host (its own).")
	fmt.Fprintln(w, "err: mean distance of a cube on a guest from the host's, moving or at rest on the host; rest→bits: from a cube's rest on")
	fmt.Fprintln(w, "its authority's machine to the same bits on every machine;")
	fmt.Fprintln(w, convergenceLegend)
	fmt.Fprintln(w, offlineLegend)
	fmt.Fprintln(w, "standing: cubes of the towers none of whose cubes anybody ever had authority over on any machine or moved 5 cm;")
	fmt.Fprintln(w, "tower speed: fastest any machine ever moved one of them (quantized velocity, what the next step starts from;")
	fmt.Fprintln(w, "must be 0: towers never jitter);")
	fmt.Fprintln(w, "rest speed: fastest a guest moves (quantized velocity, what its next step starts from) a cube at rest there in the frame\nbefore, in a pile at rest on the host for a second that nobody has authority over or touches (m/s); lost: cubes off the table.")
}

// convergence is the converged cell: how long after the players stopped
// acting every guest held the host's bits, and in brackets when the host's
// world came to rest plus how long the guests took after that.
func convergence(r statesyncRow) string {
	if !r.converged {
		return "no"
	}
	host := max(r.hostRested, 0)
	return fmt.Sprintf("yes, %.1f s (%.1f + %.1f)", r.convergedAfter, host, r.convergedAfter-host)
}

// lastRestLag is the after-host-rest cell: how long the guests took to
// hold the host's bits after the host's world came to rest for good.
func lastRestLag(r statesyncRow) string {
	if !r.converged {
		return "-"
	}
	return fmt.Sprintf("%.1f", r.lastRestLag)
}

const convergenceLegend = `converged: every guest holds the host's bits, so many seconds after the players stopped acting (the script's rest
at 100 s, or the end of --seconds if earlier); in brackets, when the host's world came to rest + how long the guests
took after that; after host rest: seconds from the host's world coming to rest for good (every cube at rest on the
host from then on; from the stop at the earliest) to every guest holding its bits: the network's share;`

const offlineLegend = `offline rest: seconds from the same stop to every cube at rest when the same bots play the same script on one
world with nobody on a network (no quantization, no late or lost state): the physics' share, a reference rather than
an exact subtraction, since the network changes the trajectories.`

// printStatesyncStops prints the convergence of each condition after
// play stopped at each second of --stops.
func printStatesyncStops(w io.Writer, kbps int, rows []statesyncRow, offline []string) {
	fmt.Fprintf(w, "netphys bench statesync: convergence after play stops, budget %d kbps per player each way\n\n", kbps)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var names []string
	for _, r := range rows {
		if !slices.Contains(names, r.name) {
			names = append(names, r.name)
		}
	}
	fmt.Fprintf(tw, "play stops at s\toffline rest s\t%s\tafter host rest s\t\n", strings.Join(names, "\tafter host rest s\t"))
	for k := 0; k < len(rows); k += len(names) {
		fmt.Fprintf(tw, "%d\t%s", rows[k].stop, offline[k/len(names)])
		for _, r := range rows[k : k+len(names)] {
			fmt.Fprintf(tw, "\t%s\t%s", convergence(r), lastRestLag(r))
		}
		fmt.Fprintln(tw, "\t")
	}
	tw.Flush()
	fmt.Fprintln(w, "\n"+convergenceLegend)
	fmt.Fprintln(w, offlineLegend)
}

// statesyncSweep runs every condition (or those named by only) with seeds
// first to first+n-1 and prints one line per run: the convergence
// property over many seeds.
func statesyncSweep(ctx context.Context, w io.Writer, only string, run statesyncRun, first uint64, n int) error {
	rest, err := offlineRest(run.play/60, run.settle/60)
	if err != nil {
		return fmt.Errorf("offline: %w", err)
	}
	fmt.Fprintf(w, "netphys bench statesync --seeds %d: play %d s, budget %d kbps; offline rest %s s after play stopped\n\n", n, run.play/60, run.kbps, rest)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "condition\tseed\tconverged\tafter host rest s\trest speed\tlost\tpops/min\timplausible\tlate\tduplicates\t")
	failed := 0
	for _, c := range statesyncConditions() {
		if only != "" && !startsWith(c.name, only) {
			continue
		}
		for seed := first; seed < first+uint64(n); seed++ {
			r := run
			r.seed = seed
			row, err := runStatesync(ctx, c, r)
			if err != nil {
				return fmt.Errorf("%s, seed %d: %w", c.name, seed, err)
			}
			if !row.converged || row.restSpeed != 0 || row.lost != 0 {
				failed++
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.3f\t%d\t%.1f\t%d\t%d\t%d\t\n", c.name, seed, convergence(row), lastRestLag(row),
				row.restSpeed, row.lost, row.pops, row.host.Implausible, row.guests.Late, row.guests.Duplicates)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d runs did not converge bit for bit, or moved a resting cube, or lost one\n", failed)
	return nil
}
