package match

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
)

// Model is one network model as the runtime knows it: its name on the
// command line and how to build its two sides. A model registers itself
// from an init function in a file of this package (lockstep.go is the
// example); nothing else in the runtime or the commands changes.
type Model struct {
	// Name is the value of --model, such as "lockstep".
	Name string
	// Summary is one line for the commands' help.
	Summary string
	// Flags declares the model's own flags on fs and returns the function
	// that builds its Sides once the flags are parsed. Every model's flags
	// are declared on serve, play and demo alike, so their names must
	// differ from every other model's and from the runtime's; start their
	// usage with the model's name. Nil: no flags of its own.
	Flags func(fs *flag.FlagSet) func() (Sides, error)
	// HostSeats is how many of the match's --players the Host plays
	// itself (statesync's host is player 0 of the VR table): the demo
	// starts --players minus HostSeats clients. 0: every player is a
	// client, the server none.
	HostSeats int
	// MaxPlayers is the most --players the model plays (the least is
	// HostSeats+1); a --players outside is refused before anything
	// starts, and --help lists each model's range. 0: the runtime's
	// limit, MaxPlayers.
	MaxPlayers int
	// Keys says what the viewer's keys do, for the commands' hints. Empty:
	// the cube world's (CubeKeys).
	Keys string
	// Records says the model's host records each match to a file in
	// Setup.Record (serve --record); the others refuse the flag.
	Records bool
	// OwnSpectators says the model's spectators (PlayerSetup.Spectate)
	// say so in its own messages (lockstep's); the others' say it in the
	// driver's hello (udpdrive.Watching), and their host takes them by
	// Watch (udpdrive.Spectated).
	OwnSpectators bool
}

// CubeKeys are the cube world's keys.
const CubeKeys = "arrows move your cube, space lifts and blasts, z pulls cubes in"

// KeyHelp is what the viewer's keys do in m.
func (m *Model) KeyHelp() string {
	if m.Keys == "" {
		return CubeKeys
	}
	return m.Keys
}

// MaxPlayers is the runtime's limit on --players, whatever the model.
const MaxPlayers = 64

// PlayerRange is the least and the most --players m plays.
func (m *Model) PlayerRange() (least, most int) {
	most = m.MaxPlayers
	if most == 0 {
		most = MaxPlayers
	}
	return m.HostSeats + 1, most
}

// Clients is how many clients a match of players needs.
func (m *Model) Clients(players int) int { return players - m.HostSeats }

// Sides builds the two sides of a model for one match. Setups carry what
// the runtime knows; the model's flags were read when Sides was built.
type Sides struct {
	NewHost   func(Setup) (Host, error)
	NewPlayer func(PlayerSetup) (Player, error)
	// Config describes what of the model's own flags server and players
	// must agree on, such as "rollback, datagrams"; "" if nothing.
	Config string
}

// Agreement is the description of a match that server and players
// compare before any state or input flows (udpdrive's hello): the
// model, its config, the layout of the cube world and the players. A
// player set up otherwise is refused with a message naming both.
func Agreement(m *Model, sides Sides, setup Setup) string {
	model := m.Name
	if sides.Config != "" {
		model += " (" + sides.Config + ")"
	}
	return fmt.Sprintf("%s on %v for %d players", model, setup.Layout, setup.Players)
}

// Setup is what the runtime tells a model about the match.
type Setup struct {
	// Players is the match's player count (--players), the host's seats
	// (Model.HostSeats) included: the session a lockstep server waits
	// for, the VR table of a statesync host.
	Players int
	// Layout is the cube world's starting arrangement (--layout).
	Layout scene.Layout
	Logger *slog.Logger
	// Record is the directory a host of a Model that Records writes each
	// match's replay to (serve --record); empty: none. A Host that records
	// is an io.Closer, closed when its match ends.
	Record string
	// Now is the wall-clock time the side is built at, set by the
	// runtime: the models' constructors take the time as an argument.
	Now time.Time
}

// PlayerSetup is what the runtime tells one player's side.
type PlayerSetup struct {
	Setup
	// Slot is netcode's client index, which the server's side sees as
	// the player's slot.
	Slot int
	// Controls drive the player: the viewer's keys, or a Bot playing the
	// scripted minute of the cube world.
	Controls Controls
	// Bot says the player is a bot (play --bot, the demo's other players):
	// a model with scripted behaviours of its own plays them instead of
	// Controls.
	Bot bool
	// Ticks ends the player's match once it has simulated (and, where the
	// model confirms ticks, confirmed) this many ticks; 0: never.
	Ticks int
	// Spectate makes the player a spectator (play --spectate): it watches
	// the match without a seat and never holds the players back.
	Spectate bool
}

// Side is what the runtime shows and prints of either side of a model.
// Its methods are called on the loop's goroutine between frames, so they
// may read the model without locks.
type Side interface {
	// Views appends the worlds this side shows, usually one, to dst.
	Views(dst []viewer.View) []viewer.View
	// Figures appends the side's live figures at now (input delay,
	// stalls, rollbacks per second, ...) to dst. The runtime adds the
	// traffic.
	Figures(now time.Time, dst []viewer.Figure) []viewer.Figure
	// Summary appends what the side prints when it stops at now.
	Summary(now time.Time, dst []Line) []Line
}

// Host is a model's server side: the relay, the authority or the host.
type Host interface {
	netmodel.Server
	Side
}

// Player is a model's client side.
type Player interface {
	netmodel.Client
	Side
	// Done reports that the match PlayerSetup.Ticks asked for is over.
	Done() bool
}

// Checksummer is implemented by players whose worlds must agree bit for
// bit (lockstep): Checksum returns a tick that can no longer change and
// its world's checksum. The demo samples it once per frame and compares
// the ticks every player reported, so the tick must stay the answer for
// a few frames: the newest of every 60th tick, say.
type Checksummer interface {
	Checksum() (tick int, sum uint64, ok bool)
}

// Line is one line of a summary: a name and its value as text, so that a
// checksum prints exactly and a test can read it back.
type Line struct{ Name, Value string }

// Controls are where a player's input comes from.
type Controls interface {
	// Input returns the input of player (the model's index of the player
	// in its match) for simulation tick t.
	Input(player, t int) scene.Input
}

// ErrModel reports an unknown --model.
var ErrModel = errors.New("match: unknown model")

var models = map[string]*Model{}

// Register adds a model; it panics on a name registered twice, from init.
func Register(m *Model) {
	if m.Name == "" || models[m.Name] != nil {
		panic("match: model registered twice or without a name: " + m.Name)
	}
	models[m.Name] = m
}

// Lookup returns the model named name.
func Lookup(name string) (*Model, error) {
	if m := models[name]; m != nil {
		return m, nil
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrModel, name, strings.Join(Names(), ", "))
}

// Names lists the registered models, sorted.
func Names() []string {
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
