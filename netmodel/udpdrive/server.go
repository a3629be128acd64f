package udpdrive

import (
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
)

// ErrUpdate wraps the error a model's Update returned: the session cannot
// go on.
var ErrUpdate = errors.New("udpdrive: model stopped")

// ServerConfig configures a Server driver.
type ServerConfig struct {
	// Transport configures the netcode server. Its OnPayload, OnConnect and
	// OnDisconnect are the driver's: they queue events for Step.
	Transport transport.ServerConfig
	Logger    *slog.Logger // nil: slog.Default()
	// Agree, when not empty, describes the match this server runs: the
	// model, its config, the game and its layout, the players. Every
	// client must then open with a hello carrying the same description
	// (ClientConfig.Agree) before the model sees it; a client whose
	// description differs is refused with a message naming both, and so
	// is one that sends no hello within HelloTimeout. Empty: clients join
	// the model as soon as netcode connects them.
	Agree string
	// HelloTimeout bounds the wait for a client's hello. Default 5 s.
	HelloTimeout time.Duration
}

// A Releaser is a model that tells its driver when it is done with a
// client (it dropped the player and has told it why, say): the driver
// then sends the client a bye with the reason and closes its connection,
// so that a client the match no longer counts cannot keep it alive.
// code is a short name for the counters ("desync", "lag"; "" for a
// player that left by itself, which is not counted); a model sets it as
// soon as it has dropped the client, and done once it has told it, so
// that a client that leaves in between is counted too.
type Releaser interface {
	Released(slot int) (code, reason string, done bool)
}

// Spectated is the optional capability of a model that takes spectators:
// a client whose hello is Watching(ServerConfig.Agree) is handed to Watch
// instead of Join (a refusal is a join_refused as Join's); its datagrams
// and its leaving then go to Receive and Leave as a player's do. A model
// without it refuses such a client as set up for another match.
type Spectated interface {
	Watch(now time.Time, slot int) error
}

// Watching is the hello of a client that asks to watch the match agree
// describes (ClientConfig.Agree).
func Watching(agree string) string { return "spectating " + agree }

// byeCopies is how many copies of a refusal or a bye are sent before the
// connection is closed, so that a lost datagram does not hide the reason.
const byeCopies = 3

// DefaultServerConfig returns the transport's defaults.
func DefaultServerConfig() ServerConfig {
	return ServerConfig{Transport: transport.DefaultServerConfig()}
}

// Server drives a netmodel.Server on a netcode server over UDP: netcode's
// connects and disconnects become Join and Leave, its payloads Receive,
// and Step runs Update and sends what it returns. Step, Traffic and
// Dropped belong to one goroutine, the one that owns the model.
type Server struct {
	m       *Match // the one match, on every slot: a slot is netcode's client index
	ts      *transport.Server
	log     *slog.Logger
	in      inbox
	spare   []event
	dropped uint64 // payloads the inbox refused
}

// NewServer starts a netcode server on conn, which the Server then owns,
// and feeds model from it.
func NewServer(model netmodel.Server, conn transport.PacketConn, cfg ServerConfig) (*Server, error) {
	s := &Server{log: cfg.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	tc := cfg.Transport
	tc.OnPayload = func(i netcode.ClientIndex, b []byte) { s.in.push(evPayload, int(i), b) }
	tc.OnConnect = func(i netcode.ClientIndex, id netcode.ClientID, _ *netcode.UserData) {
		s.in.pushID(evJoin, int(i), nil, uint64(id))
	}
	tc.OnDisconnect = func(i netcode.ClientIndex, _ bool) { s.in.push(evLeave, int(i), nil) }
	s.in.init(tc.Now, maxQueuedPerSlot, 0)
	if tc.Logger == nil {
		tc.Logger = s.log
	}
	ts, err := transport.NewServer(conn, tc)
	if err != nil {
		return nil, err
	}
	s.ts = ts
	s.m = newMatch("", model, ts, s.log, ts.MaxClients(), cfg.Agree, cfg.HelloTimeout)
	for i := range s.m.client {
		s.m.client[i] = i
	}
	return s, nil
}

// Transport is the netcode server, for its address, counters and tokens.
func (s *Server) Transport() *transport.Server { return s.ts }

// Step hands the model everything that arrived since the last Step, each
// at the time it arrived, then runs its Update at now and sends the
// datagrams it returns. A Receive error is logged and counted in the
// slot's Traffic; an Update error is returned wrapped in ErrUpdate.
func (s *Server) Step(now time.Time) error {
	defer s.m.cost.add(time.Now())
	defer s.ts.Flush()
	q, dropped := s.in.swap(s.spare)
	if dropped > s.dropped {
		s.log.Warn("udpdrive: payloads dropped: the model goroutine fell behind, or a client sent more than its share", "total", dropped)
		s.dropped = dropped
	}
	for _, e := range q {
		at := s.m.clock.at(e.at)
		switch e.kind {
		case evJoin:
			s.m.connect(at, e.slot, e.id)
		case evLeave:
			s.m.leave(at, e.slot)
		case evPayload:
			s.m.payload(at, e.slot, e.data)
		}
	}
	clear(q)
	s.spare = q
	return s.m.update(now)
}

// EndMatch closes the connection of every client in the model's match
// with a bye carrying reason, as after a model's Update error: each is a
// Leave for the model. Counted as "match_failed".
func (s *Server) EndMatch(now time.Time, reason string) { s.m.end(now, "match_failed", reason) }

// Cost is the time the Steps took.
func (s *Server) Cost() Cost { return s.m.cost }

// ErrInMatch is returned by Replace while clients are in the model's match.
var ErrInMatch = errors.New("udpdrive: clients are in the match")

// Replace hands the connection to a new model, for the next match, once
// every client of the last one has left: netcode's connections, which
// the server keeps, are not the model's.
func (s *Server) Replace(model netmodel.Server) error {
	if s.m.Players() > 0 {
		return ErrInMatch
	}
	s.m.model = model
	return nil
}

// Joined reports whether the client in slot is in the model's match.
func (s *Server) Joined(slot int) bool { return s.m.Joined(slot) }

// Watching reports whether the client in slot is in the model's match as
// a spectator.
func (s *Server) Watching(slot int) bool { return s.m.Watching(slot) }

// EndSpectators sends the match's spectators away with a bye saying the
// match is over (counted as "match_over"), as a runtime does once its
// last player left: spectators do not keep a match alive.
func (s *Server) EndSpectators(now time.Time) {
	s.m.endSome(now, "match_over", MatchOver, s.m.Watching)
}

// MatchOver is the reason of the bye EndSpectators sends: for a
// spectator, the normal end of what it watched.
const MatchOver = "the match is over: every player has left"

// Traffic returns the counts of the client in slot, of its last session
// if it left.
func (s *Server) Traffic(slot int) netmodel.Traffic { return s.m.Traffic(slot) }

// Dropped counts what never reached the model or the network: payloads
// the driver's queue refused (the model goroutine was behind, or a client sent more
// than its share of a frame), and datagrams to slots that had left.
func (s *Server) Dropped() (queue, send uint64) { return s.dropped, s.m.sendErr }

// Refusal is a count of clients refused or released for one reason.
type Refusal struct {
	// Reason is a short name: "config_mismatch", "no_hello",
	// "join_refused", "match_failed", "match_over" (a spectator sent away
	// after the last player: EndSpectators), or "dropped_" and the model's code;
	// Rooms add "no_match" (the lobby named none), "open_failed" (the
	// match could not be built) and "match_ended" (Rooms.End).
	Reason string
	Count  uint64
}

// Refusals returns the clients refused or released so far, by reason,
// sorted by reason. It is safe to call from any goroutine (a metrics
// scrape).
func (s *Server) Refusals() []Refusal { return s.m.Refusals() }

type refusals struct {
	mu sync.Mutex
	n  map[string]uint64
}

func (r *refusals) add(code string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]uint64{}
	}
	r.n[code]++
}

func (r *refusals) list() []Refusal {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Refusal, 0, len(r.n))
	for k, v := range r.n {
		out = append(out, Refusal{k, v})
	}
	slices.SortFunc(out, func(a, b Refusal) int {
		switch {
		case a.Reason < b.Reason:
			return -1
		case a.Reason > b.Reason:
			return 1
		}
		return 0
	})
	return out
}

// Close disconnects every client and closes the socket. The model sees no
// Leave: it is not stepped again.
func (s *Server) Close() error { return s.ts.Close() }
