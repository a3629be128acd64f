package match

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/tokenservice"
)

// RoomsConfig sets up a server process that hosts many matches at once
// on one UDP port (serve --rooms).
type RoomsConfig struct {
	// Flags build the sides of each match's model, from the command's
	// model flags (--rollback, ...), and give the default layout.
	Flags *Flags
	// Default is the match of tokens that name none in their user data:
	// the command's --model, --players and --layout, one match at a time
	// as Serve plays it. Nil: such tokens are refused.
	Default *tokenservice.Match
	// Setup carries the Logger and the Record directory; each match's
	// players and layout are its token's.
	Setup Setup
	// Conn is the server's bound UDP socket; ServeRooms owns it.
	Conn transport.PacketConn
	// Transport configures netcode (key, protocol id, public address,
	// slots, shared by every match).
	Transport transport.ServerConfig
	// MaxDuration ends a match this long after its first player arrived,
	// its players told why; 0: never.
	MaxDuration time.Duration
	// Report logs the process's figures this often; 0: never.
	Report time.Duration
	// Status receives the summary of every match that ends; nil: none.
	Status io.Writer
	// Listening, when set, is called once the server is up (its metrics,
	// the lifecycle); its error stops ServeRooms, its stop function runs
	// when ServeRooms returns.
	Listening func(*udpdrive.Rooms) (stop func(), err error)
	// Refusals, when set, keeps what the models refused of their clients
	// (a Refuser host's counts), summed over the matches, for the metrics.
	Refusals *RefusalTally
	// Draining, when set, reports that the server is to stop: tokens
	// naming a match that does not run are refused, the running ones
	// may finish.
	Draining func() bool
	// Admin, when set, serves the admin API (GET /matches, DELETE
	// /matches/{id}: see RoomInfo) until ServeRooms returns, which
	// closes it. It has no authentication: a private address.
	Admin net.Listener
	// Opened, when set, is told the id of each match as its room opens
	// (its first player's token; "" for the Default match), on the
	// goroutine that steps the rooms: it must not block.
	Opened func(id string)
}

// defaultRoom is the id of the Default match: a token's id is never
// empty.
const defaultRoom = ""

// panicHook names a match whose host panics two seconds after it opened,
// for the process tests: NETPHYS_TEST_PANIC_MATCH=id.
const panicHook = "NETPHYS_TEST_PANIC_MATCH"

// ServeRooms runs many matches of any registered model at once on one
// netcode server until ctx ends. Each player's connect token names its
// match (tokenservice.Match in its user data: id, model, game, layout,
// players); the first token of an id opens the match with a new Host,
// later ones join it, and it ends when its players have left, or after
// MaxDuration. Its summary then goes to Status. One match's failure, or
// its model's panic, ends that match alone: its players get the reason
// in a bye. Players must agree on the match as with Serve (Agreement):
// play --model, --players and --layout as the token says.
func ServeRooms(ctx context.Context, cfg RoomsConfig) error {
	log := cfg.Setup.Logger
	if log == nil {
		log = slog.Default()
		cfg.Setup.Logger = log
	}
	if cfg.Admin != nil {
		defer cfg.Admin.Close()
	}
	lobby := &roomLobby{cfg: &cfg, log: log, rooms: map[string]*room{}, panicID: os.Getenv(panicHook)}
	rooms, err := udpdrive.NewRooms(cfg.Conn, udpdrive.RoomsConfig{Transport: cfg.Transport, Logger: log, Lobby: lobby, FailGrace: failGrace})
	if err != nil {
		cfg.Conn.Close()
		return err
	}
	defer rooms.Close()
	if cfg.Listening != nil {
		stop, err := cfg.Listening(rooms)
		if err != nil {
			return err
		}
		defer stop()
	}
	calls := newLoopCalls()
	defer close(calls.stopped)
	if cfg.Admin != nil {
		web := &http.Server{Handler: adminHandler(rooms, lobby, calls), ReadHeaderTimeout: 5 * time.Second}
		go web.Serve(cfg.Admin)
		defer web.Close()
		log.Info("rooms: admin API", "url", "http://"+cfg.Admin.Addr().String()+"/matches")
	}
	lastLog := time.Now()
	var running []*udpdrive.Match
	err = udpdrive.Run(ctx, udpdrive.DefaultFrame, func(now time.Time) (bool, error) {
		calls.run(now)
		running = rooms.Matches(running[:0])
		for _, m := range running {
			lobby.sample(now, m)
			if cfg.MaxDuration > 0 && m.Err() == nil && now.Sub(m.Opened()) >= cfg.MaxDuration {
				reason := fmt.Sprintf("the match reached the server's maximum duration, %v", cfg.MaxDuration)
				log.Info("rooms: match over", "match", m.ID(), "reason", reason)
				rooms.End(now, m.ID(), reason)
			}
		}
		if cfg.Report > 0 && now.Sub(lastLog) >= cfg.Report {
			f := rooms.Figures()
			log.Info("rooms", "matches", len(f.Matches), "players", f.Players, "opened", f.Opened, "closed", f.Closed, "failed", f.Failed,
				"late_ticks", f.LateTicks, "cpu_per_tick", Round(ms(f.CPUPerTick))+" ms", "up", Round(f.UpKbps)+" kbps", "down", Round(f.DownKbps)+" kbps")
			lastLog = now
		}
		return false, nil
	}, rooms)
	// The matches still open when serve stops (cut off by a signal, or
	// whose last player left in its last frame): their players are told
	// why, and they print their summaries too; a host without its match,
	// if any, is closed.
	now := time.Now()
	for _, m := range rooms.Matches(running[:0]) {
		if m.Err() == nil {
			rooms.End(now, m.ID(), StoppedReason)
		}
		lobby.Closed(now, m)
	}
	for _, r := range lobby.rooms {
		closeHost(r.host, log)
	}
	return err
}

// room is one running match as the runtime knows it.
type room struct {
	spec   tokenservice.Match
	model  *Model
	host   Host
	played []bool   // slots that joined the match
	ids    []uint64 // their client ids
}

// roomLobby is ServeRooms' udpdrive.Lobby.
type roomLobby struct {
	cfg     *RoomsConfig
	log     *slog.Logger
	rooms   map[string]*room // by match id
	panicID string
	next    tokenservice.Match // the match Route named, for Open
}

// Route reads the match a token names; one that names none is the
// Default match.
func (l *roomLobby) Route(now time.Time, client netcode.ClientID, ud *netcode.UserData) (string, error) {
	spec, ok, err := tokenservice.MatchFromUserData(ud)
	switch {
	case err != nil:
		return "", fmt.Errorf("the token's match does not read: %w", err)
	case !ok && l.cfg.Default == nil:
		return "", errors.New("this server hosts the matches its tokens name (serve --rooms), and this token names none: get one from the token service or netphys token --match")
	case !ok:
		spec = *l.cfg.Default
		spec.ID = defaultRoom
	}
	r := l.rooms[spec.ID]
	switch {
	case r != nil && r.spec != spec:
		return "", fmt.Errorf("match %s is %s; the token names %s", spec.ID, describe(r.spec), describe(spec))
	case r == nil && l.cfg.Draining != nil && l.cfg.Draining():
		return "", errors.New("the server is draining (it was told to stop): it opens no new matches; try another server")
	}
	l.next = spec
	return spec.ID, nil
}

// describe is a match as its token names it.
func describe(m tokenservice.Match) string {
	s := fmt.Sprintf("%s on %s for %d players", m.Model, layoutName(m.Layout), m.Players)
	if m.Game != "" {
		s += " of game " + m.Game
	}
	return s
}

func layoutName(l string) string {
	if l == "" {
		return "the default layout"
	}
	return l
}

// Open builds the Host of the match Route named.
func (l *roomLobby) Open(now time.Time, id string, _ *netcode.UserData) (udpdrive.MatchSetup, error) {
	spec := l.next
	if spec.Game != "" && spec.Game != "cubes" {
		return udpdrive.MatchSetup{}, fmt.Errorf("game %q: this server plays the cube world only (game \"cubes\", or none)", spec.Game)
	}
	m, sides, err := l.cfg.Flags.SidesOf(spec.Model, spec.Players)
	if err != nil {
		return udpdrive.MatchSetup{}, fmt.Errorf("the token's match %s, %s: %w", id, describe(spec), err)
	}
	setup := l.cfg.Setup
	setup.Players, setup.Now = spec.Players, now
	setup.World = spec.Layout
	if setup.Record != "" && !m.Records {
		setup.Record = "" // this model records no matches
	}
	if setup.Record != "" {
		// A directory per match: matches opened in the same millisecond
		// would share a replay's name. "match-" keeps ".." a name.
		setup.Record = filepath.Join(setup.Record, "match-"+cmp.Or(id, "default"))
		if err := os.MkdirAll(setup.Record, 0o755); err != nil {
			return udpdrive.MatchSetup{}, fmt.Errorf("--record: %w", err)
		}
	}
	host, err := sides.NewHost(setup)
	if err != nil {
		return udpdrive.MatchSetup{}, err
	}
	r := &room{spec: spec, model: m, host: host}
	l.rooms[id] = r
	if l.cfg.Refusals != nil {
		l.cfg.Refusals.follow(id, host)
	}
	l.log.Info("rooms: match opened", "match", id, "model", m.Name, "world", cmp.Or(setup.World, sides.World), "players", spec.Players)
	model := udpdrive.MatchSetup{Model: host, Agree: Agreement(m, sides, setup), Kind: m.Name}
	if l.panicID != "" && id == l.panicID {
		model.Model = &panicky{Host: host, at: now.Add(2 * time.Second)}
	}
	if l.cfg.Opened != nil {
		l.cfg.Opened(id)
	}
	return model, nil
}

// sample notes the players of a running match, for its summary.
func (l *roomLobby) sample(now time.Time, m *udpdrive.Match) {
	r := l.rooms[m.ID()]
	if r == nil {
		return
	}
	for len(r.played) < m.Slots() { // a match's slots grow as its clients come
		r.played, r.ids = append(r.played, false), append(r.ids, 0)
	}
	for slot := range r.played {
		if m.Joined(slot) && !r.played[slot] {
			r.played[slot], r.ids[slot] = true, uint64(m.ClientID(slot))
			l.log.Info("rooms: player joined", "match", m.ID(), "player", slot+1, "client_id", r.ids[slot])
		}
	}
}

// Closed prints the summary of a match that ended and closes its host.
func (l *roomLobby) Closed(now time.Time, m *udpdrive.Match) {
	r := l.rooms[m.ID()]
	if r == nil {
		return
	}
	delete(l.rooms, m.ID())
	if l.cfg.Refusals != nil {
		l.cfg.Refusals.retire(m.ID())
	}
	d := now.Sub(m.Opened())
	l.log.Info("rooms: match over", "match", m.ID(), "model", r.model.Name, "duration", d.Round(time.Millisecond), "failed", m.Err())
	if l.cfg.Status != nil {
		roomSummary(now, r, m, d).Print(l.cfg.Status)
	}
	closeHost(r.host, l.log)
}

// roomSummary is the summary of one match of a rooms server.
func roomSummary(now time.Time, r *room, m *udpdrive.Match, d time.Duration) Summary {
	name := r.spec.ID
	if name == defaultRoom {
		name = "(the default match)"
	}
	lines := withAgreement(r.host, now, r.host.Summary(now, nil))
	if err := m.Err(); err != nil {
		lines = append(lines, Line{"failed", err.Error()})
	}
	if x := m.Refusals(); len(x) > 0 {
		parts := make([]string, len(x))
		for i, c := range x {
			parts[i] = fmt.Sprintf("%s %d", c.Reason, c.Count)
		}
		lines = append(lines, Line{"refused", strings.Join(parts, ", ") + " (clients of this match refused or sent away)"})
	}
	lines = append(lines, costLine(m.Cost()))
	s := Summary{Command: "serve", Model: r.model.Name, Duration: d, Sections: []Section{{Name: "match " + name, Lines: lines}}}
	for slot, p := range r.played {
		if p {
			s.Sections = append(s.Sections, Section{Name: fmt.Sprintf("match %s player %d (client id %d)", name, slot+1, r.ids[slot]), Lines: trafficLines(nil, m.Traffic(slot), d)})
		}
	}
	return s
}

// panicky is a Host whose Update panics from a given time on: the test
// hook NETPHYS_TEST_PANIC_MATCH, a model's bug on demand.
type panicky struct {
	Host
	at time.Time
}

func (p *panicky) Update(now time.Time, send func(int, []byte)) error {
	if !now.Before(p.at) {
		panic(panicHook + ": this match's host fails on purpose")
	}
	return p.Host.Update(now, send)
}
