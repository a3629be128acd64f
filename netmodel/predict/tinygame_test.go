package predict

import (
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// tinyGame is the smallest game the model runs: players are points that
// walk on the ground plane at the speed of their input, jump under
// gravity, and shove one ball they walk into. It shows what a game must
// provide, without a physics engine.
type tinyGame struct {
	players int
	s       tinyState
}

type tinyState struct {
	bodies   []wire.CubeState // players, then the ball
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
	g.s = tinyState{bodies: make([]wire.CubeState, players+1), present: make([]bool, players), touching: make([]bool, players)}
	for i := range g.s.bodies {
		g.s.bodies[i] = wire.CubeState{Orientation: vecmath.QuatIdentity, AtRest: true}
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
func (g *tinyGame) Body(i int) wire.CubeState { return g.s.bodies[i] }
func (g *tinyGame) SetBody(i int, s wire.CubeState) error {
	g.s.bodies[i] = s
	return nil
}
func (g *tinyGame) Spawn(p int) {
	g.s.present[p] = true
	g.s.bodies[p] = wire.CubeState{Position: vecmath.V3(float64(2*p), 0, 0), Orientation: vecmath.QuatIdentity, AtRest: true}
}
func (g *tinyGame) Park(p int) {
	g.s.present[p] = false
	g.s.bodies[p] = wire.CubeState{Position: vecmath.V3(float64(2*p), -10, 0), Orientation: vecmath.QuatIdentity, AtRest: true}
}
func (g *tinyGame) Touching(p int) bool { return g.s.touching[p] }

func (g *tinyGame) Step(in []Input) {
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
func (g *tinyGame) Shot(p int, in Input, targets []wire.CubeState, present []bool) (int, bool) {
	sy, cy := vecmath.SinCos(in.YawRadians())
	sp, cp := vecmath.SinCos(in.PitchRadians())
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
	return best, hit
}
