package viewer_test

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/netphys/netphys/viewer"
)

// testWorld is the test fixture standing in for the demo: a 30 × 30 grid
// of 1 m cubes and a 1.5 m player cube in front of it that slides 0.1 m per
// tick along the arrows held, kept in front of the grid (a test that holds
// a key on a loaded machine must not send it out of the picture). Cubes within 6 m of the player are
// interacting (red), cubes farther than 12 m are at rest. The "remote" view
// is the authority delayed by remoteDelay ticks, like a networked copy.
// Everything is a function of the inputs, so the pictures are reproducible.
type testWorld struct {
	mu      sync.Mutex
	tick    int
	player  [3]float32   // authority player centre, m
	history [][3]float32 // player centre at each of the last remoteDelay+1 ticks
	seen    viewer.Input // union of every input the world stepped with
}

const (
	gridSide    = 30
	gridPitch   = 1.6 // m between cube centres
	remoteDelay = 6   // ticks, 100 ms at 60 Hz
	playerStep  = 0.1 // m per tick
	playerRange = 6.0 // m: the player stays within ±playerRange in x, in front of the grid
	gridEdge    = (gridSide - 1) / 2.0 * gridPitch
)

func newTestWorld() *testWorld {
	w := &testWorld{player: [3]float32{-10, 0.75, 26}}
	w.history = append(w.history, w.player)
	return w
}

// step advances one tick with in.
func (w *testWorld) step(in viewer.Input) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tick++
	w.seen |= in
	if in.Has(viewer.KeyLeft) {
		w.player[0] = max(w.player[0]-playerStep, -playerRange)
	}
	if in.Has(viewer.KeyRight) {
		w.player[0] = min(w.player[0]+playerStep, playerRange)
	}
	if in.Has(viewer.KeyUp) {
		w.player[2] = max(w.player[2]-playerStep, gridEdge+2)
	}
	if in.Has(viewer.KeyDown) {
		w.player[2] += playerStep
	}
	w.history = append(w.history, w.player)
	if len(w.history) > remoteDelay+1 {
		w.history = w.history[1:]
	}
}

// inputs returns the union of the inputs stepped with so far.
func (w *testWorld) inputs() viewer.Input {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}

// frame draws both views and the figures.
func (w *testWorld) frame() viewer.Frame {
	w.mu.Lock()
	defer w.mu.Unlock()
	remote := w.history[0]
	errCm := 100 * math.Hypot(float64(w.player[0]-remote[0]), float64(w.player[2]-remote[2]))
	return viewer.Frame{
		Views: []viewer.View{
			{Name: "authority", Cubes: w.cubes(w.player)},
			{Name: "remote", Cubes: w.cubes(remote)},
		},
		Figures: []viewer.Figure{
			{Name: "tick", Value: float64(w.tick)},
			{Name: "up", Value: 41.5, Unit: "kbps"},
			{Name: "down", Value: 2.25, Unit: "kbps"},
			{Name: "loss", Value: 5, Unit: "%"},
			{Name: "RTT", Value: 100, Unit: "ms"},
			{Name: "position error", Value: errCm, Unit: "cm"},
			{Name: "latency", Text: "100 ms each way"},
		},
	}
}

// cubes lays out the grid around a player at p.
func (w *testWorld) cubes(p [3]float32) []viewer.Cube {
	cubes := make([]viewer.Cube, 0, gridSide*gridSide+1)
	for i := range gridSide * gridSide {
		x := float32((float64(i%gridSide) - (gridSide-1)/2.0) * gridPitch)
		z := float32((float64(i/gridSide) - (gridSide-1)/2.0) * gridPitch)
		yaw := 0.35 * math.Sin(float64(i)*1.7) // a little disorder, fixed per cube
		d := math.Hypot(float64(x-p[0]), float64(z-p[2]))
		cubes = append(cubes, viewer.Cube{
			ID:          uint32(i + 1),
			Position:    [3]float32{x, 0.5, z},
			Rotation:    [4]float32{0, float32(math.Sin(yaw / 2)), 0, float32(math.Cos(yaw / 2))},
			HalfExtents: [3]float32{0.5, 0.5, 0.5},
			Interacting: d < 6,
			AtRest:      d > 12,
		})
	}
	return append(cubes, viewer.Cube{
		ID:          0,
		Position:    p,
		Rotation:    [4]float32{0, 0, 0, 1},
		HalfExtents: [3]float32{0.75, 0.75, 0.75},
		Player:      true,
	})
}

// run steps the world and publishes a frame every tick of period, reading
// the server's input each time, as the demo does, until ctx is done.
func (w *testWorld) run(ctx context.Context, srv *viewer.Server, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.step(srv.Input())
		if err := srv.Publish(w.frame()); err != nil {
			return
		}
	}
}
