package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/netphys/netphys/internal/cubegames"
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/lockstep/replay"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
)

// replay --http: the replay in the viewer. The page's keys drive the
// playback: space pauses and resumes, up and down double and halve the
// speed (0.25x to 8x), left and right seek 10 s back and forth, z goes
// back to the start. A lockstep replay seeks by loading the state the
// playback saved at the last multiple of 10 s before the target and
// re-simulating from there; a snapshot replay by decoding from the
// keyframe before it (replay_snap.go). Both play through playbackState.

var replayControls = []viewer.Control{
	{Keys: []string{"space"}, Does: "pause / play"},
	{Keys: []string{"up", "down"}, Does: "speed ×2 / ÷2"},
	{Keys: []string{"left", "right"}, Does: "seek −10 s / +10 s"},
	{Keys: []string{"z"}, Does: "back to the start"},
}

// replaySaveEvery is how often the playback saves the world for seeking.
const replaySaveEvery = 10 * time.Second

// playable is a replay the viewer plays, tick by tick.
type playable interface {
	Tick() int64  // the tick shown
	Start() int64 // the first tick
	Ticks() int64 // the last tick
	Done() bool
	Step() error
	SeekTick(tick int64) error
}

// lockstepPlayable is a lockstep replay re-simulated.
type lockstepPlayable struct {
	p *replay.Playback[scene.Input]
}

func (l lockstepPlayable) Tick() int64  { return int64(l.p.Tick()) }
func (l lockstepPlayable) Start() int64 { return 0 }
func (l lockstepPlayable) Ticks() int64 { return int64(l.p.Ticks()) }
func (l lockstepPlayable) Done() bool   { return l.p.Done() }

// Step steps the next tick; a checksum that differs is kept (Checked)
// and shown, and the playback goes on.
func (l lockstepPlayable) Step() error {
	_, err := l.p.Step()
	var mismatch *replay.MismatchError
	if errors.As(err, &mismatch) {
		return nil
	}
	return err
}

// SeekTick seeks; the playback saved the state at tick 0 before its
// first step, so seeking back always finds a saved state.
func (l lockstepPlayable) SeekTick(t int64) error {
	return l.p.Seek(lockstep.Tick(t), func() (lockstep.Game[scene.Input], error) {
		return nil, errors.New("replay: no state saved to seek back to")
	})
}

// playbackState is the viewer's playback: where, how fast, paused.
type playbackState struct {
	p      playable
	speed  float64
	paused bool
	due    float64 // ticks owed to the wall clock, fractional
	held   viewer.Input
	step   int64 // 10 s in ticks
}

// keys applies the keys pressed since the last call (a key held down
// acts once).
func (s *playbackState) keys(in viewer.Input) error {
	pressed := in &^ s.held
	s.held = in
	if pressed.Has(viewer.KeySpace) {
		s.paused = !s.paused
	}
	if pressed.Has(viewer.KeyUp) {
		s.speed = min(8, s.speed*2)
	}
	if pressed.Has(viewer.KeyDown) {
		s.speed = max(0.25, s.speed/2)
	}
	to, seek := int64(0), true
	switch {
	case pressed.Has(viewer.KeyZ):
		to = s.p.Start()
	case pressed.Has(viewer.KeyLeft):
		to = max(s.p.Start(), s.p.Tick()-s.step)
	case pressed.Has(viewer.KeyRight):
		to = min(s.p.Tick()+s.step, s.p.Ticks())
	default:
		seek = false
	}
	if seek {
		s.due = 0
		return s.p.SeekTick(to)
	}
	return nil
}

// advance steps the ticks due after elapsed wall time.
func (s *playbackState) advance(elapsed time.Duration, tick time.Duration) error {
	if s.paused || s.p.Done() {
		return nil
	}
	s.due += s.speed * elapsed.Seconds() / tick.Seconds()
	for n := 0; s.due >= 1 && !s.p.Done() && n < 32; n++ {
		if err := s.p.Step(); err != nil {
			return err
		}
		s.due--
	}
	s.due = min(s.due, 1) // a slow machine plays slower, never in bursts
	return nil
}

// state says whether the playback plays, is paused or at its end.
func (s *playbackState) state() string {
	switch {
	case s.p.Done():
		return "end"
	case s.paused:
		return "paused"
	}
	return "playing"
}

// showReplay serves the viewer on addr and plays s in it until ctx ends;
// frame returns the view of the tick shown and the replay's own figures
// (its description first), given the playback's state.
func showReplay(ctx context.Context, w io.Writer, addr string, s *playbackState, tick time.Duration, frame func(state string) (viewer.View, []viewer.Figure)) error {
	v, url, stop, err := startViewer(addr)
	if err != nil {
		return err
	}
	defer stop()
	v.SetControls(replayControls)
	fmt.Fprintf(w, "netphys replay: open %s in a browser (space pause, up/down speed, left/right seek 10 s, z restart; Ctrl-C ends)\n", url)
	ticker := time.NewTicker(time.Second / 60)
	defer ticker.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-ticker.C:
			if err := s.keys(v.Input()); err != nil {
				return err
			}
			if err := s.advance(now.Sub(last), tick); err != nil {
				return err
			}
			last = now
			view, own := frame(s.state())
			figs := append(own[:1:1],
				viewer.Figure{Name: "time", Value: float64(s.p.Tick()-s.p.Start()) * tick.Seconds(), Unit: "s"},
				viewer.Figure{Name: "of", Value: float64(s.p.Ticks()-s.p.Start()) * tick.Seconds(), Unit: "s"},
				viewer.Figure{Name: "tick", Value: float64(s.p.Tick())},
				viewer.Figure{Name: "speed", Value: s.speed, Unit: "x"},
			)
			if err := v.Publish(viewer.Frame{Views: []viewer.View{view}, Figures: append(figs, own[1:]...)}); err != nil {
				return err
			}
		}
	}
}

// playReplay plays a lockstep replay in the viewer.
func playReplay(ctx context.Context, w io.Writer, rep *replay.Replay[scene.Input], addr string, speed float64) error {
	world, err := newCubeWorld(rep.Header)
	if err != nil {
		return err
	}
	h := rep.Header
	every := lockstep.Tick(replaySaveEvery / h.TickDuration)
	p := replay.NewPlayback(rep, lockstep.Game[scene.Input](world), every)
	s := &playbackState{p: lockstepPlayable{p}, speed: speed, step: int64(every)}
	var cubes []viewer.Cube
	return showReplay(ctx, w, addr, s, h.TickDuration, func(state string) (viewer.View, []viewer.Figure) {
		view := cubegames.SceneView("replay", world.Scene, -1, cubes)
		cubes = view.Cubes
		checked, agreed, first := p.Checked()
		figs := []viewer.Figure{
			{Name: "replay", Text: fmt.Sprintf("%s %s, %d players, %s", h.Game, h.Variant, h.Players, state)},
			{Name: "checksums agree", Text: fmt.Sprintf("%d of %d", agreed, checked)},
		}
		if first != nil {
			figs = append(figs, viewer.Figure{Name: "first differing tick", Value: float64(first.Tick)})
		}
		return view, figs
	})
}
