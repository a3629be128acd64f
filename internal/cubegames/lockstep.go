package cubegames

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
)

// Lockstep registers deterministic lockstep (package netmodel/lockstep)
// over the cube world (scene.Lockstep), in the layout --layout names.
func init() {
	match.Register(&match.Model{
		Name:    "lockstep",
		Summary: "deterministic lockstep: only inputs cross the network, every player steps the same world",
		Flags:   lockstepFlags,
		Keys:    CubeKeys,
		Records: true,
		// lockstep.NewSpectator: spectators simulate the relayed inputs.
		OwnSpectators: true,
		// The server's limit; the flag error names it before anything starts.
		MaxPlayers: lockstep.MaxPlayers,
	})
}

func lockstepFlags(fs *flag.FlagSet) func() (match.Sides, error) {
	rollback := fs.Bool("rollback", false, "lockstep: GGPO-style rollback (a tick of input delay, missing inputs predicted, re-simulated when wrong)")
	tcp := fs.Bool("tcp", false, "lockstep: send each input once over a model of TCP (the article's baseline) instead of redundant datagrams")
	late := fs.Bool("late-join", false, "lockstep: serve seats a player who connects while the match runs in a free seat (its own if it left it less than 30 s ago), and spectators, from the referee's state, or without one a player's, checked against the checksum all agreed on (players must say it too)")
	refereed := fs.Bool("referee", true, "lockstep: serve runs the world itself and drops the player whose checksum differs from its own; false: the majority of 3 or more players judges, and late joiners and spectators get a player's state, checked against the checksum all agreed on")
	layoutFlag := layoutFlag(fs)
	return func() (match.Sides, error) {
		layout, err := layoutFlag.Models()
		if err != nil {
			return match.Sides{}, err
		}
		cfg := lockstepConfig(*rollback, *tcp)
		if *late {
			if *tcp {
				return match.Sides{}, fmt.Errorf("--late-join needs datagrams, not --tcp")
			}
			cfg.MaxSnapshotBytes = 8 << 20 // the 900-cube world's state is under 1 MB
		}
		return match.Sides{
			NewHost: func(s match.Setup) (match.Host, error) {
				layout, err := matchLayout(layout, s.World)
				if err != nil {
					return nil, err
				}
				c := cfg
				c.Players = s.Players
				srv, err := lockstep.NewServer[scene.Input](c, s.Now)
				if err != nil {
					return nil, err
				}
				if !*refereed {
					if s.Record != "" {
						return nil, fmt.Errorf("--record needs the referee (the server's own world records the match): drop --referee=false")
					}
					return &lockstepHost{Server: srv}, nil
				}
				// The referee: the server steps the cube world itself
				// from the inputs it relays and drops the player whose
				// checksum differs from its own.
				world, err := scene.NewLockstep(layout, scene.DefaultConfig(), s.Players)
				if err != nil {
					return nil, err
				}
				h := &lockstepHost{Server: srv}
				var referee lockstep.Game[scene.Input] = world
				if s.Record != "" {
					if referee, err = h.record(s, c, world, layout, lockstepDescription(*rollback, *tcp, *late)); err != nil {
						return nil, err
					}
				}
				if err := srv.SetReferee(referee); err != nil {
					h.Close()
					return nil, err
				}
				return h, nil
			},
			NewPlayer: func(s match.PlayerSetup) (match.Player, error) { return newLockstepPlayer(cfg, layout, s, s.Spectate) },
			Config:    lockstepDescription(*rollback, *tcp, *late),
			World:     layout.String(),
		}, nil
	}
}

// lockstepConfig is the session the flags choose. Over the TCP model a
// stall of more than 10 s is what the baseline shows, not a dead peer, so
// --tcp takes DefaultStreamConfig's timeout and buffer, with or without
// rollback.
func lockstepConfig(rollback, tcp bool) lockstep.Config {
	cfg := lockstep.DefaultConfig()
	if rollback {
		cfg = lockstep.DefaultRollbackConfig()
	}
	if tcp {
		cfg = cfg.OverStream()
	}
	return cfg
}

// lockstepDescription is what of the flags server and players must agree on.
func lockstepDescription(rollback, tcp, late bool) string {
	d := "pure lockstep"
	if rollback {
		d = "rollback"
	}
	if tcp {
		return d + ", over the TCP model"
	}
	if late {
		return d + ", datagrams, late join"
	}
	return d + ", datagrams"
}

// lockstepHost is the relay and referee; it shows no world.
type lockstepHost struct {
	*lockstep.Server[scene.Input, *scene.Input]
	refusalScrape
	refused []lockstep.Refusal // the server's counters, read every Update
	// With serve --record, the referee's world records the match.
	recorded   *replay.Game[scene.Input, *scene.Input]
	closeFile  func() error
	desyncKept bool
}

// record opens the match's replay in s.Record and returns the referee's
// world wrapped to record every tick it steps (confirmed ticks only). The
// file is written as NAME.part and renamed to NAME when the match ends
// (Close): a host whose match never started leaves no file.
func (h *lockstepHost) record(s match.Setup, cfg lockstep.Config, world *scene.Lockstep, layout scene.Layout, note string) (lockstep.Game[scene.Input], error) {
	name := filepath.Join(s.Record, "lockstep-"+s.Now.UTC().Format("20060102T150405.000")+".replay")
	f, err := os.Create(name + ".part")
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	hd := replay.NewHeader(cfg, scene.ReplayGame, layout.String(), "server")
	hd.Note = note
	w := bufio.NewWriter(f)
	rec, err := replay.NewRecorder[scene.Input](w, hd)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("--record: %w", err)
	}
	h.recorded = rec.Wrap(world)
	h.closeFile = func() error {
		err := errors.Join(rec.Close(), w.Flush(), f.Close())
		if rec.Ticks() == 0 {
			return errors.Join(err, os.Remove(f.Name()))
		}
		if err == nil {
			err = os.Rename(f.Name(), name)
			s.Logger.Info("match recorded", "file", name, "ticks", rec.Ticks(), "bytes", rec.Bytes())
		}
		return err
	}
	return h.recorded, nil
}

// Update runs the server; on a desync of the referee itself, the match's
// replay keeps the referee's state of the failing tick for netphys desync.
func (h *lockstepHost) Update(now time.Time, send func(int, []byte)) error {
	err := h.Server.Update(now, send)
	h.refused = h.Refusals(h.refused[:0])
	keep(&h.refusalScrape, h.refused)
	var d *lockstep.DesyncError
	if h.recorded != nil && errors.As(err, &d) && !h.desyncKept {
		h.desyncKept = true
		if kerr := h.recorded.Desync(d.Tick, d.Error()); kerr != nil {
			return errors.Join(err, kerr)
		}
	}
	return err
}

// Close ends the match's replay, if it records one.
func (h *lockstepHost) Close() error {
	if h.closeFile == nil {
		return nil
	}
	err := h.closeFile()
	h.closeFile = nil
	return err
}

func (h *lockstepHost) Views(dst []viewer.View) []viewer.View { return dst }

func (h *lockstepHost) Figures(now time.Time, dst []viewer.Figure) []viewer.Figure {
	st := h.Stats(now)
	return append(dst,
		viewer.Figure{Name: "session tick", Value: float64(st.Tick)},
		viewer.Figure{Name: "ticks verified", Value: float64(st.Verified)},
	)
}

func (h *lockstepHost) Summary(now time.Time, dst []match.Line) []match.Line {
	st := h.Stats(now)
	state := "ended"
	if st.Running {
		state = "running"
	}
	dst = append(dst,
		match.Line{Name: "session", Value: fmt.Sprintf("tick %d, %s", st.Tick, state)},
		match.Line{Name: "checksums", Value: fmt.Sprintf("%d ticks verified equal across players, %d unverified", st.Verified, st.Unverified)},
	)
	if st.LateJoins > 0 || st.Watchers > 0 || st.WatchersDropped > 0 {
		v := fmt.Sprintf("%d players seated while running, %d spectators (%d dropped)", st.LateJoins, st.Watchers, st.WatchersDropped)
		if st.SnapshotRequests > 0 {
			v += fmt.Sprintf("; %d states asked of players, %d failed, %d found wrong by the joiner", st.SnapshotRequests, st.SnapshotFailures, st.BadSnapshots)
		}
		dst = append(dst, match.Line{Name: "late join", Value: v})
	}
	if st.Refereed {
		dst = append(dst, match.Line{Name: "referee", Value: fmt.Sprintf("the server's own world judges the checksums; simulated up to tick %d", st.RefereeTick)})
	} else {
		dst = append(dst, match.Line{Name: "referee", Value: "none: the majority of the players judges the checksums"})
	}
	if st.Disconnected > 0 {
		var reasons []string
		for r, n := range st.Drops {
			if n > 0 {
				reasons = append(reasons, fmt.Sprintf("%v %d", lockstep.Reason(r), n))
			}
		}
		dst = append(dst, match.Line{Name: "dropped", Value: strings.Join(reasons, ", ")})
	}
	if st.Desync != nil {
		dst = append(dst, match.Line{Name: "desync", Value: st.Desync.Error()})
	}
	return dst
}

// lockstepPlayer is one player: a lockstep client stepping its own copy of
// the cube world.
type lockstepPlayer struct {
	*lockstep.Client[scene.Input, *scene.Input]
	game  *recorder
	ticks int // PlayerSetup.Ticks
	cubes []viewer.Cube
	// rollbacks per second, over the last second
	rateAt    time.Time
	rateFrom  uint64
	rollbacks float64
}

func newLockstepPlayer(cfg lockstep.Config, layout scene.Layout, s match.PlayerSetup, spectate bool) (match.Player, error) {
	cfg.Players = s.Players
	world, err := scene.NewLockstep(layout, scene.DefaultConfig(), s.Players)
	if err != nil {
		return nil, err
	}
	p := &lockstepPlayer{game: &recorder{Lockstep: world, at: s.Ticks, lie: -1}, ticks: s.Ticks}
	if at := os.Getenv("NETPHYS_TEST_LIE_AT"); at != "" {
		// A hostile player for the process tests: it reports a false
		// checksum of this tick (its world stays honest).
		if p.game.lie, err = strconv.Atoi(at); err != nil {
			return nil, fmt.Errorf("NETPHYS_TEST_LIE_AT=%q: %w", at, err)
		}
	}
	// The input of tick t is sampled once, when the session clock reaches
	// it, by which time the server has named the player.
	controls := newCubeControls(s)
	input := func(t lockstep.Tick, v *lockstep.View) scene.Input { return controls.Input(v.Player, int(t)) }
	if spectate {
		p.Client, err = lockstep.NewSpectator[scene.Input](cfg, lockstep.Game[scene.Input](p.game), s.Now)
	} else {
		p.Client, err = lockstep.NewClient[scene.Input](cfg, lockstep.Game[scene.Input](p.game), input, s.Now)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (p *lockstepPlayer) Views(dst []viewer.View) []viewer.View {
	v := SceneView("", p.game.Scene, p.Player(), p.cubes)
	p.cubes = v.Cubes
	return append(dst, v)
}

func (p *lockstepPlayer) Figures(now time.Time, dst []viewer.Figure) []viewer.Figure {
	st := p.Stats()
	if p.rateAt.IsZero() {
		p.rateAt, p.rateFrom = now, st.Rollbacks
	} else if d := now.Sub(p.rateAt); d >= time.Second {
		p.rollbacks = float64(st.Rollbacks-p.rateFrom) / d.Seconds()
		p.rateAt, p.rateFrom = now, st.Rollbacks
	}
	return append(dst,
		viewer.Figure{Name: "tick", Value: float64(st.Tick)},
		viewer.Figure{Name: "input delay", Value: ms(st.InputDelay), Unit: "ms"},
		viewer.Figure{Name: "stalled frames", Value: float64(st.Stalled)},
		viewer.Figure{Name: "rollbacks", Value: p.rollbacks, Unit: "/s"},
		viewer.Figure{Name: "rtt", Value: ms(st.RTT), Unit: "ms"},
		viewer.Figure{Name: "loss", Value: 100 * st.Loss, Unit: "%"},
	)
}

func (p *lockstepPlayer) Summary(_ time.Time, dst []match.Line) []match.Line {
	st := p.Stats()
	dst = append(dst,
		match.Line{Name: "session seat", Value: fmt.Sprintf("%d (lockstep's index, from 0)", st.Player)},
		match.Line{Name: "ticks", Value: fmt.Sprintf("%d simulated; every player's input known up to tick %d (the input delay ahead)", st.Tick, st.Confirmed)},
	)
	if p.game.have {
		dst = append(dst, match.Line{Name: "checksum", Value: fmt.Sprintf("tick %d %#016x", p.game.at, p.game.sum)})
	}
	dst = append(dst,
		match.Line{Name: "input delay", Value: fmt.Sprintf("%v now, %v target", st.InputDelay.Round(time.Millisecond), st.TargetDelay.Round(time.Millisecond))},
		match.Line{Name: "stalls", Value: fmt.Sprintf("%d stalled frames, longest %v", st.Stalled, st.LongestStall.Round(time.Millisecond))},
		match.Line{Name: "rollbacks", Value: fmt.Sprintf("%d, %d ticks re-simulated (at most %d in one frame)", st.Rollbacks, st.Resimulated, st.MaxResimulated)},
		match.Line{Name: "packets", Value: fmt.Sprintf("%.1f bytes mean, %d max (payload), %d dropped, %d rejected", meanBytes(st.BytesSent, st.PacketsSent), st.MaxPacket, st.Dropped, st.Rejected)},
	)
	return dst
}

// Done: the world after tick Ticks is final once every input before it is
// known, and the Update that learnt the last of them has re-simulated
// whatever it had predicted wrong.
func (p *lockstepPlayer) Done() bool {
	return p.ticks > 0 && p.game.have && int(p.Stats().Confirmed) >= p.ticks
}

// Checksum reports the newest checksum the client sent the server: every
// ChecksumEvery-th tick, once all of its inputs were known.
func (p *lockstepPlayer) Checksum() (int, uint64, bool) {
	st := p.Stats()
	return int(st.LastChecksumTick), uint64(st.LastChecksum), st.Checksums > 0
}

// recorder is the cube world with a tick count, which it saves and loads
// with the world, so that it can keep the checksum of the world after
// tick at: the last one computed, which a rollback re-computes.
type recorder struct {
	*scene.Lockstep
	tick  int
	saved []int
	at    int
	sum   uint64
	have  bool
	lie   int // report a false checksum of this tick (tests); -1: never
}

func (r *recorder) Checksum() uint64 {
	if r.tick-1 == r.lie {
		return ^r.Lockstep.Checksum()
	}
	return r.Lockstep.Checksum()
}

func (r *recorder) Step(inputs []scene.Input) {
	r.Lockstep.Step(inputs)
	r.tick++
	if r.tick == r.at {
		r.sum, r.have = r.Lockstep.Checksum(), true
	}
}

func (r *recorder) Save(slot int) {
	r.Lockstep.Save(slot)
	for len(r.saved) <= slot {
		r.saved = append(r.saved, 0)
	}
	r.saved[slot] = r.tick
}

// UnmarshalState restores a late joiner's world and its tick count: the
// world's physics tick, one more than the last lockstep tick stepped.
func (r *recorder) UnmarshalState(b []byte) error {
	if err := r.Lockstep.UnmarshalState(b); err != nil {
		return err
	}
	r.tick = int(r.Scene.World.Tick())
	return nil
}

func (r *recorder) Load(slot int) {
	r.Lockstep.Load(slot)
	r.tick = r.saved[slot]
}

func meanBytes(bytes, packets uint64) float64 {
	if packets == 0 {
		return 0
	}
	return float64(bytes) / float64(packets)
}
