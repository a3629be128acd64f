package cubegames

import (
	"flag"
	"fmt"
	"strings"

	"github.com/netphys/netphys/match"
	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
)

// CubeKeys are the cube world's keys, for the commands' hints.
const CubeKeys = "arrows move your cube, space lifts and blasts, z pulls cubes in"

// matchLayout is the layout a match is played in: the one its
// Setup.World names (serve --rooms: the token's), else def (--layout).
func matchLayout(def scene.Layout, world string) (scene.Layout, error) {
	if world == "" {
		return def, nil
	}
	return scene.ParseLayout(world)
}

// oneWorld refuses a Setup.World for a model that plays one world only.
func oneWorld(world, name string) error {
	if world != "" {
		return fmt.Errorf("the match names the world %q, but this model plays %s only: name none", world, name)
	}
	return nil
}

// LayoutFlag is the cube world's --layout, shared by its models (lockstep
// and interp) and by a command's own cube-world modes (demo's state demo):
// the layout is read when the models' Sides are built, so that a bad one
// is an error of the command rather than of the flag parser.
type LayoutFlag struct {
	value           string // as given; "": the default
	models, builtin scene.Layout
}

// DeclareLayout declares --layout on fs with its defaults: forModels for
// the network models, forBuiltin for the command's own modes named
// builtin (demo steps every player's world in one process, which the
// 900-cube world is too heavy for, and its plain state demo is not). Call
// it before match.DeclareFlags; a FlagSet without it gets --layout from
// the first cube-world model's flags, cubes900 by default.
func DeclareLayout(fs *flag.FlagSet, forModels, forBuiltin scene.Layout, builtin ...string) *LayoutFlag {
	l := &LayoutFlag{models: forModels, builtin: forBuiltin}
	usage := fmt.Sprintf("the cube world: cubes900, tower20 or pyramid10; every process of a match must agree (default %v", forModels)
	if forBuiltin != forModels {
		usage += fmt.Sprintf(" for network models, %v for %s", forBuiltin, strings.Join(builtin, ", "))
	}
	fs.Var(l, "layout", usage+")")
	return l
}

// layoutFlag is fs's --layout, declared with the defaults if the command
// did not declare it.
func layoutFlag(fs *flag.FlagSet) *LayoutFlag {
	f := fs.Lookup("layout")
	if f == nil {
		return DeclareLayout(fs, scene.Cubes900, scene.Cubes900)
	}
	l, ok := f.Value.(*LayoutFlag)
	if !ok {
		panic("cubegames: the command declares a --layout of its own; declare the cube world's with DeclareLayout")
	}
	return l
}

func (l *LayoutFlag) String() string     { return l.value }
func (l *LayoutFlag) Set(s string) error { l.value = s; return nil }

// Models is the layout the network models play: the one given, or the
// default for them.
func (l *LayoutFlag) Models() (scene.Layout, error) { return l.parse(l.models) }

// Builtin is the layout the command's own modes play: the one given, or
// the default for them.
func (l *LayoutFlag) Builtin() (scene.Layout, error) { return l.parse(l.builtin) }

func (l *LayoutFlag) parse(def scene.Layout) (scene.Layout, error) {
	if l.value == "" {
		return def, nil
	}
	return scene.ParseLayout(l.value)
}

// cubeControls give a player of the cube world its input: the page's
// keys (match.Keys) or, for a bot and while the keys autoplay, the
// player's scripted minute (scene.PlayerScript: the minute of play turned
// to start from the player's side of the world), over and over.
type cubeControls struct {
	keys    *match.Keys                    // nil: a bot
	scripts [scene.MaxPlayers]scene.Script // built on first use
}

func newCubeControls(s match.PlayerSetup) *cubeControls {
	c := &cubeControls{}
	if !s.Bot {
		c.keys = s.Keys
	}
	return c
}

// Input returns the input of player p (the model's index of the player in
// its match) for simulation tick t. Ticks are asked for in order.
func (c *cubeControls) Input(p, t int) scene.Input {
	if c.keys == nil {
		return c.script(p, t)
	}
	k := c.keys.At(t)
	if k.Auto {
		return c.script(p, k.Since)
	}
	return scene.InputFromBits(uint8(k.Held))
}

// script is player p's scripted input of tick t.
func (c *cubeControls) script(p, t int) scene.Input {
	if p < 0 || p >= len(c.scripts) {
		return scene.Input{}
	}
	if c.scripts[p] == nil {
		c.scripts[p] = scene.PlayerScript(p)
	}
	sc := c.scripts[p]
	return sc.At(t % sc.Len())
}

// SceneView draws a cube world for the viewer: the player cubes first
// (blue), then the cubes, with ids that stay the same across frames and
// across the worlds of one match. Player me comes last of the players: the
// page takes a view's last player cube as the one its camera follows.
func SceneView(name string, s *scene.Scene, me int, dst []viewer.Cube) viewer.View {
	cfg := s.Config()
	cubes := dst[:0]
	add := func(id uint32, body physics.BodyID, half float64, interacting, player bool) {
		st := s.State(body)
		h := float32(half)
		cubes = append(cubes, viewer.Cube{
			ID:          id,
			Position:    [3]float32{float32(st.Position.X), float32(st.Position.Y), float32(st.Position.Z)},
			Rotation:    [4]float32{float32(st.Rotation.X), float32(st.Rotation.Y), float32(st.Rotation.Z), float32(st.Rotation.W)},
			HalfExtents: [3]float32{h, h, h},
			Interacting: interacting, Player: player, AtRest: st.AtRest,
		})
	}
	for p, body := range s.Players {
		if p != me {
			add(uint32(p), body, cfg.PlayerSize/2, false, true)
		}
	}
	if me >= 0 && me < len(s.Players) {
		add(uint32(me), s.Players[me], cfg.PlayerSize/2, false, true)
	}
	for i, body := range s.Cubes {
		add(uint32(scene.MaxPlayers+i), body, cfg.CubeSize/2, s.Interacting(i), false)
	}
	return viewer.View{Name: name, Cubes: cubes}
}
