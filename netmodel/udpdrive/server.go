package udpdrive

import (
	"errors"
	"fmt"
	"log/slog"
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
}

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

	joined  []bool // per slot: the model accepted the client
	traffic []netmodel.Traffic
	sendErr uint64 // datagrams SendPayload refused (a slot that just left)
	cost    Cost
	dropped uint64 // payloads the inbox refused
}

// NewServer starts a netcode server on conn, which the Server then owns,
// and feeds model from it.
func NewServer(model netmodel.Server, conn transport.PacketConn, cfg ServerConfig) (*Server, error) {
	s := &Server{model: model, log: cfg.Logger}
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
	s.joined, s.traffic = make([]bool, n), make([]netmodel.Traffic, n)
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
	err := s.model.Update(s.clock.at(now), s.send)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUpdate, err)
	}
	return nil
}

func (s *Server) handle(e event) {
	at := s.clock.at(e.at)
	switch e.kind {
	case evJoin:
		if err := s.model.Join(at, e.slot); err != nil {
			// The model refuses the client (the match is full or
			// started): netcode's slot is freed at once.
			s.log.Info("udpdrive: model refused a client", "slot", e.slot, "err", err)
			if err := s.ts.Disconnect(netcode.ClientIndex(e.slot)); err != nil {
				s.log.Debug("udpdrive: disconnect", "slot", e.slot, "err", err)
			}
			return
		}
		s.joined[e.slot] = true
		s.traffic[e.slot] = netmodel.Traffic{}
	case evLeave:
		if s.joined[e.slot] {
			s.joined[e.slot] = false
			s.model.Leave(at, e.slot)
		}
	case evPayload:
		if !s.joined[e.slot] {
			return // sent before its client was refused
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

// Close disconnects every client and closes the socket. The model sees no
// Leave: it is not stepped again.
func (s *Server) Close() error { return s.ts.Close() }
