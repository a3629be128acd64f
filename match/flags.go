package match

import (
	"flag"
	"fmt"
	"log/slog"
	"strings"
)

// Flags are the runtime's flags shared by serve, play and demo: --model,
// --players, and every registered model's own flags (a game's settings,
// such as the cube world's --layout, are among those).
type Flags struct {
	model    *string
	players  *int
	spectate *bool
	defaults Defaults
	sides    map[string]func() (Sides, error)
}

// Defaults are a command's defaults for the runtime's flags.
type Defaults struct {
	Model   string
	Players int
	// Builtin names models the command runs itself (serve's echo, demo's
	// state), which are not registered here.
	Builtin []string
}

// DeclareFlags declares the runtime's flags on fs, and every registered
// model's own (Model.Flags).
func DeclareFlags(fs *flag.FlagSet, def Defaults) *Flags {
	names := append(append([]string(nil), def.Builtin...), Names()...)
	f := &Flags{sides: map[string]func() (Sides, error){}}
	f.model = fs.String("model", def.Model, "network model: "+strings.Join(names, ", "))
	f.players = fs.Int("players", def.Players, "players in the match, "+playerRanges()+"; every process of a match must agree")
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

// Setup is the match the flags describe, logging to log.
func (f *Flags) Setup(log *slog.Logger) (Setup, error) {
	if *f.players < 1 {
		return Setup{}, fmt.Errorf("--players %d: want 1 or more", *f.players)
	}
	return Setup{Players: *f.players, Logger: log}, nil
}

// Sides looks up the --model given and builds its Sides from its flags.
// An unknown name is told with the models the command runs itself too.
func (f *Flags) Sides() (*Model, Sides, error) {
	if _, err := Lookup(*f.model); err != nil {
		known := append(append([]string(nil), f.defaults.Builtin...), Names()...)
		return nil, Sides{}, fmt.Errorf("%w %q (known: %s)", ErrModel, *f.model, strings.Join(known, ", "))
	}
	return f.SidesOf(*f.model, *f.players)
}

// SidesOf looks up the model name and builds its Sides from its flags,
// for a match of players (serve --rooms: the match a token names).
func (f *Flags) SidesOf(name string, players int) (*Model, Sides, error) {
	// The command's built-in models (serve's echo) run outside rooms:
	// a token naming one is told the registered models only.
	m, err := Lookup(name)
	if err != nil {
		return nil, Sides{}, err
	}
	if least, most := m.PlayerRange(); players < least || players > most {
		why := ""
		if m.HostSeats > 0 {
			why = fmt.Sprintf(" (its host plays %d of them)", m.HostSeats)
		}
		return nil, Sides{}, fmt.Errorf("--players %d: model %s plays %d to %d players%s", players, m.Name, least, most, why)
	}
	build := f.sides[m.Name]
	if build == nil {
		return nil, Sides{}, fmt.Errorf("%w %q: it declares no sides", ErrModel, m.Name)
	}
	s, err := build()
	return m, s, err
}
