package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/netphys/netphys/internal/cpuclock"
	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/netmodel/statesync"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/wire/snapshot"
)

// bench server: the capacity report (issue 27), in virtual time. Many
// matches of one model run in this process over the network simulator,
// their bots included; only the servers' Receive and Update calls are
// timed, on the thread's CPU clock, so the figures are the model's
// server CPU alone: no sockets, no netcode encryption, no system calls.
// What a server process adds on top of them the real-UDP mode will say.

func init() {
	register(&command{
		name:    "bench server",
		summary: "capacity in virtual time: the server side's CPU per match per tick, allocations, memory and kbps for N matches of a model, and the matches one core keeps at 60 Hz",
		setup:   setupBenchServer,
	})
}

// serverBenchOptions sets up a run.
type serverBenchOptions struct {
	models          []string
	matches         int // 0: each model's default
	warmup, measure time.Duration
	interpClients   []int
	headroom        float64 // share of a core the derived capacity may fill
	cond            netsim.Conditions
	seed            uint64
	stdout          io.Writer
	progress        io.Writer
	cpuProfile      string // --udp: the server process's CPU profile
	rooms           bool   // --udp: every match on one port, udpdrive.Rooms
}

var serverBenchModels = []string{"lockstep", "lockstep-referee", "predict", "statesync", "interp"}

func setupBenchServer(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	model := fs.String("model", "all", "the model: "+strings.Join(serverBenchModels, ", ")+" or all")
	matches := fs.Int("matches", 0, "concurrent matches (interp: servers of each client count); 0: the model's default (lockstep 50, lockstep-referee 10, predict 4, statesync 4, interp 1)")
	seconds := fs.Float64("seconds", 10, "virtual seconds measured, after the warm-up")
	warmup := fs.Duration("warmup", 3*time.Second, "virtual time played before measuring")
	clients := fs.String("interp-clients", "64,256", "interp: the client counts to measure, comma-separated")
	headroom := fs.Float64("headroom", 0.8, "share of a core the derived matches per core may fill (the rest for the OS, the GC, sockets and netcode)")
	rtt := fs.Duration("rtt", 100*time.Millisecond, "round-trip time of every link")
	loss := fs.Float64("loss", 0.01, "loss each way, 0 to 1")
	seed := fs.Uint64("seed", 1, "seed of the network simulator and the bots")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file; the measured frames are labelled (go tool pprof -tagfocus phase=measure -focus meteredServer: the servers while measured); with --udp, the server process's, all of it")
	memProfile := fs.String("memprofile", "", "write an allocation profile, every allocation sampled, to this file at the end (it slows the run: its figures are not the report's)")
	quick := fs.Bool("quick", false, "a short run (1 match, 0.5 s warm-up, 1 s measured, interp at 16 clients): the test's")
	udp := fs.Bool("udp", false, "REAL UDP on loopback instead of virtual time: the matches' servers in a process of their own with GOMAXPROCS=1, one udpdrive server (netcode) per match on its own port, the bots in this process; its process CPU, late frames, heap and kbps (lockstep, lockstep-referee, predict, statesync)")
	rooms := fs.Bool("rooms", false, "with --udp: every match on one port, one netcode server (udpdrive.Rooms, what serve --rooms runs), each bot's token naming its match")
	udpServe := fs.Bool("udp-serve", false, "internal: the server process of --udp")
	return func(ctx context.Context, args []string) error {
		o := serverBenchOptions{matches: *matches, warmup: *warmup, measure: time.Duration(*seconds * float64(time.Second)),
			headroom: *headroom, cond: netsim.Conditions{Latency: *rtt / 2, Loss: *loss}, seed: *seed,
			stdout: fs.Output(), progress: os.Stderr, rooms: *rooms}
		if *rooms && !*udp && !*udpServe {
			return fmt.Errorf("--rooms measures rooms over real UDP: give --udp too")
		}
		for _, f := range strings.Split(*clients, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > 1000 {
				return fmt.Errorf("--interp-clients %q: want client counts from 1 to 1000, comma-separated", *clients)
			}
			o.interpClients = append(o.interpClients, n)
		}
		if *quick {
			o.matches, o.warmup, o.measure, o.interpClients = cmp.Or(o.matches, 1), 500*time.Millisecond, time.Second, []int{16}
		}
		switch {
		case *model == "all":
			o.models = serverBenchModels
		case slices.Contains(serverBenchModels, *model):
			o.models = []string{*model}
		default:
			return fmt.Errorf("--model %q: want one of %s or all", *model, strings.Join(serverBenchModels, ", "))
		}
		if o.matches < 0 || o.matches > 10000 || o.measure < 100*time.Millisecond || o.warmup < 0 ||
			o.headroom <= 0 || o.headroom > 1 || *loss < 0 || *loss >= 1 || *rtt < 0 {
			return fmt.Errorf("need 0 to 10000 --matches, --seconds >= 0.1, a non-negative --warmup and --rtt, 0 < --headroom <= 1 and 0 <= --loss < 1")
		}
		if *memProfile != "" {
			runtime.MemProfileRate = 1
		}
		if *udp {
			o.cpuProfile, *cpuProfile = *cpuProfile, "" // the server process's, not the bots'
		}
		if *cpuProfile != "" {
			f, err := os.Create(*cpuProfile)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
			defer pprof.StopCPUProfile()
		}
		var err error
		switch {
		case *udpServe:
			if len(o.models) != 1 {
				return fmt.Errorf("--udp-serve serves one --model")
			}
			err = benchServerUDPServe(ctx, o, o.models[0])
		case *udp:
			err = benchServerUDPAll(ctx, o)
		default:
			err = benchServer(ctx, o)
		}
		if err != nil {
			return err
		}
		if *memProfile != "" {
			f, err := os.Create(*memProfile)
			if err != nil {
				return err
			}
			defer f.Close()
			return pprof.Lookup("allocs").WriteTo(f, 0)
		}
		return nil
	}
}

// meteredServer times a server's calls on the thread's CPU clock and,
// when allocs is set, counts the heap allocations they make.
type meteredServer struct {
	netmodel.Server
	cpu           time.Duration // CPU of the calls, the clock's own cost taken out
	calls         uint64
	allocs        bool
	mallocs       uint64
	allocBytes    uint64
	clockOverhead time.Duration
	// sim, if set, times the server's own simulation inside its calls:
	// its readings of the clock are taken out of the calls' CPU too.
	sim   *simClock
	out   []outDatagram // reused
	aside func(int, []byte)
}

func (s *meteredServer) Receive(now time.Time, slot int, d []byte) error {
	var err error
	s.time(func() { err = s.Server.Receive(now, slot, d) })
	return err
}

// Update times the server's Update; the datagrams it sends are copied
// aside and handed to the simulator after the clock stops, so that the
// driver's cost (netsim here, sockets in a server) is not the model's.
func (s *meteredServer) Update(now time.Time, send func(int, []byte)) error {
	s.out = s.out[:0]
	if s.aside == nil {
		s.aside = s.keep
	}
	var err error
	s.time(func() { err = s.Server.Update(now, s.aside) })
	for _, o := range s.out {
		send(o.slot, o.data)
	}
	return err
}

// keep copies a datagram Update sends aside, into reused buffers.
func (s *meteredServer) keep(slot int, d []byte) {
	if len(s.out) == cap(s.out) {
		s.out = append(s.out, outDatagram{})
	} else {
		s.out = s.out[:len(s.out)+1]
	}
	o := &s.out[len(s.out)-1]
	o.slot, o.data = slot, append(o.data[:0], d...)
}

// outDatagram is one datagram an Update sent, kept until it returns.
type outDatagram struct {
	slot int
	data []byte
}

func (s *meteredServer) time(call func()) {
	var m0, m1 runtime.MemStats
	if s.allocs {
		runtime.ReadMemStats(&m0)
	}
	var reads int
	if s.sim != nil {
		reads = s.sim.reads
	}
	t := cpuclock.Now()
	call()
	d := cpuclock.Now() - t
	if s.sim != nil {
		reads = s.sim.reads - reads
	}
	s.cpu += d - time.Duration(1+reads)*s.clockOverhead
	s.calls++
	if s.allocs {
		runtime.ReadMemStats(&m1)
		s.mallocs += m1.Mallocs - m0.Mallocs
		s.allocBytes += m1.TotalAlloc - m0.TotalAlloc
	}
}

// simClock times a server's own simulation (interp's world, statesync's
// table) in spans nested in meteredServer's: each span's CPU less the
// clock's cost (clockOverhead, as for a call), and the clock readings
// taken, each of which costs the call around it a reading too.
type simClock struct {
	overhead time.Duration
	spent    time.Duration
	reads    int
}

// start begins a span; stop(start()) ends it.
func (c *simClock) start() time.Duration {
	c.reads += 2
	return cpuclock.Now()
}

func (c *simClock) stop(t time.Duration) { c.spent += cpuclock.Now() - t - c.overhead }

// clockOverhead is what one timed span charges for reading the clock
// around it: the median of many back-to-back readings.
func clockOverhead() time.Duration {
	d := make([]time.Duration, 2001)
	for i := range d {
		t := cpuclock.Now()
		d[i] = cpuclock.Now() - t
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// serverBenchModel is how the report builds one model's matches: the
// server alone first, so that its memory is measured before any client
// exists, then the clients.
type serverBenchModel struct {
	name, title string
	players     int
	// bots is how many clients join each match, players if 0 (the
	// statesync host is a player, not a client).
	bots int
	// newServer builds match i's server, its clock starting at now; sim,
	// if set, times the server's own simulation (interp's world,
	// statesync's table), to tell it apart.
	newServer func(i int, now time.Time) (srv netmodel.Server, sim *simClock, err error)
	// newClient builds the bot in slot of match i, its clock starting at
	// now (the clients join in slot order).
	newClient func(i, slot int, now time.Time) (netmodel.Client, error)
	// snapshots, if set, counts the snapshot packets match i's server
	// has sent (interp).
	snapshots func(i int) uint64
}

// clients is how many bots join each match.
func (m serverBenchModel) clients() int { return cmp.Or(m.bots, m.players) }

func benchServer(ctx context.Context, o serverBenchOptions) error {
	// The servers' CPU is read from this thread's clock.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	overhead := clockOverhead()
	fmt.Fprintf(o.stdout, "bench server: VIRTUAL TIME over the network simulator: the model's server CPU alone (%s of its Receive and Update calls,\n", cpuclock.Name)
	fmt.Fprintf(o.stdout, "  %v per call taken out for reading the clock, the median of 2001 back-to-back readings, and as much again per reading inside a call that times\n", overhead)
	fmt.Fprintf(o.stdout, "  the server's own world apart), no sockets, netcode encryption or system calls; the bots and their worlds run in the same process, untimed.\n")
	fmt.Fprintf(o.stdout, "  links: %v RTT, %.1f %% loss each way; %v warm-up, %v measured; GOMAXPROCS %d; derived capacity fills %.0f %% of a core.\n",
		2*o.cond.Latency, 100*o.cond.Loss, o.warmup, o.measure, runtime.GOMAXPROCS(0), 100*o.headroom)
	for _, name := range o.models {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		switch name {
		case "interp":
			err = benchServerInterp(ctx, o, overhead)
		default:
			var m serverBenchModel
			m, err = serverModel(name, o)
			if err == nil {
				var r serverBenchResult
				r, err = runServerBench(ctx, o, m, cmp.Or(o.matches, serverBenchDefaultMatches[name]), overhead)
				if err == nil {
					printServerBench(o, m, r)
				}
			}
		}
		if err != nil {
			return fmt.Errorf("bench server --model %s: %w", name, err)
		}
	}
	return nil
}

var serverBenchDefaultMatches = map[string]int{"lockstep": 50, "lockstep-referee": 10, "predict": 4, "statesync": 4, "interp": 1}

// serverModel is the report's setup of lockstep, predict or statesync.
func serverModel(name string, o serverBenchOptions) (serverBenchModel, error) {
	switch name {
	case "lockstep":
		cfg := lockstep.DefaultConfig()
		cfg.Players = 4
		return serverBenchModel{
			name: name, players: cfg.Players,
			title: "lockstep: 4 players, the relay alone (the server simulates nothing; --model lockstep-referee steps the world too), redundant inputs over datagrams; clients step inputChain",
			newServer: func(_ int, now time.Time) (netmodel.Server, *simClock, error) {
				srv, err := lockstep.NewServer[scene.Input](cfg, now)
				return srv, nil, err
			},
			newClient: func(_, _ int, now time.Time) (netmodel.Client, error) {
				return lockstep.NewClient[scene.Input](cfg, &inputChain{}, scene.LockstepBot(), now)
			},
		}, nil
	case "lockstep-referee":
		cfg := lockstep.DefaultConfig()
		cfg.Players = 4
		layout := scene.Tower20
		probe, err := scene.NewLockstep(layout, scene.DefaultConfig(), cfg.Players)
		if err != nil {
			return serverBenchModel{}, err
		}
		return serverBenchModel{
			name: name, players: cfg.Players,
			title: fmt.Sprintf("lockstep with the referee: 4 players, the server steps its own %v world (%d cubes) from the inputs it relays and judges the checksums; every client steps the same world",
				layout, len(probe.Scene.Cubes)),
			newServer: func(_ int, now time.Time) (netmodel.Server, *simClock, error) {
				srv, err := lockstep.NewServer[scene.Input](cfg, now)
				if err != nil {
					return nil, nil, err
				}
				world, err := scene.NewLockstep(layout, scene.DefaultConfig(), cfg.Players)
				if err != nil {
					return nil, nil, err
				}
				return srv, nil, srv.SetReferee(world)
			},
			newClient: func(_, _ int, now time.Time) (netmodel.Client, error) {
				world, err := scene.NewLockstep(layout, scene.DefaultConfig(), cfg.Players)
				if err != nil {
					return nil, err
				}
				return lockstep.NewClient[scene.Input](cfg, world, scene.LockstepBot(), now)
			},
		}, nil
	case "predict":
		cfg := predict.DefaultConfig()
		cfg.TickRate = 60
		acfg := scene.DefaultArenaConfig(cfg.TickRate)
		acfg.Players = 8
		return serverBenchModel{
			name: name, players: acfg.Players,
			title: "predict: 8 bots in the arena at 60 Hz; the server steps the arena and rewinds for late inputs",
			newServer: func(_ int, now time.Time) (netmodel.Server, *simClock, error) {
				a, err := newTimedArena(acfg)
				if err != nil {
					return nil, nil, err
				}
				srv, err := predict.NewServer(cfg, a, now)
				return srv, nil, err
			},
			newClient: func(i, slot int, now time.Time) (netmodel.Client, error) {
				a, err := newTimedArena(acfg)
				if err != nil {
					return nil, err
				}
				bot := scene.NewBot(slot, o.seed+uint64(i), acfg)
				return predict.NewClient[scene.ArenaInput](cfg, a, bot.Input, now)
			},
		}, nil
	case "statesync":
		vcfg := scene.DefaultVRConfig()
		cfg := statesync.DefaultConfig()
		cfg.Ballistic = statesync.BallisticOf(vcfg.Physics)
		cfg.PacketBytes = statesync.BudgetFor(256, 60)
		return serverBenchModel{
			name: name, players: statesync.MaxPlayers, bots: statesync.MaxPlayers - 1,
			title: "statesync: the 4-seat VR table, a headless host (no viewer; seat 0 its scripted bot, as serve runs it) and 3 guests, 256 kbps budget",
			newServer: func(int, time.Time) (netmodel.Server, *simClock, error) {
				w, _, err := newVRSeat(vcfg, 0)
				if err != nil {
					return nil, nil, err
				}
				t := &timedVR{VR: w}
				h, err := statesync.NewHost(cfg, t)
				return h, &t.clock, err
			},
			newClient: func(_, slot int, now time.Time) (netmodel.Client, error) {
				w, _, err := newVRSeat(vcfg, slot+1)
				if err != nil {
					return nil, err
				}
				gcfg := cfg
				gcfg.Player = statesync.Player(slot + 1)
				return statesync.NewGuest(gcfg, w, now)
			},
		}, nil
	}
	return serverBenchModel{}, fmt.Errorf("no such model")
}

// serverBenchResult is what one model's run measured.
type serverBenchResult struct {
	matches, clients int
	ticks            int             // frames measured
	perMatchTick     []time.Duration // CPU of one match's server in one frame
	frameTotals      []time.Duration // CPU of every server in one frame
	sim              time.Duration   // of the servers' own worlds (interp)
	calls            uint64
	// allocations of match 0's server over the measured frames
	mallocs, allocBytes uint64
	memBuilt, memPlayed uint64 // live heap of the servers: built, and after play, bytes per match
	upBytes, downBytes  uint64 // every client's, datagram overhead included
	snapshots           uint64 // interp: packets the servers sent
}

func heapLive() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func runServerBench(ctx context.Context, o serverBenchOptions, model serverBenchModel, n int, overhead time.Duration) (serverBenchResult, error) {
	r := serverBenchResult{matches: n}
	base := heapLive()
	servers := make([]*meteredServer, n)
	sims := make([]*simClock, n)
	for i := range servers {
		srv, sim, err := model.newServer(i, simmatch.Epoch)
		if err != nil {
			return r, err
		}
		if sim != nil {
			sim.overhead = overhead
		}
		servers[i], sims[i] = &meteredServer{Server: srv, clockOverhead: overhead, sim: sim}, sim
	}
	r.memBuilt = (heapLive() - base) / uint64(n)
	matches := make([]*simmatch.Match, n)
	for i := range matches {
		var err error
		sim := netsim.Config{Seed: o.seed + uint64(i), Conditions: o.cond}
		if matches[i], err = simmatch.New(simmatch.Config{Sim: sim, MaxSlots: max(model.players, 1)}, servers[i]); err != nil {
			return r, err
		}
		for slot := range model.clients() {
			c, err := model.newClient(i, slot, matches[i].Now())
			if err != nil {
				return r, err
			}
			if got, err := matches[i].Join(c); err != nil || got != slot {
				return r, fmt.Errorf("match %d: bot %d joined slot %d: %v", i, slot, got, err)
			}
		}
		r.clients = model.clients()
	}
	frame := time.Second / 60
	fmt.Fprintf(o.progress, "bench server: %s, %d matches: warm-up\n", model.name, n)
	for range ticksIn(o.warmup) {
		for _, m := range matches {
			if err := m.Run(frame); err != nil {
				return r, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	fmt.Fprintf(o.progress, "bench server: %s, %d matches: measuring\n", model.name, n)
	traffic0 := make([][]simmatch.Traffic, n)
	var sim0 time.Duration
	for i, m := range matches {
		for s := range r.clients {
			traffic0[i] = append(traffic0[i], m.Traffic(s))
		}
		servers[i].cpu, servers[i].calls = 0, 0
		if model.snapshots != nil {
			r.snapshots -= model.snapshots(i)
		}
		if sims[i] != nil {
			sim0 += sims[i].spent
		}
	}
	servers[0].allocs = true
	// The measured frames carry the profiler label phase=measure, so that
	// a profile's -tagfocus leaves the warm-up out.
	var err error
	pprof.Do(ctx, pprof.Labels("phase", "measure", "model", model.name), func(ctx context.Context) {
		for range ticksIn(o.measure) {
			var total time.Duration
			for i, m := range matches {
				before := servers[i].cpu
				if err = m.Run(frame); err != nil {
					return
				}
				d := servers[i].cpu - before
				r.perMatchTick = append(r.perMatchTick, d)
				total += d
			}
			r.frameTotals = append(r.frameTotals, total)
			r.ticks++
			if r.ticks%600 == 0 {
				if err = ctx.Err(); err != nil {
					return
				}
			}
		}
	})
	if err != nil {
		return r, err
	}
	servers[0].allocs = false
	r.mallocs, r.allocBytes = servers[0].mallocs, servers[0].allocBytes
	for i, m := range matches {
		r.calls += servers[i].calls
		if model.snapshots != nil {
			r.snapshots += model.snapshots(i)
		}
		if sims[i] != nil {
			r.sim += sims[i].spent
		}
		for s := range r.clients {
			t := m.Traffic(s)
			r.upBytes += t.UpBytes - traffic0[i][s].UpBytes
			r.downBytes += t.DownBytes - traffic0[i][s].DownBytes
		}
	}
	r.sim -= sim0
	// What the servers hold after play: the matches and their clients
	// dropped, the servers kept.
	matches = nil
	r.memPlayed = (heapLive() - base) / uint64(n)
	runtime.KeepAlive(servers)
	return r, nil
}

// ticksIn is the number of 60 Hz frames in d, rounded.
func ticksIn(d time.Duration) int {
	frame := time.Second / 60
	return int((d + frame/2) / frame)
}

// perTickStats are the mean and quantiles of one match's server CPU per
// tick.
func perTickStats(xs []time.Duration) (mean, p99, worst time.Duration) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	return sum / time.Duration(len(s)), s[len(s)*99/100], s[len(s)-1]
}

// perCore is how many matches one core runs at 60 Hz when each costs
// perTick, filling headroom of the core.
func perCore(perTick time.Duration, headroom float64) float64 {
	if perTick <= 0 {
		return 0
	}
	return headroom * float64(time.Second/60) / float64(perTick)
}

func printServerBench(o serverBenchOptions, m serverBenchModel, r serverBenchResult) {
	w := o.stdout
	mean, p99, worst := perTickStats(r.perMatchTick)
	_, frameP99, frameWorst := perTickStats(r.frameTotals)
	late := 0
	for _, f := range r.frameTotals {
		if f > time.Second/60 {
			late++
		}
	}
	secs := float64(r.ticks) / 60
	fmt.Fprintf(w, "\n%s\n", m.title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "matches\tplayers\tµs/match-tick mean\tp99\tworst\tcalls/tick\tallocs/tick\tB alloc/tick\tmatches/core at 60 Hz (mean)\t(p99)\tall matches' tick p99 ms\tworst\tlate ticks\tKiB/match built\tafter play\tkbps/match up\tdown\tkbps/player up\tdown\t")
	kbps := func(b uint64, per int) float64 { return float64(b) * 8 / 1000 / secs / float64(per) }
	fmt.Fprintf(tw, "%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t%d of %d\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t\n",
		r.matches, m.players, us(mean), us(p99), us(worst),
		float64(r.calls)/float64(r.ticks*r.matches),
		float64(r.mallocs)/float64(r.ticks), float64(r.allocBytes)/float64(r.ticks),
		perCore(mean, o.headroom), perCore(p99, o.headroom),
		ms(frameP99), ms(frameWorst), late, r.ticks,
		float64(r.memBuilt)/1024, float64(r.memPlayed)/1024,
		kbps(r.upBytes, r.matches), kbps(r.downBytes, r.matches),
		kbps(r.upBytes, r.matches*r.clients), kbps(r.downBytes, r.matches*r.clients))
	tw.Flush()
	if r.sim > 0 {
		sim := r.sim / time.Duration(r.ticks*r.matches)
		fmt.Fprintf(w, "  of it the world's own step (physics and the host's bot): %.1f µs per match-tick, %.0f %% (the floor, %.0f matches per core were the server nothing else)\n",
			us(sim), 100*float64(sim)/float64(max(mean, 1)), perCore(sim, o.headroom))
	}
	fmt.Fprintf(w, "  matches/core: %.0f %% of 1/60 s over the match's server CPU per tick; allocs: match 0's server, every call counted (runtime.MemStats);\n", 100*o.headroom)
	fmt.Fprintf(w, "  memory: the servers' live heap once built, and after play with their players' state (the clients themselves dropped), per match; kbps: both ways of every client's link, with %d bytes a datagram.\n", netmodel.PacketOverhead)
}

// timedInterpGame times the interp server's world, to tell its
// simulation from the encoding.
type timedInterpGame struct {
	*scene.InterpGame
	clock simClock
}

func (g *timedInterpGame) Step() uint32 {
	t := g.clock.start()
	in := g.InterpGame.Step()
	g.clock.stop(t)
	return in
}

func (g *timedInterpGame) Capture(dst []snapshot.Cube) {
	t := g.clock.start()
	g.InterpGame.Capture(dst)
	g.clock.stop(t)
}

// timedVR times the statesync host's world step (the physics and its
// bot): the floor of the host's CPU that no networking removes.
type timedVR struct {
	*scene.VR
	clock simClock
}

func (v *timedVR) Step(mayGrab func(i int) bool) {
	t := v.clock.start()
	v.VR.Step(mayGrab)
	v.clock.stop(t)
}

// benchServerInterp measures the interp server: the cube world (cubes900
// playing the scripted minute) sent to 64 and 256 clients at 30 pps; its
// cost is the world's step, once per tick, and the encoding per client per
// snapshot.
func benchServerInterp(ctx context.Context, o serverBenchOptions, overhead time.Duration) error {
	cfg := interp.DefaultConfig()
	type row struct {
		clients int
		r       serverBenchResult
	}
	var rows []row
	for _, clients := range o.interpClients {
		var games []*timedInterpGame
		var servers []*interp.Server
		model := serverBenchModel{
			name: "interp", players: clients,
			newServer: func(_ int, now time.Time) (netmodel.Server, *simClock, error) {
				ig, err := scene.NewInterpGame(scene.Cubes900, scene.DefaultConfig(), scene.PlayMinute)
				if err != nil {
					return nil, nil, err
				}
				g := &timedInterpGame{InterpGame: ig}
				games = append(games, g)
				srv, err := interp.NewServer(cfg, g, now)
				if err != nil {
					return nil, nil, err
				}
				servers = append(servers, srv)
				return srv, &g.clock, nil
			},
			newClient: func(i, _ int, now time.Time) (netmodel.Client, error) {
				return interp.NewClient(cfg, games[i].Objects(), now)
			},
			snapshots: func(i int) uint64 { return servers[i].Counters().Packets },
		}
		r, err := runServerBench(ctx, o, model, cmp.Or(o.matches, serverBenchDefaultMatches["interp"]), overhead)
		if err != nil {
			return err
		}
		rows = append(rows, row{clients, r})
	}
	w := o.stdout
	fmt.Fprintf(w, "\ninterp: the cube world (cubes900, the scripted minute from its start) at %d pps to N clients; the server steps the world once a tick and codes a snapshot per client (%v)\n",
		cfg.PPS, "range coded, stage 9")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "servers\tclients\tµs/client/snapshot (encoding)\tsimulation µs/tick\tµs/server-tick mean\tp99\tallocs/tick\tB alloc/tick\tclients/core at 30 pps besides the simulation\tKiB/server built\tafter play\tkbps/client down\tup\t")
	for _, x := range rows {
		r := x.r
		mean, p99, _ := perTickStats(r.perMatchTick)
		var total time.Duration
		for _, f := range r.frameTotals {
			total += f
		}
		enc := total - r.sim
		perSnap := float64(enc) / float64(max(r.snapshots, 1))
		simTick := float64(r.sim) / float64(r.ticks*r.matches)
		// One core at PPS: what the simulation leaves of each second, over
		// the encoding's CPU per client per second.
		left := o.headroom*float64(time.Second) - simTick*60
		secs := float64(r.ticks) / 60
		kbps := func(b uint64) float64 { return float64(b) * 8 / 1000 / secs / float64(r.matches*x.clients) }
		fmt.Fprintf(tw, "%d\t%d\t%.2f\t%.0f\t%.0f\t%.0f\t%.1f\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t\n",
			r.matches, x.clients, perSnap/1000, simTick/1000, us(mean), us(p99),
			float64(r.mallocs)/float64(r.ticks), float64(r.allocBytes)/float64(r.ticks),
			left/(perSnap*float64(cfg.PPS)), float64(r.memBuilt)/1024, float64(r.memPlayed)/1024,
			kbps(r.downBytes), kbps(r.upBytes))
	}
	tw.Flush()
	fmt.Fprintf(w, "  encoding: the servers' Update CPU less the world's Step and Capture, per packet sent; clients/core: %.0f %% of a core less the simulation, over the encoding per client.\n", 100*o.headroom)
	return nil
}
