package udpdrive

import (
	"errors"
	"fmt"
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
	model netmodel.Server
	ts    *transport.Server
	log   *slog.Logger
	in    inbox
	clock clock
	spare []event

	joined  []bool      // per slot: the model accepted the client
	hello   []time.Time // per slot: netcode connected it at, its hello awaited (zero: not awaited)
	agree   string
	wait    time.Duration
	refused refusals
	traffic []netmodel.Traffic
	sendErr uint64 // datagrams SendPayload refused (a slot that just left)
	cost    Cost
	dropped uint64 // payloads the inbox refused
}

// NewServer starts a netcode server on conn, which the Server then owns,
// and feeds model from it.
func NewServer(model netmodel.Server, conn transport.PacketConn, cfg ServerConfig) (*Server, error) {
	s := &Server{model: model, log: cfg.Logger, agree: cfg.Agree, wait: cfg.HelloTimeout}
	if s.wait <= 0 {
		s.wait = 5 * time.Second
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	tc := cfg.Transport
	tc.OnPayload = func(i netcode.ClientIndex, b []byte) { s.in.push(evPayload, int(i), b) }
	tc.OnConnect = func(i netcode.ClientIndex, _ netcode.ClientID, _ *netcode.UserData) { s.in.push(evJoin, int(i), nil) }
	tc.OnDisconnect = func(i netcode.ClientIndex, _ bool) { s.in.push(evLeave, int(i), nil) }
	s.in.init(tc.Now, maxQueuedPerSlot)
	if tc.Logger == nil {
		tc.Logger = s.log
	}
	ts, err := transport.NewServer(conn, tc)
	if err != nil {
		return nil, err
	}
	s.ts = ts
	n := ts.MaxClients()
	s.joined, s.hello, s.traffic = make([]bool, n), make([]time.Time, n), make([]netmodel.Traffic, n)
	return s, nil
}

// Transport is the netcode server, for its address, counters and tokens.
func (s *Server) Transport() *transport.Server { return s.ts }

// Step hands the model everything that arrived since the last Step, each
// at the time it arrived, then runs its Update at now and sends the
// datagrams it returns. A Receive error is logged and counted in the
// slot's Traffic; an Update error is returned wrapped in ErrUpdate.
func (s *Server) Step(now time.Time) error {
	defer s.cost.add(time.Now())
	q, dropped := s.in.swap(s.spare)
	if dropped > s.dropped {
		s.log.Warn("udpdrive: payloads dropped: the model goroutine fell behind, or a client sent more than its share", "total", dropped)
		s.dropped = dropped
	}
	for _, e := range q {
		s.handle(e)
	}
	clear(q)
	s.spare = q
	at := s.clock.at(now)
	for slot, t := range s.hello {
		if !t.IsZero() && at.Sub(t) > s.wait {
			s.refuse(slot, "no_hello", fmt.Sprintf("no hello within %v of connecting: the client does not speak this server's handshake (an older or another program?)", s.wait), false)
		}
	}
	err := s.model.Update(at, s.send)
	if r, ok := s.model.(Releaser); ok {
		for slot, j := range s.joined {
			if !j {
				continue
			}
			if code, reason, done := r.Released(slot); done {
				s.joined[slot] = false
				s.model.Leave(at, slot)
				if code != "" {
					s.log.Info("udpdrive: the match released a client", "slot", slot, "reason", reason)
					s.refuse(slot, "dropped_"+code, reason, true)
				} else {
					s.refuse(slot, "", reason, true)
				}
			}
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUpdate, err)
	}
	return nil
}

// refuse sends the client in slot a refusal (or, joined, a bye) with
// reason, closes its connection, and counts it under code ("": not
// counted).
func (s *Server) refuse(slot int, code, reason string, joined bool) {
	kind := ctlRefuse
	if joined {
		kind = ctlBye
	}
	msg := encodeControl(kind, reason)
	for range byeCopies {
		if err := s.ts.SendPayload(netcode.ClientIndex(slot), msg); err != nil {
			s.log.Debug("udpdrive: send", "slot", slot, "err", err)
			break
		}
	}
	s.hello[slot] = time.Time{}
	if err := s.ts.Disconnect(netcode.ClientIndex(slot)); err != nil {
		s.log.Debug("udpdrive: disconnect", "slot", slot, "err", err)
	}
	if code != "" {
		s.refused.add(code)
	}
}

// EndMatch closes the connection of every client in the model's match
// with a bye carrying reason, as after a model's Update error: each is a
// Leave for the model. Counted as "match_failed".
func (s *Server) EndMatch(now time.Time, reason string) {
	at := s.clock.at(now)
	for slot, j := range s.joined {
		if j {
			s.joined[slot] = false
			s.model.Leave(at, slot)
			s.refuse(slot, "match_failed", reason, true)
		}
	}
}

// spectated is the model as Spectated, or nil.
func (s *Server) spectated() Spectated {
	w, _ := s.model.(Spectated)
	return w
}

// join hands the client in slot to the model by join (its Join, or its
// Watch), or refuses it with the model's reason.
func (s *Server) join(at time.Time, slot int, join func(time.Time, int) error) {
	s.hello[slot] = time.Time{}
	if err := join(at, slot); err != nil {
		// The model refuses the client (the match is full or started):
		// netcode's slot is freed at once.
		s.log.Info("udpdrive: model refused a client", "slot", slot, "err", err)
		s.refuse(slot, "join_refused", err.Error(), false)
		return
	}
	s.joined[slot] = true
	s.traffic[slot] = netmodel.Traffic{}
	if s.agree != "" {
		s.ts.SendPayload(netcode.ClientIndex(slot), encodeControl(ctlWelcome, ""))
	}
}

// control handles a driver message from the client in slot.
func (s *Server) control(at time.Time, slot int, b []byte) {
	m, err := decodeControl(b)
	if err != nil || m.kind != ctlHello {
		s.log.Debug("udpdrive: bad control message", "slot", slot, "err", err, "kind", m.kind)
		return
	}
	switch {
	case s.joined[slot]:
		// Our welcome was lost: say it again.
		s.ts.SendPayload(netcode.ClientIndex(slot), encodeControl(ctlWelcome, ""))
	case s.hello[slot].IsZero():
		// Refused already, or the handshake is off.
	case m.text == s.agree:
		s.join(at, slot, s.model.Join)
	case m.text == Watching(s.agree) && s.spectated() != nil:
		s.join(at, slot, s.spectated().Watch)
	default:
		reason := fmt.Sprintf("server runs %s; you asked for %s", s.agree, m.text)
		s.log.Info("udpdrive: refused a client set up for another match", "slot", slot, "reason", reason)
		s.refuse(slot, "config_mismatch", reason, false)
	}
}

func (s *Server) handle(e event) {
	at := s.clock.at(e.at)
	switch e.kind {
	case evJoin:
		if s.agree != "" {
			s.hello[e.slot] = at // its hello first
			return
		}
		s.join(at, e.slot, s.model.Join)
	case evLeave:
		s.hello[e.slot] = time.Time{}
		if s.joined[e.slot] {
			s.joined[e.slot] = false
			if r, ok := s.model.(Releaser); ok {
				if code, _, _ := r.Released(e.slot); code != "" {
					s.refused.add("dropped_" + code) // dropped, then gone before the bye
				}
			}
			s.model.Leave(at, e.slot)
		}
	case evPayload:
		if s.agree != "" && isControl(e.data) {
			s.control(at, e.slot, e.data)
			return
		}
		if !s.joined[e.slot] {
			return // sent before its client was refused, or before its hello
		}
		t := &s.traffic[e.slot]
		t.UpPackets++
		t.UpBytes += uint64(len(e.data) + netmodel.PacketOverhead)
		if err := s.model.Receive(at, e.slot, e.data); err != nil {
			t.UpErrors++
			s.log.Debug("udpdrive: datagram dropped", "slot", e.slot, "err", err)
		}
	}
}

// send is the Update callback: the datagram leaves at once.
func (s *Server) send(slot int, datagram []byte) {
	if slot < 0 || slot >= len(s.joined) || !s.joined[slot] {
		s.sendErr++
		return
	}
	if err := s.ts.SendPayload(netcode.ClientIndex(slot), datagram); err != nil {
		s.sendErr++
		s.log.Debug("udpdrive: send", "slot", slot, "err", err)
		return
	}
	t := &s.traffic[slot]
	t.DownPackets++
	t.DownBytes += uint64(len(datagram) + netmodel.PacketOverhead)
}

// Cost is the time the Steps took.
func (s *Server) Cost() Cost { return s.cost }

// ErrInMatch is returned by Replace while clients are in the model's match.
var ErrInMatch = errors.New("udpdrive: clients are in the match")

// Replace hands the connection to a new model, for the next match, once
// every client of the last one has left: netcode's connections, which
// the server keeps, are not the model's.
func (s *Server) Replace(model netmodel.Server) error {
	for _, j := range s.joined {
		if j {
			return ErrInMatch
		}
	}
	s.model = model
	return nil
}

// Joined reports whether the client in slot is in the model's match.
func (s *Server) Joined(slot int) bool { return slot >= 0 && slot < len(s.joined) && s.joined[slot] }

// Traffic returns the counts of the client in slot, of its last session
// if it left.
func (s *Server) Traffic(slot int) netmodel.Traffic {
	if slot < 0 || slot >= len(s.traffic) {
		return netmodel.Traffic{}
	}
	return s.traffic[slot]
}

// Dropped counts what never reached the model or the network: payloads
// the driver's queue refused (the model goroutine was behind, or a client sent more
// than its share of a frame), and datagrams to slots that had left.
func (s *Server) Dropped() (queue, send uint64) { return s.dropped, s.sendErr }

// Refusal is a count of clients refused or released for one reason.
type Refusal struct {
	// Reason is a short name: "config_mismatch", "no_hello",
	// "join_refused", "match_failed", or "dropped_" and the model's code.
	Reason string
	Count  uint64
}

// Refusals returns the clients refused or released so far, by reason,
// sorted by reason. It is safe to call from any goroutine (a metrics
// scrape).
func (s *Server) Refusals() []Refusal { return s.refused.list() }

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
