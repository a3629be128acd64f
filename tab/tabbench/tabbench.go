// Package tabbench measures what a model's client costs per frame, the
// same code natively and in a browser tab: `netphys bench tab` runs
// Run in its own process and the tab's wasm program runs it in headless
// chromium (the page's ?mode=bench), and prints both.
//
// A Case is one model's match in virtual time (simmatch: the server and
// every client in one process, over a simulated 100 ms round trip with
// 1 % loss, so that rollback and prediction have something to correct).
// Only the first client is timed: the time of its Receive and Update
// calls, summed over each 60 Hz frame (one tick of its world, plus the
// ticks a rollback or a reconciliation simulates again). The other
// clients and the server run untimed.
//
// The clock is cpuclock's: natively the thread's CPU time, which a busy
// machine running someone else does not inflate; in a tab there is no
// such clock, and it is the wall time of the browser's performance.now(),
// which chromium rounds to 100 µs outside a cross-origin-isolated page (a
// frame's figure is that coarse, a mean over hundreds of frames is not)
// and which counts the time the machine gave to other processes.
package tabbench

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/netphys/netphys/internal/cpuclock"
	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
)

// Players is how many players each case's match has.
const Players = 2

// conditions are the simulated network's, each way: 100 ms round trip,
// 1 % loss.
var conditions = netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.01}

// Case is one model's client in one world.
type Case struct {
	Name string // "lockstep-tower20": no spaces, a flag's value
	// start builds the match's server and clients, the timed one first.
	start func() (server netmodel.Server, clients []netmodel.Client, ticks func() int, err error)
}

// Cases are the clients the report measures: lockstep in the tower world
// with input delay, lockstep in the 900-cube world with rollback, and
// predict in the arena.
var Cases = []Case{
	{"lockstep-tower20", lockstepCase(scene.Tower20, lockstep.DefaultConfig)},
	{"lockstep-cubes900-rollback", lockstepCase(scene.Cubes900, lockstep.DefaultRollbackConfig)},
	{"predict-arena", predictCase},
}

// Lookup returns the case named name.
func Lookup(name string) (Case, error) {
	for _, c := range Cases {
		if c.Name == name {
			return c, nil
		}
	}
	return Case{}, fmt.Errorf("tabbench: no case %q", name)
}

func lockstepCase(layout scene.Layout, config func() lockstep.Config) func() (netmodel.Server, []netmodel.Client, func() int, error) {
	return func() (netmodel.Server, []netmodel.Client, func() int, error) {
		cfg := config()
		cfg.Players = Players
		srv, err := lockstep.NewServer[scene.Input](cfg, simmatch.Epoch)
		if err != nil {
			return nil, nil, nil, err
		}
		var clients []netmodel.Client
		var first *lockstep.Client[scene.Input, *scene.Input]
		for range Players {
			game, err := scene.NewLockstep(layout, scene.DefaultConfig(), Players)
			if err != nil {
				return nil, nil, nil, err
			}
			c, err := lockstep.NewClient[scene.Input](cfg, game, scene.LockstepBot(), simmatch.Epoch)
			if err != nil {
				return nil, nil, nil, err
			}
			if first == nil {
				first = c
			}
			clients = append(clients, c)
		}
		// The ticks the client simulated: its next tick, and the ones it
		// simulated again.
		ticks := func() int { return int(first.Tick()) + int(first.Stats().Resimulated) }
		return srv, clients, ticks, nil
	}
}

func predictCase() (netmodel.Server, []netmodel.Client, func() int, error) {
	cfg := predict.DefaultConfig()
	acfg := scene.DefaultArenaConfig(cfg.TickRate)
	acfg.Players = Players
	world, err := scene.NewArena(acfg)
	if err != nil {
		return nil, nil, nil, err
	}
	srv, err := predict.NewServer[scene.ArenaInput](cfg, world, simmatch.Epoch)
	if err != nil {
		return nil, nil, nil, err
	}
	var clients []netmodel.Client
	var first *predict.Client[scene.ArenaInput, *scene.ArenaInput]
	for p := range Players {
		a, err := scene.NewArena(acfg)
		if err != nil {
			return nil, nil, nil, err
		}
		c, err := predict.NewClient[scene.ArenaInput](cfg, a, scene.NewBot(p, 1, acfg).Input, simmatch.Epoch)
		if err != nil {
			return nil, nil, nil, err
		}
		if first == nil {
			first = c
		}
		clients = append(clients, c)
	}
	ticks := func() int { return int(first.Tick()) + int(first.Stats().ResimTicks) }
	return srv, clients, ticks, nil
}

// Config is one Run's length.
type Config struct {
	// Warmup is the virtual time played before the frames are timed
	// (the session's start, the worlds settling).
	Warmup time.Duration
	// Frames is how many 60 Hz frames are timed.
	Frames int
	// FirstTick, when set, is called once the timed client has
	// simulated its world's first tick: the tab's load time ends there.
	FirstTick func()
	// Timing, when set, is called right before the timed frames (true)
	// and right after them (false): the tab pauses there so that the
	// worker's CPU time can be read from outside.
	Timing func(on bool)
}

// Result is what a Run measured of the timed client.
type Result struct {
	Case   string        `json:"case"`
	Clock  string        `json:"clock"` // cpuclock.Name: thread CPU time or wall time
	Frames int           `json:"frames"`
	Ticks  int           `json:"ticks"` // simulated in the timed frames, again after a rollback included
	Mean   time.Duration `json:"mean"`  // per frame
	Median time.Duration `json:"median"`
	P99    time.Duration `json:"p99"`
	Max    time.Duration `json:"max"`
	// Span is the Clock's time over the timed frames, every side of the
	// match included (the server, the other clients, the simulator).
	Span time.Duration `json:"span"`
}

// PerTick is the mean time per simulated tick.
func (r Result) PerTick() time.Duration {
	if r.Ticks == 0 {
		return 0
	}
	return r.Mean * time.Duration(r.Frames) / time.Duration(r.Ticks)
}

// Run plays the case's match for cfg.Warmup and cfg.Frames frames and
// returns what its first client cost.
func Run(c Case, cfg Config) (Result, error) {
	if cfg.Frames < 1 || cfg.Warmup < 0 {
		return Result{}, fmt.Errorf("tabbench: %d frames after %v of warmup: want 1 frame or more, a warmup of 0 or more", cfg.Frames, cfg.Warmup)
	}
	runtime.LockOSThread() // the thread's CPU clock measures this goroutine
	defer runtime.UnlockOSThread()
	srv, clients, ticks, err := c.start()
	if err != nil {
		return Result{}, fmt.Errorf("tabbench: %s: %w", c.Name, err)
	}
	frame := time.Second / 60
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 1, Conditions: conditions}, Frame: frame}, srv)
	if err != nil {
		return Result{}, err
	}
	t := &timed{Client: clients[0], ticks: ticks, first: cfg.FirstTick}
	if _, err := m.Join(t); err != nil {
		return Result{}, err
	}
	for _, cl := range clients[1:] {
		if _, err := m.Join(cl); err != nil {
			return Result{}, err
		}
	}
	if err := m.Run(cfg.Warmup); err != nil {
		return Result{}, fmt.Errorf("tabbench: %s: warmup: %w", c.Name, err)
	}
	t.frames = make([]time.Duration, 0, cfg.Frames+1)
	t.timing = true
	before := ticks()
	if cfg.Timing != nil {
		cfg.Timing(true)
	}
	start := cpuclock.Now()
	if err := m.Run(time.Duration(cfg.Frames) * frame); err != nil {
		return Result{}, fmt.Errorf("tabbench: %s: %w", c.Name, err)
	}
	span := cpuclock.Now() - start
	if cfg.Timing != nil {
		cfg.Timing(false)
	}
	r := Result{Case: c.Name, Clock: cpuclock.Name, Frames: len(t.frames), Ticks: ticks() - before, Span: span}
	if r.Frames == 0 {
		return r, fmt.Errorf("tabbench: %s: no frame timed", c.Name)
	}
	var sum time.Duration
	for _, d := range t.frames {
		sum += d
	}
	r.Mean = sum / time.Duration(r.Frames)
	slices.Sort(t.frames)
	r.Median = t.frames[(r.Frames-1)/2]
	r.P99 = t.frames[(r.Frames*99+99)/100-1] // the smallest that 99 % of the frames do not exceed
	r.Max = t.frames[r.Frames-1]
	return r, nil
}

// timed is a client whose Receive and Update calls are timed, summed
// over each frame (a frame ends with its Update).
type timed struct {
	netmodel.Client
	ticks  func() int
	first  func() // called once ticks is above 0
	timing bool
	frame  time.Duration
	frames []time.Duration
}

func (t *timed) Receive(now time.Time, datagram []byte) error {
	start := cpuclock.Now()
	err := t.Client.Receive(now, datagram)
	t.frame += cpuclock.Now() - start
	return err
}

func (t *timed) Update(now time.Time, send func([]byte)) error {
	start := cpuclock.Now()
	err := t.Client.Update(now, send)
	t.frame += cpuclock.Now() - start
	if t.first != nil && t.ticks() > 0 {
		t.first()
		t.first = nil
	}
	if t.timing {
		t.frames = append(t.frames, t.frame)
	}
	t.frame = 0
	return err
}
