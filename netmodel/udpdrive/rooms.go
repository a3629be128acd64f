package udpdrive

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
)

// Rooms drive many matches, each with its own model, on one netcode
// server: one UDP port, one goroutine. Every client's connect token
// names its match in its user data; the Lobby reads it, and builds the
// match for its first client. Each match numbers its own slots from 0
// (the welcome tells the client its slot), has its own handshake
// description (ServerConfig.Agree: required), counts and cost, and ends
// when its last client has left: the Lobby is told, and a later token
// naming the same id opens a new match.
//
// One match's failure never touches another: an Update error is logged,
// the match goes on being stepped for RoomsConfig.FailGrace (its model
// may tell its players why) and its clients then get a bye with the
// error; a panic in any of its model's calls is recovered, logged with
// its stack, and ends the match at once, its model never called again.
//
//	rooms, err := udpdrive.NewRooms(conn, udpdrive.RoomsConfig{Transport: tc, Lobby: lobby})
//	err = udpdrive.Run(ctx, udpdrive.DefaultFrame, nil, rooms)
//
// Step, Matches, Lookup and End belong to one goroutine, the one that
// steps the Rooms; Refusals may be read from any.
type Rooms struct {
	ts      *transport.Server
	log     *slog.Logger
	lobby   Lobby
	wait    time.Duration
	grace   time.Duration
	in      inbox
	spare   []event
	clients []seat   // by netcode client index
	matches []*Match // running, oldest first
	byID    map[string]*Match
	refused refusals // every match's, and the clients no match took
	cost    Cost
	dropped uint64

	frame                  time.Duration // RoomsConfig.Frame
	lastStep               time.Time
	late                   uint64 // frames missed
	opened, closed, failed uint64 // matches
	figs                   figures
}

// seat is where a netcode client is: its match and its slot there.
type seat struct {
	m    *Match // nil: in no match
	slot int
}

// RoomsConfig configures Rooms.
type RoomsConfig struct {
	// Transport configures the netcode server. Its OnPayload, OnConnect
	// and OnDisconnect are the driver's.
	Transport transport.ServerConfig
	Logger    *slog.Logger // nil: slog.Default()
	// Lobby names and builds the matches. Required.
	Lobby Lobby
	// HelloTimeout bounds the wait for a client's hello. Default 5 s.
	HelloTimeout time.Duration
	// Frame is how often the Rooms are stepped (Run's frame), for the
	// count of late ticks. Default DefaultFrame.
	Frame time.Duration
	// FailGrace is how long a match whose model's Update failed goes on
	// being stepped before its clients get a bye with the error. Default
	// 1 s; negative: none.
	FailGrace time.Duration
}

// A Lobby names the match of every client Rooms connect, and builds the
// matches. Its methods are called on the goroutine that steps the Rooms.
type Lobby interface {
	// Route returns the id of the match the client's token names in its
	// user data, or an error, which refuses the client with its text as
	// the reason.
	Route(now time.Time, client netcode.ClientID, userData *netcode.UserData) (match string, err error)
	// Open builds match for its first client. An error refuses the
	// client.
	Open(now time.Time, match string, userData *netcode.UserData) (MatchSetup, error)
	// A panic in Open refuses the client (counted "open_failed"); one in
	// Closed is logged. Either way the other matches go on.
	//
	// Closed tells of a match that is over: every client has left it
	// (sent away after a failure, or an End, included). m.Err() says why
	// it failed, if it did. m is forgotten once Closed returns.
	Closed(now time.Time, m *Match)
}

// MatchSetup is a match the Lobby built.
type MatchSetup struct {
	Model netmodel.Server
	// Agree is the description of the match its clients must agree on
	// (ServerConfig.Agree); required.
	Agree string
	// Kind names the model for the figures (MatchFigures.Kind), such as
	// "lockstep".
	Kind string
}

// ErrNoLobby is NewRooms' error for a config without a Lobby.
var ErrNoLobby = errors.New("udpdrive: rooms need a Lobby to name and build their matches")

// NewRooms starts a netcode server on conn, which the Rooms then own
// (on an error, the caller still does).
func NewRooms(conn transport.PacketConn, cfg RoomsConfig) (*Rooms, error) {
	if cfg.Lobby == nil {
		return nil, ErrNoLobby
	}
	r := &Rooms{log: cfg.Logger, lobby: cfg.Lobby, wait: cfg.HelloTimeout, grace: cfg.FailGrace, byID: map[string]*Match{}}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.grace == 0 {
		r.grace = time.Second
	}
	if r.frame = cfg.Frame; r.frame <= 0 {
		r.frame = DefaultFrame
	}
	tc := cfg.Transport
	tc.OnPayload = func(i netcode.ClientIndex, b []byte) { r.in.push(evPayload, int(i), b) }
	tc.OnConnect = func(i netcode.ClientIndex, id netcode.ClientID, ud *netcode.UserData) {
		r.in.push(evJoin, int(i), joinData(id, ud))
	}
	tc.OnDisconnect = func(i netcode.ClientIndex, _ bool) { r.in.push(evLeave, int(i), nil) }
	r.in.init(tc.Now, maxQueuedPerSlot, roomsQueuedPerClient*tc.Netcode.MaxClients)
	if tc.Logger == nil {
		tc.Logger = r.log
	}
	ts, err := transport.NewServer(conn, tc)
	if err != nil {
		return nil, err
	}
	r.ts = ts
	r.clients = make([]seat, ts.MaxClients())
	return r, nil
}

// joinData packs a connect's client id and user data into its event.
func joinData(id netcode.ClientID, ud *netcode.UserData) []byte {
	b := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+netcode.UserDataBytes), uint64(id))
	if ud != nil {
		b = append(b, ud[:]...)
	}
	return b
}

// Transport is the netcode server, for its address, counters and tokens.
func (r *Rooms) Transport() *transport.Server { return r.ts }

// Step hands every match what arrived for it since the last Step, each
// at the time it arrived, runs every match's Update at now, ends the
// matches that failed and closes those every client has left. It
// returns no model's error: those end their match only.
func (r *Rooms) Step(now time.Time) error {
	defer r.cost.add(time.Now())
	defer r.ts.Flush() // every match's datagrams of the frame, together
	r.note(now)
	r.refresh(now)
	q, dropped := r.in.swap(r.spare)
	if dropped > r.dropped {
		r.log.Warn("udpdrive: payloads dropped: the model goroutine fell behind, or a client sent more than its share", "total", dropped)
		r.dropped = dropped
	}
	for _, e := range q {
		r.handle(now, e)
	}
	clear(q)
	r.spare = q
	for _, m := range r.matches {
		r.update(now, m)
	}
	r.close(now)
	return nil
}

// handle routes an event to its match.
func (r *Rooms) handle(now time.Time, e event) {
	if e.kind == evJoin {
		r.connect(now, e)
		return
	}
	s := &r.clients[e.slot]
	m := s.m
	if m == nil {
		return // a client no match took, on its way out
	}
	slot, at := s.slot, m.clock.at(e.at)
	if e.kind == evLeave {
		m.client[slot] = -1
		m.used--
		*s = seat{}
	}
	if m.dead {
		return
	}
	start := time.Now()
	r.guard(now, m, func() {
		if e.kind == evLeave {
			m.leave(at, slot)
		} else {
			m.payload(at, slot, e.data)
		}
	})
	m.cost.Total += time.Since(start)
}

// connect finds or opens the match of a client netcode connected and
// gives it the match's lowest free slot.
func (r *Rooms) connect(now time.Time, e event) {
	if r.clients[e.slot].m != nil {
		// netcode connects a slot only after its disconnect, which is
		// queued first: never expected, but the old client must go.
		r.handle(now, event{kind: evLeave, slot: e.slot, at: e.at})
	}
	index := netcode.ClientIndex(e.slot)
	var ud netcode.UserData
	id := netcode.ClientID(binary.LittleEndian.Uint64(e.data))
	copy(ud[:], e.data[8:])
	name, err := r.lobby.Route(now, id, &ud)
	if err != nil {
		r.turnAway(index, "no_match", err.Error())
		return
	}
	m := r.byID[name]
	if m != nil && m.failed != nil {
		why := "failed"
		if m.endedBy {
			why = "is over"
		}
		r.turnAway(index, "match_failed", fmt.Sprintf("the match %s %s: %v", name, why, m.failed))
		return
	}
	if m == nil {
		var setup MatchSetup
		if p := r.recovered("open", name, func() { setup, err = r.lobby.Open(now, name, &ud) }); p != nil {
			err = p
		}
		if err == nil && setup.Agree == "" {
			err = errors.New("udpdrive: the lobby opened a match without a description for the hello")
		}
		if err != nil {
			r.log.Info("udpdrive: no match opened for a client", "match", name, "client_id", id, "err", err)
			r.turnAway(index, "open_failed", err.Error())
			return
		}
		m = newMatch(name, setup.Model, r.ts, r.log, 0, setup.Agree, r.wait)
		m.also, m.opened, m.kind = &r.refused, now, setup.Kind
		r.matches = append(r.matches, m)
		r.byID[name] = m
		r.opened++
		r.log.Info("udpdrive: match opened", "match", name, "agree", setup.Agree)
	}
	slot := 0
	for slot < len(m.client) && m.client[slot] >= 0 {
		slot++
	}
	if slot == len(m.client) {
		m.grow() // never past netcode's slots: each holds a client
	}
	m.client[slot] = e.slot
	m.used++
	m.had = true
	r.clients[e.slot] = seat{m: m, slot: slot}
	at := m.clock.at(e.at)
	start := time.Now()
	r.guard(now, m, func() { m.connect(at, slot, uint64(id)) })
	m.cost.Total += time.Since(start)
}

// turnAway refuses a client no match takes.
func (r *Rooms) turnAway(index netcode.ClientIndex, code, reason string) {
	r.log.Info("udpdrive: refused a client", "client", index, "reason", reason)
	sendAway(r.ts, r.log, index, reason, false)
	r.refused.add(code)
}

// update steps one match, and ends it once it has failed.
func (r *Rooms) update(now time.Time, m *Match) {
	if !m.dead && (m.failed == nil || now.Sub(m.failAt) < r.grace) {
		start := time.Now()
		var err error
		r.guard(now, m, func() { err = m.update(now) })
		m.cost.add(start)
		if err != nil && m.failed == nil {
			r.log.Error("udpdrive: a match failed; its players are told, the other matches go on", "match", m.id, "err", err)
			m.failed, m.failAt = err, now
		}
	}
	if m.failed != nil && !m.ended && (m.dead || now.Sub(m.failAt) >= r.grace) {
		m.ended = true
		reason := m.failed.Error()
		code := "match_failed"
		if m.endedBy {
			code = "match_ended"
		}
		r.guard(now, m, func() { m.end(now, code, reason) })
		m.refuseWaiting(code, reason)
	}
}

// guard runs call, one of m's model calls; a panic fails m at once and
// leaves its model alone from then on.
func (r *Rooms) guard(now time.Time, m *Match, call func()) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("udpdrive: a match's model panicked; the match ends, the others go on", "match", m.id, "panic", p, "stack", string(debug.Stack()))
			m.dead = true
			if m.failed == nil {
				m.failed, m.failAt = fmt.Errorf("the server's model of this match failed (a bug: panic: %v)", p), now
			}
		}
	}()
	call()
}

// recovered runs call, the Lobby's Open or Closed (what: "open",
// "close"), which build and read models, and returns a panic in it as an
// error, logged with its stack.
func (r *Rooms) recovered(what, match string, call func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("udpdrive: the lobby panicked; the other matches go on", "call", what, "match", match, "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("the server failed to %s the match (a bug: panic: %v)", what, p)
		}
	}()
	call()
	return nil
}

// close forgets the matches every client has left, telling the Lobby.
func (r *Rooms) close(now time.Time) {
	kept := r.matches[:0]
	for _, m := range r.matches {
		if m.had && m.used == 0 {
			delete(r.byID, m.id)
			r.closed++
			if m.failed != nil {
				r.failed++
			}
			r.recovered("close", m.id, func() { r.lobby.Closed(now, m) })
			continue
		}
		kept = append(kept, m)
	}
	clear(r.matches[len(kept):])
	r.matches = kept
}

// Matches appends the running matches, oldest first, to dst.
func (r *Rooms) Matches(dst []*Match) []*Match { return append(dst, r.matches...) }

// Lookup returns the running match id, nil if none.
func (r *Rooms) Lookup(id string) *Match { return r.byID[id] }

// ErrNoSuchMatch is End's error for an id no running match has.
var ErrNoSuchMatch = errors.New("udpdrive: no such match")

// End ends the running match id with reason (a maximum duration, the
// backend's word): its clients get a bye with it at once, counted as
// "match_ended", and the match closes once they have left; its model is
// not stepped again. Its Err is then reason.
func (r *Rooms) End(now time.Time, id, reason string) error {
	m := r.byID[id]
	if m == nil {
		return fmt.Errorf("%w %q", ErrNoSuchMatch, id)
	}
	if m.failed == nil {
		m.failed, m.endedBy = errors.New(reason), true
	}
	m.failAt = now.Add(-r.grace) // no grace: at once
	r.update(now, m)
	return nil
}

// Cost is the time the Steps took, every match's included.
func (r *Rooms) Cost() Cost { return r.cost }

// Dropped counts the payloads the driver's queue refused.
func (r *Rooms) Dropped() uint64 { return r.dropped }

// Refusals returns the clients refused or released so far by every
// match, and those no match took ("no_match", "open_failed"), by reason,
// sorted by reason. It is safe to call from any goroutine.
func (r *Rooms) Refusals() []Refusal { return r.refused.list() }

// Close disconnects every client and closes the socket. No model sees a
// Leave.
func (r *Rooms) Close() error { return r.ts.Close() }
