package predict

import (
	"fmt"
	"math"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// tinyGame is the smallest shooter the model runs: players are points
// that walk on the ground plane at the speed of their input, jump under
// gravity, shove one ball they walk into, and fire hitscan shots. It
// implements every optional capability but Escaper and Resimulator,
// without a physics engine.
type tinyGame struct {
	players int
	s       tinyState
}

type tinyState struct {
	bodies   []wire.BodyState // players, then the ball
	present  []bool
	touching []bool
}

const (
	tinyDT     = 1.0 / 60
	tinySpeed  = 4.0  // m/s at a full move
	tinyRadius = 0.5  // m, players and ball
	tinyGrav   = 10.0 // m/s²
)

func newTinyGame(players int) *tinyGame {
	g := &tinyGame{players: players}
	g.s = tinyState{bodies: make([]wire.BodyState, players+1), present: make([]bool, players), touching: make([]bool, players)}
	for i := range g.s.bodies {
		g.s.bodies[i] = wire.BodyState{Rotation: vecmath.QuatIdentity, AtRest: true}
		if i < players {
			g.Park(i)
		} else {
			g.s.bodies[i].Position = vecmath.V3(0, 0, 20)
		}
	}
	return g
}

func (g *tinyGame) Players() int { return g.players }
func (g *tinyGame) Bodies() int  { return g.players + 1 }
func (g *tinyGame) Spec() wire.StateSpec {
	const pos, vel = 1.0 / 512, 1.0 / 256
	return wire.StateSpec{
		Position:        wire.Bounds{Min: vecmath.V3(-64, -16, -64), Max: vecmath.V3(64-pos, 48-pos, 64-pos), Res: pos},
		OrientationBits: 9,
		LinearVelocity:  wire.Bounds{Min: vecmath.V3(-32, -32, -32), Max: vecmath.V3(32-vel, 32-vel, 32-vel), Res: vel},
		AngularVelocity: wire.Bounds{Min: vecmath.V3(-32, -32, -32), Max: vecmath.V3(32-vel, 32-vel, 32-vel), Res: vel},
	}
}

func (g *tinyGame) NewState() State { return &tinyState{} }
func (g *tinyGame) Save(dst State) {
	d := dst.(*tinyState)
	d.bodies = append(d.bodies[:0], g.s.bodies...)
	d.present = append(d.present[:0], g.s.present...)
	d.touching = append(d.touching[:0], g.s.touching...)
}
func (g *tinyGame) Load(src State) error {
	s := src.(*tinyState)
	g.s.bodies = append(g.s.bodies[:0], s.bodies...)
	g.s.present = append(g.s.present[:0], s.present...)
	g.s.touching = append(g.s.touching[:0], s.touching...)
	return nil
}
func (g *tinyGame) Body(i int) wire.BodyState { return g.s.bodies[i] }
func (g *tinyGame) SetBody(i int, s wire.BodyState) error {
	g.s.bodies[i] = s
	return nil
}
func (g *tinyGame) Spawn(p int) {
	g.s.present[p] = true
	g.s.bodies[p] = wire.BodyState{Position: vecmath.V3(float64(2*p), 0, 0), Rotation: vecmath.QuatIdentity, AtRest: true}
}
func (g *tinyGame) Park(p int) {
	g.s.present[p] = false
	g.s.bodies[p] = wire.BodyState{Position: vecmath.V3(float64(2*p), -10, 0), Rotation: vecmath.QuatIdentity, AtRest: true}
}
func (g *tinyGame) Touching(p int) bool { return g.s.touching[p] }

func (g *tinyGame) Step(in []tinyInput) {
	ball := &g.s.bodies[g.players]
	for p := 0; p < g.players; p++ {
		b := &g.s.bodies[p]
		g.s.touching[p] = false
		if !g.s.present[p] {
			continue
		}
		v := vecmath.V3(float64(in[p].MoveX)*(tinySpeed/MoveMax), b.LinearVelocity.Y, float64(in[p].MoveZ)*(tinySpeed/MoveMax))
		if in[p].Jump && b.Position.Y == 0 {
			v.Y = 4
		}
		v.Y -= tinyGrav * tinyDT
		pos := b.Position.MulAdd(tinyDT, v)
		if pos.Y <= 0 {
			pos.Y, v.Y = 0, 0
		}
		b.Position, b.LinearVelocity = pos, v
		b.AtRest = v == vecmath.Vec3{}
		if d := ball.Position.Sub(pos); d.LengthSq() < 4*tinyRadius*tinyRadius {
			g.s.touching[p] = true
			ball.LinearVelocity = vecmath.V3(v.X, 0, v.Z)
		}
	}
	ball.Position = ball.Position.MulAdd(tinyDT, ball.LinearVelocity)
	ball.LinearVelocity = ball.LinearVelocity.Scale(0.98)
	ball.AtRest = false
}

// Shot hits the nearest other present player whose sphere the aim ray
// passes through, within 50 m.
func (g *tinyGame) Shot(p int, in tinyInput, targets []wire.BodyState, present []bool) (int, ShotOutcome) {
	sy, cy := vecmath.SinCos(in.yawRadians())
	sp, cp := vecmath.SinCos(in.pitchRadians())
	dir := vecmath.V3(float64(cp*sy), sp, float64(cp*cy))
	origin := g.s.bodies[p].Position
	best, hit := 0, false
	bestT := 50.0
	for i := 0; i < g.players; i++ {
		if i == p || !present[i] {
			continue
		}
		d := targets[i].Position.Sub(origin)
		t := d.Dot(dir)
		if t <= 0 || t >= bestT {
			continue
		}
		if miss := d.Sub(dir.Scale(t)); miss.LengthSq() <= tinyRadius*tinyRadius {
			best, bestT, hit = i, t, true
		}
	}
	if !hit {
		return 0, ShotMissed
	}
	return best, ShotHit
}

// tinyInput is the tiny game's controls, the shooter's input the model
// once had built in: a move in world axes, an aim, jump, shoot and the
// shot's lag-compensation claim. Values are integers so that what the
// client predicts with is exactly what the server decodes.
type tinyInput struct {
	MoveX, MoveZ int8   // each in [-MoveMax, MoveMax], length at most MoveMax
	Yaw          uint16 // 2π/65536 rad per unit, 0 along +Z, growing towards +X
	Pitch        int16  // in [-PitchMax, PitchMax], positive up
	Jump, Shoot  bool
	Behind       uint8 // the lag-compensation claim, only with Shoot
}

// MoveMax is the length of a full move; PitchMax is π/2 in Pitch units.
const (
	MoveMax  = 127
	PitchMax = 16384
)

// makeTinyInput quantizes controls given as floats.
func makeTinyInput(moveX, moveZ, yaw, pitch float64, jump, shoot bool) tinyInput {
	if l := math.Sqrt(float64(moveX*moveX) + float64(moveZ*moveZ)); l > 1 {
		moveX, moveZ = moveX/l, moveZ/l
	}
	turns := yaw / (2 * math.Pi)
	turns -= math.Floor(turns)
	in := tinyInput{
		MoveX: int8(math.Round(moveX * MoveMax)), MoveZ: int8(math.Round(moveZ * MoveMax)),
		Yaw:   uint16(uint32(math.Round(turns*65536)) & 0xffff),
		Pitch: int16(math.Round(math.Max(-1, math.Min(1, pitch/(math.Pi/2))) * PitchMax)),
		Jump:  jump, Shoot: shoot,
	}
	if x, z := int32(in.MoveX), int32(in.MoveZ); x*x+z*z > MoveMax*MoveMax {
		// Rounding made it longer: scale down, rounding towards zero.
		l := int32(math.Ceil(math.Sqrt(float64(x*x + z*z))))
		in.MoveX, in.MoveZ = int8(x*MoveMax/l), int8(z*MoveMax/l)
	}
	return in
}

func (in tinyInput) yawRadians() float64   { return float64(in.Yaw) * (2 * math.Pi / 65536) }
func (in tinyInput) pitchRadians() float64 { return float64(in.Pitch) * (math.Pi / 2 / PitchMax) }

// valid reports whether in is what a client can send.
func (in tinyInput) valid() bool {
	x, z := int32(in.MoveX), int32(in.MoveZ)
	return x*x+z*z <= MoveMax*MoveMax && in.Pitch <= PitchMax && in.Pitch >= -PitchMax && (in.Shoot || in.Behind == 0)
}

// Serialize codes the input:
//
//	+-------+-------+-----+-------+------+-------+--------+
//	| moveX | moveZ | yaw | pitch | jump | shoot | behind |
//	| 8     | 8     | 16  | 16    | 1    | 1     | 8 if   |
//	|       |       |     |       |      |       | shoot  |
//	+-------+-------+-----+-------+------+-------+--------+
//
// Reading, a move longer than a full one or a pitch beyond the vertical
// is wire.ErrInvalid.
func (in *tinyInput) Serialize(s wire.Stream) error {
	mx, mz, p := uint8(in.MoveX), uint8(in.MoveZ), uint16(in.Pitch)
	for _, err := range [...]error{
		wire.SerializeBits(s, &mx, 8),
		wire.SerializeBits(s, &mz, 8),
		wire.SerializeBits(s, &in.Yaw, 16),
		wire.SerializeBits(s, &p, 16),
		wire.SerializeBool(s, &in.Jump),
		wire.SerializeBool(s, &in.Shoot),
	} {
		if err != nil {
			return err
		}
	}
	if in.Shoot {
		if err := wire.SerializeBits(s, &in.Behind, 8); err != nil {
			return err
		}
	}
	if s.Mode() == wire.Reading {
		in.MoveX, in.MoveZ, in.Pitch = int8(mx), int8(mz), int16(p)
		if !in.valid() {
			return fmt.Errorf("%w: input %+v", wire.ErrInvalid, *in)
		}
	}
	return nil
}

// SerializeRelayed codes what the others learn of an input: the move and
// the jump.
func (g *tinyGame) SerializeRelayed(s wire.Stream, in *tinyInput) error {
	mx, mz := uint8(in.MoveX), uint8(in.MoveZ)
	for _, err := range [...]error{
		wire.SerializeBits(s, &mx, 8),
		wire.SerializeBits(s, &mz, 8),
		wire.SerializeBool(s, &in.Jump),
	} {
		if err != nil {
			return err
		}
	}
	if s.Mode() == wire.Reading {
		*in = tinyInput{MoveX: int8(mx), MoveZ: int8(mz), Jump: in.Jump}
		if !in.valid() {
			return fmt.Errorf("%w: move %d, %d", wire.ErrInvalid, mx, mz)
		}
	}
	return nil
}

// SameStep: the aim matters only to a shot.
func (g *tinyGame) SameStep(a, b tinyInput) bool {
	if !a.Shoot && !b.Shoot {
		a.Yaw, a.Pitch, b.Yaw, b.Pitch = 0, 0, 0, 0
	}
	return a == b
}

func (g *tinyGame) Trigger(in tinyInput) (bool, uint8) { return in.Shoot, in.Behind }
func (g *tinyGame) SetTrigger(in tinyInput, fire bool, behind uint8) tinyInput {
	in.Shoot, in.Behind = fire, behind
	if !fire {
		in.Behind = 0
	}
	return in
}
