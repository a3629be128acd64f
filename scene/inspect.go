package scene

import (
	"fmt"

	"github.com/netphys/netphys/netmodel/lockstep/replay"
)

// The cube world as a replay.Inspector: a desync report names the body
// and the field that differ first ("cube 17 (object 21), position.y").

var _ replay.Inspector = (*Lockstep)(nil)

// ReplayGame is the cube world's replay.Header.Game; its Variant is the
// Layout's String. netphys replay and desync play replays so named.
const ReplayGame = "cube world"

// Objects implements replay.Inspector: the player cubes, then the cubes.
func (g *Lockstep) Objects() int { return len(g.Scene.Players) + len(g.Scene.Cubes) }

// Inspect implements replay.Inspector: object i is player i for i below
// the number of players, else cube i-players (its index in Scene.Cubes
// and its id on the wire); its fields are the body's state and, for a
// cube, its interacting flag.
func (g *Lockstep) Inspect(i int, dst []replay.Field) (string, []replay.Field) {
	s := g.Scene
	var name string
	var st = s.State(s.Player)
	interacting := -1.0
	if i < len(s.Players) {
		name, st = fmt.Sprintf("player %d", i), s.State(s.Players[i])
	} else {
		c := i - len(s.Players)
		name, st = fmt.Sprintf("cube %d", c), s.State(s.Cubes[c])
		interacting = 0
		if s.interacting[c] {
			interacting = 1
		}
	}
	awake := 1.0
	if st.AtRest {
		awake = 0
	}
	dst = append(dst,
		replay.Field{Name: "position.x", Value: st.Position.X},
		replay.Field{Name: "position.y", Value: st.Position.Y},
		replay.Field{Name: "position.z", Value: st.Position.Z},
		replay.Field{Name: "orientation.x", Value: st.Rotation.X},
		replay.Field{Name: "orientation.y", Value: st.Rotation.Y},
		replay.Field{Name: "orientation.z", Value: st.Rotation.Z},
		replay.Field{Name: "orientation.w", Value: st.Rotation.W},
		replay.Field{Name: "linear velocity.x", Value: st.LinearVelocity.X},
		replay.Field{Name: "linear velocity.y", Value: st.LinearVelocity.Y},
		replay.Field{Name: "linear velocity.z", Value: st.LinearVelocity.Z},
		replay.Field{Name: "angular velocity.x", Value: st.AngularVelocity.X},
		replay.Field{Name: "angular velocity.y", Value: st.AngularVelocity.Y},
		replay.Field{Name: "angular velocity.z", Value: st.AngularVelocity.Z},
		replay.Field{Name: "awake", Value: awake},
	)
	if interacting >= 0 {
		dst = append(dst, replay.Field{Name: "interacting", Value: interacting})
	}
	return name, dst
}
