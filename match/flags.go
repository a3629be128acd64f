package match

import (
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/netphys/netphys/scene"
)

// Flags are the runtime's flags shared by serve, play and demo: --model,
// --players, --layout, and every registered model's own flags.
type Flags struct {
	model    *string
	players  *int
	layout   *string
	spectate *bool
	defaults Defaults
	sides    map[string]func() (Sides, error)
}

// Defaults are a command's defaults for the runtime's flags.
type Defaults struct {
	Model   string
	Players int
	// Layout is --layout's default for the builtin models, ModelLayout
	// for the registered ones: the demo steps every player's world in one
	// process, which the 900-cube world is too heavy for.
	Layout, ModelLayout scene.Layout
	// Builtin names models the command runs itself (serve's echo, demo's
	// state), which are not registered here.
	Builtin []string
}

// DeclareFlags declares the runtime's flags on fs.
func DeclareFlags(fs *flag.FlagSet, def Defaults) *Flags {
	names := append(append([]string(nil), def.Builtin...), Names()...)
	f := &Flags{sides: map[string]func() (Sides, error){}}
	f.model = fs.String("model", def.Model, "network model: "+strings.Join(names, ", "))
	f.players = fs.Int("players", def.Players, "players in the match, "+playerRanges()+"; every process of a match must agree")
	usage := fmt.Sprintf("the cube world: cubes900, tower20 or pyramid10; every process of a match must agree (default %v", def.ModelLayout)
	if def.Layout != def.ModelLayout {
		usage += fmt.Sprintf(" for network models, %v for %s", def.Layout, strings.Join(def.Builtin, ", "))
	}
	f.layout = fs.String("layout", "", usage+")")
	f.spectate = fs.Bool("spectate", false, "play only: watch the match without a seat, never holding the players back (lockstep: simulating the relayed inputs, with --late-join to join a running match; the others: the server's world as interp snapshots)")
	f.defaults = def
	for _, n := range Names() {
		m := models[n]
		if m.Flags != nil {
			f.sides[n] = m.Flags(fs)
		}
	}
	return f
}

// playerRanges says how many players each registered model plays.
func playerRanges() string {
	var ranges []string
	for _, n := range Names() {
		m := models[n]
		least, most := m.PlayerRange()
		r := fmt.Sprintf("%d to %d for %s", least, most, n)
		if m.HostSeats > 0 {
			r += fmt.Sprintf(" (the host plays %d)", m.HostSeats)
		}
		ranges = append(ranges, r)
	}
	return strings.Join(ranges, ", ")
}

// Model is the --model given.
func (f *Flags) Model() string { return *f.model }

// Players is the --players given.
func (f *Flags) Players() int { return *f.players }

// Spectate is the --spectate given.
func (f *Flags) Spectate() bool { return *f.spectate }

// Layout is the --layout given, or the default for the --model given.
func (f *Flags) Layout() (scene.Layout, error) {
	if *f.layout != "" {
		return scene.ParseLayout(*f.layout)
	}
	if slices.Contains(f.defaults.Builtin, *f.model) {
		return f.defaults.Layout, nil
	}
	return f.defaults.ModelLayout, nil
}

// Setup is the match the flags describe.
func (f *Flags) Setup(log *slog.Logger) (Setup, error) {
	l, err := f.Layout()
	return Setup{Players: *f.players, Layout: l, Logger: log}, err
}

// Sides looks up the --model given and builds its Sides from its flags.
func (f *Flags) Sides() (*Model, Sides, error) {
	m, err := Lookup(*f.model)
	if err != nil {
		known := append(append([]string(nil), f.defaults.Builtin...), Names()...)
		return nil, Sides{}, fmt.Errorf("%w %q (known: %s)", ErrModel, *f.model, strings.Join(known, ", "))
	}
	if least, most := m.PlayerRange(); *f.players < least || *f.players > most {
		why := ""
		if m.HostSeats > 0 {
			why = fmt.Sprintf(" (its host plays %d of them)", m.HostSeats)
		}
		return nil, Sides{}, fmt.Errorf("--players %d: model %s plays %d to %d players%s", *f.players, m.Name, least, most, why)
	}
	build := f.sides[m.Name]
	if build == nil {
		return nil, Sides{}, fmt.Errorf("%w %q: it declares no sides", ErrModel, m.Name)
	}
	s, err := build()
	return m, s, err
}
