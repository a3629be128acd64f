package scene

import (
	"fmt"

	"github.com/netphys/netphys/netmodel/lockstep"
)

// Lockstep is the cube world with 1 to MaxPlayers players as a
// lockstep.Game: each player of a session steps its own Lockstep, and
// equal inputs keep them bit-identical. Lockstep tick n is the world's
// (n+1)-th step: after it, Scene.World.Tick() is n+1.
type Lockstep struct {
	Scene *Scene
	saved []Snapshot // rollback slots, grown on first use
}

var (
	_ lockstep.Game[Input] = (*Lockstep)(nil)
	_ lockstep.Snapshotter = (*Lockstep)(nil)
)

// NewLockstep builds the scene of the given layout with players player
// cubes.
func NewLockstep(layout Layout, cfg Config, players int) (*Lockstep, error) {
	s, err := NewPlayers(layout, cfg, players)
	if err != nil {
		return nil, err
	}
	return &Lockstep{Scene: s}, nil
}

// Step implements lockstep.Game: one tick with every player's input.
func (g *Lockstep) Step(inputs []Input) { g.Scene.StepPlayers(inputs) }

// Checksum implements lockstep.Game.
func (g *Lockstep) Checksum() uint64 { return g.Scene.Checksum() }

// Save implements lockstep.Game; the slots' buffers are reused.
func (g *Lockstep) Save(slot int) {
	for len(g.saved) <= slot {
		g.saved = append(g.saved, Snapshot{})
	}
	g.Scene.Save(&g.saved[slot])
}

// Load implements lockstep.Game.
func (g *Lockstep) Load(slot int) {
	if slot >= len(g.saved) {
		panic(fmt.Sprintf("scene: Load of slot %d, never saved", slot))
	}
	g.Scene.Load(&g.saved[slot])
}

// MarshalState implements lockstep.Snapshotter: the scene's state in byte
// form (Scene.AppendState), about 1 MB for the 900-cube world at rest.
func (g *Lockstep) MarshalState() ([]byte, error) { return g.Scene.AppendState(nil), nil }

// UnmarshalState implements lockstep.Snapshotter on a Lockstep of the
// same layout and players (Scene.UnmarshalState).
func (g *Lockstep) UnmarshalState(b []byte) error { return g.Scene.UnmarshalState(b) }

// PlayerScript is player p's scripted minute: PlayMinute turned so that
// the player, who starts on its own side of the layout (see Players),
// ploughs into the grid from there.
func PlayerScript(p int) Script { return PlayMinute.Turned(p) }

// PlayerBot returns player p's scripted input by tick, for a lockstep
// client: PlayerScript(p), idle once the minute is over.
func PlayerBot(p int) func(lockstep.Tick) Input {
	sc := PlayerScript(p)
	return func(t lockstep.Tick) Input { return sc.At(int(t)) }
}

// LockstepBot returns a lockstep.Control that plays PlayerScript of the
// client's player, whichever index the server gives it.
func LockstepBot() lockstep.Control[Input] {
	var scripts []Script
	return func(t lockstep.Tick, v *lockstep.View) Input {
		for len(scripts) <= v.Player {
			scripts = append(scripts, PlayerScript(len(scripts)))
		}
		return scripts[v.Player].At(int(t))
	}
}

// Turned returns the script with its arrows turned as player p's start
// is turned from player 0's (see Players): a half turn for player 1, a
// quarter for 2, three quarters for 3.
func (sc Script) Turned(p int) Script {
	out := make(Script, len(sc))
	for i, seg := range sc {
		in := seg.Input
		// The arrows' push in x and z, turned as turn turns positions.
		x, z := axis(in.Right, in.Left), axis(in.Down, in.Up)
		x, z = turn(x, z, p)
		in.Right, in.Left = x > 0, x < 0
		in.Down, in.Up = z > 0, z < 0
		out[i] = Segment{Ticks: seg.Ticks, Input: in}
	}
	return out
}

func axis(plus, minus bool) float64 {
	switch {
	case plus && !minus:
		return 1
	case minus && !plus:
		return -1
	}
	return 0
}
