package main

import (
	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/wire"
)

// The game: two-player pong in integer arithmetic, so that every player's
// copy steps to the same bits on any machine (lockstep's one requirement).
// Distances are in milli-units of a 64×48 field.

// README: input

// Paddle is a player's input each tick.
type Paddle struct {
	Move int8 // -1 up, 0 still, +1 down
}

// Serialize codes a Paddle in 2 bits. Reading rejects the fourth value,
// so a message carrying it is dropped as forged, never stepped.
func (p *Paddle) Serialize(s wire.Stream) error {
	return wire.SerializeInt(s, &p.Move, -1, 1)
}

// README: end

const (
	width, height = 64000, 48000
	paddleX       = 2000 // the paddles' distance from their goal line
	paddleHalf    = 5000 // half a paddle's height
	paddleSpeed   = 700  // per tick
	ballSpeed     = 450  // horizontal speed at a serve, per tick
	maxGoals      = 64   // goals kept in the log
	serveTicks    = 30   // the pause before a serve
	speedUp       = 16   // a return speeds the ball up by 1/speedUp
	maxBallSpeed  = 1600 // horizontal, per tick
	maxSpin       = 900  // vertical, per tick
	startY        = height / 2
	noGoal        = -1
)

// Goal is a point scored: the one-shot event of the game.
type Goal struct {
	Tick   lockstep.Tick // the lockstep tick whose Step scored it
	Scorer int           // 0: the left player, 1: the right one
}

// State is everything a tick changes: what Save copies and Checksum hashes.
type State struct {
	Tick      lockstep.Tick // the lockstep tick the next Step simulates
	PaddleY   [2]int32
	BallX     int32
	BallY     int32
	VX, VY    int32
	Wait      int32 // ticks until the serve
	Score     [2]int32
	Returns   int32
	Goals     [maxGoals]Goal
	GoalCount int32
}

// Pong is the game the lockstep clients step. It implements
// lockstep.Game[Paddle].
type Pong struct {
	State
	saved []State
}

// NewPong returns a game at its first serve.
func NewPong() *Pong {
	g := &Pong{}
	g.PaddleY = [2]int32{startY, startY}
	g.serve(1)
	return g
}

// serve puts the ball in the middle, moving toward player to after a pause.
func (g *Pong) serve(to int) {
	g.BallX, g.BallY = width/2, startY
	g.VX = ballSpeed
	if to == 0 {
		g.VX = -ballSpeed
	}
	// The serve's angle changes with the tick, the same on every machine.
	g.VY = int32(g.Tick%7-3) * 60
	g.Wait = serveTicks
}

// Step advances one tick: inputs[p] is player p's paddle.
func (g *Pong) Step(inputs []Paddle) {
	for p := range g.PaddleY {
		y := g.PaddleY[p] + int32(inputs[p].Move)*paddleSpeed
		g.PaddleY[p] = min(max(y, paddleHalf), height-paddleHalf)
	}
	if g.Wait > 0 {
		g.Wait--
		g.Tick++
		return
	}
	g.BallX += g.VX
	g.BallY += g.VY
	if g.BallY < 0 || g.BallY > height {
		g.VY = -g.VY
		g.BallY = min(max(g.BallY, 0), height)
	}
	g.bounce(0, g.BallX <= paddleX && g.VX < 0)
	g.bounce(1, g.BallX >= width-paddleX && g.VX > 0)
	switch {
	case g.BallX < 0:
		g.goal(1)
	case g.BallX > width:
		g.goal(0)
	}
	g.Tick++
}

// bounce returns the ball off player p's paddle if it is there.
func (g *Pong) bounce(p int, reached bool) {
	if !reached {
		return
	}
	off := g.BallY - g.PaddleY[p]
	if off < -paddleHalf || off > paddleHalf {
		return // missed: the ball goes on into the goal
	}
	g.VX = -g.VX
	g.VX += g.VX / speedUp
	g.VX = min(max(g.VX, -maxBallSpeed), maxBallSpeed)
	// Where the ball meets the paddle sets its new angle.
	g.VY = min(max(g.VY+off/8, -maxSpin), maxSpin)
	g.Returns++
}

func (g *Pong) goal(scorer int) {
	g.Score[scorer]++
	if g.GoalCount < maxGoals {
		g.Goals[g.GoalCount] = Goal{Tick: g.Tick, Scorer: scorer}
		g.GoalCount++
	}
	g.serve(1 - scorer)
}

// Log returns the goals scored so far; the newest may rest on predicted
// inputs until the client's Stats().Confirmed passes their tick.
func (g *Pong) Log() []Goal { return g.Goals[:g.GoalCount] }

// Checksum hashes the whole state (FNV-1a over its fields).
func (g *Pong) Checksum() uint64 {
	h := uint64(14695981039346656037)
	mix := func(v int32) {
		h ^= uint64(uint32(v))
		h *= 1099511628211
	}
	mix(int32(g.Tick))
	mix(g.PaddleY[0])
	mix(g.PaddleY[1])
	for _, v := range [...]int32{g.BallX, g.BallY, g.VX, g.VY, g.Wait, g.Score[0], g.Score[1], g.Returns, g.GoalCount} {
		mix(v)
	}
	return h
}

// README: saveload

// Save and Load keep the states rollback needs, slot < Config.Rollback.
// The goal log is part of the state: a goal a rollback undoes leaves it.
func (g *Pong) Save(slot int) {
	for len(g.saved) <= slot {
		g.saved = append(g.saved, State{})
	}
	g.saved[slot] = g.State
}

func (g *Pong) Load(slot int) { g.State = g.saved[slot] }

// README: end

// Bot returns the input of a computer player: it follows the ball in its
// own copy of the game (the picture a human would react to, predicted
// inputs included), slowly, with a dead zone that grows with skill's
// absence, and only while the ball comes its way.
func Bot(g *Pong, player int, lag int32) Paddle {
	coming := (player == 0) == (g.VX < 0)
	target := int32(startY)
	if coming && g.Wait == 0 {
		target = g.BallY - g.VY*lag // it sees the ball lag ticks late
	}
	switch d := target - g.PaddleY[player]; {
	case d > paddleSpeed:
		return Paddle{Move: 1}
	case d < -paddleSpeed:
		return Paddle{Move: -1}
	}
	return Paddle{}
}
