package interp_test

import (
	"fmt"
	"time"

	"github.com/netphys/netphys/netmodel/interp"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire/snapshot"
)

// puckGame is a game of its own: a puck slides along x at 3 m/s and is
// re-served to the centre when it passes 3 m; a goal post stands still.
// It implements interp.Game, and interp.Resetter to say when the puck
// jumps.
type puckGame struct {
	x      float64 // the puck's x, m
	served bool    // re-served in the last Step
}

func (g *puckGame) Objects() int { return 2 }

func (g *puckGame) Step() uint32 {
	g.x += 3.0 / 60
	if g.served = g.x > 3; g.served {
		g.x = 0
	}
	return 0 // no inputs
}

func (g *puckGame) Capture(dst []snapshot.Cube) {
	dst[0] = snapshot.Cube{Position: vecmath.V3(g.x, 0.1, 0), Rotation: vecmath.QuatIdentity}
	dst[1] = snapshot.Cube{Position: vecmath.V3(4, 0.5, 0), Rotation: vecmath.QuatIdentity}
}

func (g *puckGame) Resets(dst []bool) { dst[0] = g.served }

// A server and one client over the network simulator, in virtual time:
// 100 ms RTT, 5 % loss. View returns the objects as the server had them
// at a server tick (fractional: ticks of 1/TickRate s since the server's
// start) about a render delay behind; the puck is never drawn sliding
// back from 3 m to the centre.
func Example() {
	cfg := interp.DefaultConfig() // 60 Hz ticks, 30 snapshots per second
	game := &puckGame{}
	srv, err := interp.NewServer(cfg, game, simmatch.Epoch)
	if err != nil {
		panic(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 1, Conditions: netsim.Conditions{
		Latency: 50 * time.Millisecond, Loss: 0.05}}}, srv)
	if err != nil {
		panic(err)
	}
	c, err := interp.NewClient(cfg, game.Objects(), simmatch.Epoch)
	if err != nil {
		panic(err)
	}
	m.Join(c) // in a real driver: netcode's handshake, then srv.Join

	backwards := 0
	last := 0.0
	for frame := 1; frame <= 4*60; frame++ {
		// A driver calls Receive for each datagram and Update every
		// frame on both sides; simmatch does it in virtual time.
		if err := m.Run(time.Second / 60); err != nil {
			panic(err)
		}
		objects, tick, ok := c.View()
		if !ok {
			continue
		}
		x := objects[0].Position.X
		if x < last && x > 0.2 {
			backwards++ // drawn sliding back: interpolated across a re-serve
		}
		last = x
		if frame%60 == 0 {
			fmt.Printf("%d s: server tick %d, drawn tick %.0f, puck at x = %.1f m\n", frame/60, srv.Tick(), tick, x)
		}
	}
	fmt.Printf("re-serves %d, frames drawn sliding back %d\n", srv.Counters().Resets, backwards)
	fmt.Printf("snapshots %d, dry frames %d, datagrams dropped %d\n", c.Counters().Snapshots, c.Counters().Dry, c.Counters().Dropped)
	// Output:
	// 1 s: server tick 60, drawn tick 47, puck at x = 2.4 m
	// 2 s: server tick 120, drawn tick 108, puck at x = 2.3 m
	// 3 s: server tick 180, drawn tick 169, puck at x = 2.3 m
	// 4 s: server tick 240, drawn tick 230, puck at x = 2.3 m
	// re-serves 3, frames drawn sliding back 0
	// snapshots 107, dry frames 0, datagrams dropped 0
}
