package match

import (
	"flag"
	"fmt"
	"strings"
)

// Flags are the runtime's flags shared by serve, play and demo: --model,
// --players, and every registered model's own flags.
type Flags struct {
	model   *string
	players *int
	sides   map[string]func() (Sides, error)
}

// DeclareFlags declares the runtime's flags on fs. def is --model's
// default; builtin names models the command runs itself (serve's echo,
// demo's state) and that are not registered here.
func DeclareFlags(fs *flag.FlagSet, def string, players int, builtin ...string) *Flags {
	names := append(append([]string(nil), builtin...), Names()...)
	f := &Flags{sides: map[string]func() (Sides, error){}}
	f.model = fs.String("model", def, "network model: "+strings.Join(names, ", "))
	f.players = fs.Int("players", players, "players in the match, 1 to 4 for lockstep")
	for _, n := range Names() {
		m := models[n]
		if m.Flags != nil {
			f.sides[n] = m.Flags(fs)
		}
	}
	return f
}

// Model is the --model given.
func (f *Flags) Model() string { return *f.model }

// Players is the --players given.
func (f *Flags) Players() int { return *f.players }

// Sides looks up the --model given and builds its Sides from its flags.
func (f *Flags) Sides() (*Model, Sides, error) {
	m, err := Lookup(*f.model)
	if err != nil {
		return nil, Sides{}, err
	}
	if *f.players < 1 || *f.players > 64 {
		return nil, Sides{}, fmt.Errorf("--players %d: want 1 to 64", *f.players)
	}
	build := f.sides[m.Name]
	if build == nil {
		return nil, Sides{}, fmt.Errorf("%w %q: it declares no sides", ErrModel, m.Name)
	}
	s, err := build()
	return m, s, err
}
