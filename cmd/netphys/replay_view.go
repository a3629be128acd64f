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
// back to the start. Seeking loads the state the playback saved at the
// last multiple of 10 s before the target and re-simulates from there.

var replayControls = []viewer.Control{
	{Keys: []string{"space"}, Does: "pause / play"},
	{Keys: []string{"up", "down"}, Does: "speed ×2 / ÷2"},
	{Keys: []string{"left", "right"}, Does: "seek −10 s / +10 s"},
	{Keys: []string{"z"}, Does: "back to the start"},
}

// replaySaveEvery is how often the playback saves the world for seeking.
const replaySaveEvery = 10 * time.Second

// playbackState is the viewer's playback: where, how fast, paused.
type playbackState struct {
	p      *replay.Playback[scene.Input]
	world  *scene.Lockstep
	speed  float64
	paused bool
	due    float64 // ticks owed to the wall clock, fractional
	held   viewer.Input
	step   lockstep.Tick // 10 s in ticks
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
	to := lockstep.Tick(-1)
	switch {
	case pressed.Has(viewer.KeyZ):
		to = 0
	case pressed.Has(viewer.KeyLeft):
		to = max(0, s.p.Tick()-s.step)
	case pressed.Has(viewer.KeyRight):
		to = s.p.Tick() + s.step
	}
	if to >= 0 {
		s.due = 0
		// The playback saved the state at tick 0 before its first step,
		// so seeking back always finds a saved state.
		return s.p.Seek(min(to, s.p.Ticks()), func() (lockstep.Game[scene.Input], error) {
			return nil, errors.New("replay: no state saved to seek back to")
		})
	}
	return nil
}

// advance steps the ticks due after elapsed wall time.
func (s *playbackState) advance(elapsed time.Duration, tick time.Duration) {
	if s.paused || s.p.Done() {
		return
	}
	s.due += s.speed * elapsed.Seconds() / tick.Seconds()
	for n := 0; s.due >= 1 && !s.p.Done() && n < 32; n++ {
		s.p.Step()
		s.due--
	}
	s.due = min(s.due, 1) // a slow machine plays slower, never in bursts
}

func playReplay(ctx context.Context, w io.Writer, rep *replay.Replay[scene.Input], addr string, speed float64) error {
	world, err := newCubeWorld(rep.Header)
	if err != nil {
		return err
	}
	h := rep.Header
	every := lockstep.Tick(replaySaveEvery / h.TickDuration)
	s := &playbackState{
		p:     replay.NewPlayback(rep, lockstep.Game[scene.Input](world), every),
		world: world, speed: speed, step: every,
	}
	v, url, stop, err := startViewer(addr)
	if err != nil {
		return err
	}
	defer stop()
	v.SetControls(replayControls)
	fmt.Fprintf(w, "netphys replay: open %s in a browser (space pause, up/down speed, left/right seek 10 s, z restart; Ctrl-C ends)\n", url)
	frame := time.NewTicker(time.Second / 60)
	defer frame.Stop()
	last := time.Now()
	var cubes []viewer.Cube
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-frame.C:
			if err := s.keys(v.Input()); err != nil {
				return err
			}
			s.advance(now.Sub(last), h.TickDuration)
			last = now
			view := cubegames.SceneView("replay", world.Scene, -1, cubes)
			cubes = view.Cubes
			checked, agreed, first := s.p.Checked()
			state := "playing"
			switch {
			case s.p.Done():
				state = "end"
			case s.paused:
				state = "paused"
			}
			figs := []viewer.Figure{
				{Name: "replay", Text: fmt.Sprintf("%s %s, %d players, %s", h.Game, h.Variant, h.Players, state)},
				{Name: "time", Value: float64(s.p.Tick()) * h.TickDuration.Seconds(), Unit: "s"},
				{Name: "of", Value: rep.Seconds(), Unit: "s"},
				{Name: "tick", Value: float64(s.p.Tick())},
				{Name: "speed", Value: s.speed, Unit: "x"},
				{Name: "checksums agree", Text: fmt.Sprintf("%d of %d", agreed, checked)},
			}
			if first != nil {
				figs = append(figs, viewer.Figure{Name: "first differing tick", Value: float64(first.Tick)})
			}
			if err := v.Publish(viewer.Frame{Views: []viewer.View{view}, Figures: figs}); err != nil {
				return err
			}
		}
	}
}
