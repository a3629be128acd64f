package scene

import (
	"math/rand/v2"

	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/vecmath"
)

// Bot plays the arena like a person on a gamepad would, from what its
// client shows: it picks a target and strafes around it at fighting
// distance, changing direction every half second or so, jumps now and
// then, fires a few times a second with some aim error, and from time to
// time walks over to a cube and pushes it along. It is deterministic from
// its seed.
type Bot struct {
	p    int
	cfg  ArenaConfig
	rate float64 // ticks per second
	rng  *rand.Rand

	mode       botMode
	modeUntil  predict.Tick
	target     int
	side       float64 // +1 or -1: strafing direction
	sideUntil  predict.Tick
	nextShot   predict.Tick
	cube       int // body index of the cube to push
	pushDir    vecmath.Vec3
	aimErrorX  float64
	aimErrorY  float64
	aimRefresh predict.Tick
}

type botMode uint8

const (
	botFight botMode = iota
	botPush
)

// NewBot returns the bot of player p.
func NewBot(p int, seed uint64, cfg ArenaConfig) *Bot {
	return &Bot{p: p, cfg: cfg, rate: 1 / cfg.Physics.TimeStep, rng: rand.New(rand.NewPCG(seed, uint64(p)+1)), side: 1}
}

// ticks converts seconds to ticks from now.
func (b *Bot) after(t predict.Tick, seconds float64) predict.Tick {
	return t + predict.Tick(float64(seconds*b.rate)+0.5)
}

// Input is a predict.Control[ArenaInput]: the bot's controls for tick t.
func (b *Bot) Input(t predict.Tick, v *predict.View) ArenaInput {
	own := v.Own.Position
	if t >= b.modeUntil {
		b.mode, b.modeUntil = botFight, b.after(t, 3+float64(5*b.rng.Float64()))
		if b.cfg.Cubes > 0 && b.rng.Float64() < 0.3 {
			b.mode = botPush
			b.cube = b.cfg.Players + b.rng.IntN(b.cfg.Cubes)
			b.pushDir = vecmath.V3(float64(b.rng.Float64())-0.5, 0, float64(b.rng.Float64())-0.5)
		}
		b.target = b.pickTarget(v)
	}
	if b.target < 0 || !v.Present[b.target] {
		b.target = b.pickTarget(v)
	}
	if t >= b.sideUntil {
		b.side, b.sideUntil = -b.side, b.after(t, 0.4+float64(1.1*b.rng.Float64()))
	}
	var move vecmath.Vec3
	switch {
	case b.mode == botPush:
		// Walk to the far side of the cube, then through it.
		cube := v.Bodies[b.cube].Position
		dir, _ := b.pushDir.Normalize()
		behind := cube.Sub(dir.Scale(1.2))
		to := vecmath.V3(behind.X-own.X, 0, behind.Z-own.Z)
		if to.Length() < 0.6 {
			move = dir
		} else {
			move, _ = to.Normalize()
		}
	case b.target >= 0:
		to := v.Bodies[b.target].Position.Sub(own)
		to.Y = 0
		dir, dist := to.Normalize()
		strafe := vecmath.V3(dir.Z, 0, -dir.X).Scale(b.side)
		switch {
		case dist > 14:
			move = strafe.Add(dir)
		case dist < 7:
			move = strafe.Sub(dir)
		default:
			move = strafe
		}
	}
	// Keep off the walls.
	lim := b.cfg.Half - 2
	if own.X > lim || own.X < -lim || own.Z > lim || own.Z < -lim {
		move = vecmath.V3(-own.X, 0, -own.Z)
	}
	move, _ = move.Normalize()
	jump := b.rng.Float64() < 1/(3*b.rate)
	yaw, pitch, shoot := 0.0, 0.0, false
	if b.target >= 0 {
		if t >= b.aimRefresh {
			b.aimErrorX, b.aimErrorY, b.aimRefresh = 0.25*b.rng.NormFloat64(), 0.25*b.rng.NormFloat64(), b.after(t, 0.2)
		}
		eye := own.Add(vecmath.V3(0, b.cfg.EyeHeight, 0))
		aim := v.Bodies[b.target].Position.Add(vecmath.V3(b.aimErrorX, b.aimErrorY, 0)).Sub(eye)
		yaw = vecmath.Atan2(aim.X, aim.Z)
		pitch = vecmath.Atan2(aim.Y, vecmath.V3(aim.X, 0, aim.Z).Length())
		if t >= b.nextShot {
			shoot, b.nextShot = true, b.after(t, 0.25+float64(0.25*b.rng.Float64()))
		}
	}
	in, err := MakeArenaInput(move.X, move.Z, yaw, pitch, jump, shoot)
	if err != nil {
		return ArenaInput{}
	}
	return in
}

// pickTarget chooses a present player other than the bot's own (the
// view's, which after a rejoin may differ from its slot) at random, or -1.
func (b *Bot) pickTarget(v *predict.View) int {
	n := 0
	for p, on := range v.Present {
		if on && p != v.You {
			n++
		}
	}
	if n == 0 {
		return -1
	}
	k := b.rng.IntN(n)
	for p, on := range v.Present {
		if on && p != v.You {
			if k == 0 {
				return p
			}
			k--
		}
	}
	return -1
}
