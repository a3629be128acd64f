package match

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/viewer"
)

// Model is one game on one network model as the runtime knows it: its
// name on the command line and how to build its two sides. A game
// registers it (Register), usually from an init function of its own
// package; nothing in the runtime or the commands changes.
type Model struct {
	// Name is the value of --model, such as "lockstep".
	Name string
	// Summary is one line for the commands' help.
	Summary string
	// Flags declares the model's own flags on fs and returns the function
	// that builds its Sides once the flags are parsed. Every model's flags
	// are declared on serve, play and demo alike, so their names must
	// differ from every other model's and from the runtime's; start their
	// usage with the model's name. A model without flags of its own
	// declares none and returns the function; Flags.Sides refuses a
	// model without one.
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
	// Keys says what the viewer's keys do, for the commands' hints, such
	// as "arrows move your paddle". Empty: DefaultKeyHelp.
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

// DefaultKeyHelp is KeyHelp for a model that does not say what its keys do.
const DefaultKeyHelp = "the page's keys play"

// KeyHelp is what the viewer's keys do in m.
func (m *Model) KeyHelp() string {
	if m.Keys == "" {
		return DefaultKeyHelp
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
	// World names the world the match is played in, as far as server and
	// players must agree on it, such as the cube world's layout "tower20";
	// "" if the model has one world only.
	World string
}

// Agreement is the description of a match that server and players
// compare before any state or input flows (udpdrive's hello): the
// model, its config, its world and the players, such as "lockstep
// (rollback, datagrams) on tower20 for 4 players". A player set up
// otherwise is refused with a message naming both.
func Agreement(m *Model, sides Sides, setup Setup) string {
	model := m.Name
	if sides.Config != "" {
		model += " (" + sides.Config + ")"
	}
	if world := cmp.Or(setup.World, sides.World); world != "" {
		model += " on " + world
	}
	return fmt.Sprintf("%s for %d players", model, setup.Players)
}

// Setup is what the runtime tells a model about the match.
type Setup struct {
	// Players is the match's player count (--players), the host's seats
	// (Model.HostSeats) included: the session a lockstep server waits
	// for, the VR table of a statesync host.
	Players int
	// World names the world this match is played in where the match
	// itself says (serve --rooms: its token's), as the game names its
	// worlds (the cube world's layouts); "" leaves it to the game's flags
	// (Sides.World). A game of one world refuses any other name.
	World string
	// Logger is the one logger of the side: the runtime's lines, the
	// driver's and netcode's all go to it. Nil: slog.Default().
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
	// Bot says the player is a bot (play --bot, the demo's other players,
	// netphys load): the game plays its own scripted behaviour, and Keys
	// is nil.
	Bot bool
	// Keys are the viewer page's keys and mouse that drive a player that
	// is not a bot, for the game to map onto its own input (Keys.At).
	Keys *Keys
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
