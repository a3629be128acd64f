package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"sort"
	"time"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/viewer"
	"github.com/netphys/netphys/wire"
)

// Config sets up a demo run.
type Config struct {
	Layout     scene.Layout
	Conditions netsim.Conditions // each way between the two sides
	Seed       uint64            // the network simulator's
	SendRate   int               // full-state snapshots per second, 1 to 60
	Duration   time.Duration     // 0: until the context ends
	// Script, when set, drives the player instead of the viewer's keys.
	Script scene.Script
	// Viewer, when set, receives frames of both worlds and supplies keys.
	Viewer *viewer.Server
	// AutoPlay, with a Viewer and no Script: after this long without a key
	// held, the player follows scene.PlayMinute until a key is pressed, so
	// that a first look shows the world in play. 0: never.
	AutoPlay time.Duration
	// Status receives a line of live figures every StatusEvery; nil: none.
	Status      io.Writer
	StatusEvery time.Duration
	Logger      *slog.Logger
}

// DefaultConfig is the articles' setting: the 900-cube world, 10 Hz state,
// 100 ms latency and 5 % loss each way.
func DefaultConfig() Config {
	return Config{
		Layout:      scene.Cubes900,
		Conditions:  netsim.Conditions{Latency: 100 * time.Millisecond, Loss: 0.05},
		Seed:        1,
		SendRate:    10,
		StatusEvery: time.Second,
	}
}

// Errors of Config.Validate.
var (
	ErrSendRate = errors.New("demo: send rate outside 1 to 60 per second")
	ErrDuration = errors.New("demo: negative duration")
)

// Validate checks cfg before anything starts.
func (cfg *Config) Validate() error {
	if cfg.SendRate < 1 || cfg.SendRate > tickRate {
		return fmt.Errorf("%w: %d", ErrSendRate, cfg.SendRate)
	}
	if cfg.Duration < 0 || cfg.AutoPlay < 0 {
		return fmt.Errorf("%w: duration %v, autoplay %v (0: none)", ErrDuration, cfg.Duration, cfg.AutoPlay)
	}
	return cfg.Conditions.Validate()
}

// Summary is what a run measured.
type Summary struct {
	Duration               time.Duration
	Ticks                  int
	DownKbps, UpKbps       float64 // mean, UDP/IPv4 headers included; down is authority to remote
	PacketsDown, PacketsUp uint64  // datagrams received by the remote side, sent by it
	StateMessagesSent      int
	Loss                   float64       // % of the authority's packets never acked, as its endpoint estimates it
	LossSamples            int           // packets that estimate looked at; 0: no estimate yet
	ProxyLoss              float64       // % of datagrams the network simulator dropped, both ways
	RTT                    time.Duration // mean over the last RTT samples
	MeanError, P95Error    float64       // per-tick mean position error over all bodies, m: mean and 95th percentile over ticks
	MaxError               float64       // worst body, worst tick, m
	MeanMovingError        float64       // per-tick mean over bodies moving on the authority, m (averaged over ticks that had any)
	BadMessages            int           // state messages the remote side could not decode
}

// Print writes the summary as a small table.
func (s Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "demo summary: %v, %d ticks at 60 Hz\n", s.Duration.Round(time.Millisecond), s.Ticks)
	fmt.Fprintf(w, "  bandwidth    down %.1f kbps, up %.1f kbps (UDP/IPv4 headers included)\n", s.DownKbps, s.UpKbps)
	fmt.Fprintf(w, "  packets      %d down, %d up; %d state messages sent\n", s.PacketsDown, s.PacketsUp, s.StateMessagesSent)
	acked := fmt.Sprintf("%.1f %% estimated from acks", s.Loss)
	if s.LossSamples == 0 {
		acked = "no estimate from acks yet"
	}
	fmt.Fprintf(w, "  network      loss %.1f %% dropped by the simulator, %s; RTT %v; %d undecodable messages\n",
		s.ProxyLoss, acked, s.RTT.Round(100*time.Microsecond), s.BadMessages)
	fmt.Fprintf(w, "  position error (remote vs authority, same tick)\n")
	l := lengths(s.MeanError, s.P95Error, s.MaxError, s.MeanMovingError)
	fmt.Fprintf(w, "               all bodies: mean %s, p95 of tick means %s, worst %s\n", l[0], l[1], l[2])
	fmt.Fprintf(w, "               moving bodies: mean %s\n", l[3])
}

// Run runs the demo until cfg.Duration passes or ctx ends, and returns what
// it measured.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	authority, err := scene.New(cfg.Layout, scene.DefaultConfig())
	if err != nil {
		return Summary{}, err
	}
	remote, err := scene.New(cfg.Layout, scene.DefaultConfig())
	if err != nil {
		return Summary{}, err
	}
	l, err := dialLink(ctx, cfg.Conditions, cfg.Seed, log)
	if err != nil {
		return Summary{}, err
	}
	defer l.close()
	log.Info("demo running", "layout", cfg.Layout, "bodies", len(authority.Cubes)+1,
		"latency", cfg.Conditions.Latency, "jitter", cfg.Conditions.Jitter,
		"loss", cfg.Conditions.Loss, "rate_hz", cfg.SendRate, "proxy", l.proxy.Addr())

	r := &run{cfg: cfg, authority: authority, remote: remote, link: l,
		auto:     newAutoPlay(scene.PlayMinute, int(cfg.AutoPlay*tickRate/time.Second)),
		states:   make([]EntityState, len(authority.Cubes)+1),
		lastTick: make([]uint32, len(authority.Cubes)+1),
		buf:      make([]byte, netcode.MaxPayloadBytes)}
	return r.loop(ctx)
}

// run is the state of one demo run, owned by the loop's goroutine.
type run struct {
	cfg               Config
	authority, remote *scene.Scene
	link              *link

	states   []EntityState // scratch for capture
	lastTick []uint32      // per entity, the newest authority tick applied remotely
	buf      []byte
	msg      StateMessage

	auto     autoPlay
	scripted bool // the autoplay has the player this tick

	tick        int
	sent        int
	errMeans    []float64
	errMax      float64
	movingSum   float64
	movingTicks int
	badMessages int
}

// tickRate is the fixed simulation rate, Hz.
const tickRate = 60

// maxStepsPerWake bounds the catch-up after a stall: at most 4 steps per
// wake-up, as in the lockstep article, so a slow machine falls behind
// instead of spiralling.
const maxStepsPerWake = 4

func (r *run) loop(ctx context.Context) (Summary, error) {
	ticker := time.NewTicker(time.Second / tickRate)
	defer ticker.Stop()
	start := time.Now()
	st := status{last: start}
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return r.summary(time.Since(start)), nil
		case now = <-ticker.C:
		}
		elapsed := now.Sub(start)
		if r.cfg.Duration > 0 && elapsed >= r.cfg.Duration {
			return r.summary(elapsed), nil
		}
		due := int(elapsed * tickRate / time.Second)
		for steps := 0; r.tick < due && steps < maxStepsPerWake; steps++ {
			if err := r.step(now, r.sendDue()); err != nil {
				return r.summary(elapsed), err
			}
		}
		if r.cfg.Viewer != nil {
			r.publish()
		}
		if r.cfg.Status != nil && now.Sub(st.last) >= r.cfg.StatusEvery {
			st.print(r, now)
		}
	}
}

// status prints the live figures line.
type status struct {
	last     time.Time
	down, up uint64
}

func (st *status) print(r *run, now time.Time) {
	down, up, _, _ := r.link.traffic()
	secs := now.Sub(st.last).Seconds()
	stats := r.link.serverEnd.Stats()
	loss := fmt.Sprintf("%4.1f %%", stats.PacketLoss)
	if stats.PacketLossSamples == 0 {
		loss = "no estimate yet"
	}
	// Millimetres every second, as on the page: a unit chosen per line
	// would switch mid-run.
	fmt.Fprintf(r.cfg.Status, "tick %6d  down %7.1f kbps  up %5.1f kbps  loss %s  rtt %5.1f ms  error %.2f mm (worst %.2f mm)\n",
		r.tick, float64(down-st.down)*8/1000/secs, float64(up-st.up)*8/1000/secs,
		loss, ms(stats.RTTAvg), 1000*r.errNow(), 1000*r.errMax)
	st.down, st.up, st.last = down, up, now
}

// sendDue reports whether this tick sends the state: SendRate times per
// second on average, spread as evenly as whole ticks allow (every 6th tick
// at 10 Hz, alternately the 8th and 9th at 7 Hz).
func (r *run) sendDue() bool {
	rate := r.cfg.SendRate
	return r.tick == 0 || r.tick*rate/tickRate != (r.tick-1)*rate/tickRate
}

// step advances both worlds one tick and moves the packets between them.
func (r *run) step(now time.Time, sendState bool) error {
	in := r.input()
	r.authority.Step(in)
	if sendState {
		if err := r.sendState(now); err != nil {
			return err
		}
	}
	receive(now, &r.link.fromServer, r.link.clientEnd, r.applyState)
	// The remote side answers every tick with an empty packet: its acks
	// give the authority RTT and loss.
	if err := r.link.sendToAuthority(now, nil); err != nil {
		return err
	}
	receive(now, &r.link.fromClient, r.link.serverEnd, func([]byte) {})
	r.remote.Step(scene.Input{})
	r.measureError()
	r.tick++
	return nil
}

func (r *run) input() scene.Input {
	if r.cfg.Script != nil {
		return r.cfg.Script.At(r.tick)
	}
	if r.cfg.Viewer != nil {
		var in scene.Input
		in, r.scripted = r.auto.input(r.tick, scene.InputFromBits(uint8(r.cfg.Viewer.Input())))
		return in
	}
	return scene.Input{}
}

// errNow returns the mean position error of the last tick, m.
func (r *run) errNow() float64 {
	if n := len(r.errMeans); n > 0 {
		return r.errMeans[n-1]
	}
	return 0
}

// bodyOf returns the body of entity i: 0 the player, i+1 cube i.
func bodyOf(s *scene.Scene, i int) physics.BodyID {
	if i == 0 {
		return s.Player
	}
	return s.Cubes[i-1]
}

// sendState captures every body of the authority and sends it in as many
// packets as it takes.
func (r *run) sendState(now time.Time) error {
	for i := range r.states {
		st := r.authority.State(bodyOf(r.authority, i))
		r.states[i] = EntityState{
			Index:       i,
			State:       clampState(wire.BodyState(st)),
			Interacting: i > 0 && r.authority.Interacting(i-1),
		}
	}
	return packStates(uint32(r.tick), r.states, maxMessageBytes, r.buf, func(b []byte) error {
		r.sent++
		return r.link.sendToRemote(now, b)
	})
}

// applyState writes a received message into the remote world. Messages
// older than what an entity already has are ignored, so reordering never
// moves a body back in time.
func (r *run) applyState(payload []byte) {
	r.msg.Entities = r.msg.Entities[:0]
	if err := r.msg.Serialize(wire.NewReader(payload)); err != nil {
		r.badMessages++ // dropped whole: nothing partial is applied
		return
	}
	for _, e := range r.msg.Entities {
		if e.Index >= len(r.lastTick) || r.msg.Tick < r.lastTick[e.Index] {
			continue
		}
		r.lastTick[e.Index] = r.msg.Tick
		st := e.State
		err := r.remote.World.SetState(bodyOf(r.remote, e.Index), physics.BodyState(st))
		if err != nil {
			continue
		}
		if e.Index > 0 {
			r.remote.SetInteracting(e.Index-1, e.Interacting)
		}
	}
}

// measureError compares every body's position in the two worlds.
func (r *run) measureError() {
	var sum, movingSum float64
	moving := 0
	n := len(r.states)
	for i := 0; i < n; i++ {
		a := r.authority.State(bodyOf(r.authority, i))
		b := r.remote.State(bodyOf(r.remote, i))
		d := a.Position.Sub(b.Position).Length()
		sum += d
		r.errMax = math.Max(r.errMax, d)
		if !a.AtRest {
			movingSum += d
			moving++
		}
	}
	r.errMeans = append(r.errMeans, sum/float64(n))
	if moving > 0 {
		r.movingSum += movingSum / float64(moving)
		r.movingTicks++
	}
}

func (r *run) summary(d time.Duration) Summary {
	down, up, pd, pu := r.link.traffic()
	s := Summary{
		Duration: d, Ticks: r.tick, PacketsDown: pd, PacketsUp: pu, StateMessagesSent: r.sent,
		Loss: r.link.serverEnd.Stats().PacketLoss, LossSamples: r.link.serverEnd.Stats().PacketLossSamples,
		RTT:      r.link.serverEnd.Stats().RTTAvg,
		MaxError: r.errMax, BadMessages: r.badMessages,
	}
	if c := r.link.proxy.Counters(); c.Sent > 0 {
		s.ProxyLoss = 100 * float64(c.Lost) / float64(c.Sent)
	}
	if secs := d.Seconds(); secs > 0 {
		s.DownKbps, s.UpKbps = float64(down)*8/1000/secs, float64(up)*8/1000/secs
	}
	if len(r.errMeans) > 0 {
		sorted := append([]float64(nil), r.errMeans...)
		sort.Float64s(sorted)
		total := 0.0
		for _, e := range sorted {
			total += e
		}
		s.MeanError = total / float64(len(sorted))
		s.P95Error = sorted[len(sorted)*95/100]
	}
	if r.movingTicks > 0 {
		s.MeanMovingError = r.movingSum / float64(r.movingTicks)
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
