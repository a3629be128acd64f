package interp

import (
	"errors"
	"fmt"
	"time"

	"github.com/netphys/netphys/transport/reliable"
	"github.com/netphys/netphys/wire/snapshot"
)

// Server simulates the game and sends every client a snapshot every
// Interval ticks, coded against the newest snapshots that client
// acknowledged. It implements netmodel.Server.
type Server struct {
	cfg   Config
	game  Game
	enc   *Encoder
	start time.Time
	tick  int64 // ticks simulated; the state is that after tick
	peers []*peer
	truth snapshot.Snapshot
	n     Number // the newest snapshot begun, if begun
	begun bool
	pkt   []byte
	reset Resetter // the game's, if it has the capability
	marks []bool   // scratch for reset.Resets

	counters ServerCounters
}

// ServerCounters count the server's work and the datagrams it dropped.
type ServerCounters struct {
	Ticks, Snapshots uint64
	Packets, Bytes   uint64 // snapshot packets and their payload bytes, all clients
	// Clamped counts object states outside the codec's bounds, sent
	// clamped to them.
	Clamped uint64
	// Dropped counts client datagrams dropped: malformed, stale,
	// duplicate, or carrying a payload; Unexpected those of them that
	// carried a payload (a client only acks).
	Dropped, Unexpected uint64
	// Behind counts Updates that stopped at MaxTicksPerUpdate.
	Behind uint64
	// Resets counts objects the game reported reset (Resetter).
	Resets uint64
}

// Refusal is how many times the server refused something of its clients
// for one reason, for a summary or a metrics exporter (a counter labelled
// by Reason).
type Refusal struct {
	Reason string // snake_case, stable: a metric label
	Count  uint64
}

// Refusals appends every refusal the counters hold, one per reason, in a
// fixed order, zeros included.
func (c ServerCounters) Refusals(dst []Refusal) []Refusal {
	return append(dst,
		Refusal{"malformed_packet", c.Dropped - c.Unexpected}, // undecodable, stale, duplicate, from no seat
		Refusal{"unexpected_payload", c.Unexpected},           // a client sends acks only
	)
}

// Refusals appends the server's refusals by reason (ServerCounters.Refusals).
func (s *Server) Refusals(dst []Refusal) []Refusal { return s.counters.Refusals(dst) }

type peer struct {
	end       *reliable.Endpoint
	baselines Baselines
	fresh     bool // joined since the last snapshot: owed the newest one
}

// NewServer returns a server of game whose tick 0 is at start.
func NewServer(cfg Config, game Game, start time.Time) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	n := game.Objects()
	if n < 1 {
		return nil, fmt.Errorf("%w: a game of %d objects", ErrConfig, n)
	}
	enc, err := NewEncoder(cfg.Codec, cfg.interval(), cfg.Reliable.MaxPacketSize)
	if err != nil {
		return nil, err
	}
	srv := &Server{
		cfg: cfg, game: game, enc: enc, start: start,
		truth: snapshot.Snapshot{Cubes: make([]snapshot.Cube, n)},
		pkt:   make([]byte, cfg.Reliable.MaxPacketSize),
	}
	if r, ok := game.(Resetter); ok {
		srv.reset, srv.marks = r, make([]bool, n)
	}
	return srv, nil
}

// Tick returns the number of ticks simulated.
func (s *Server) Tick() int64 { return s.tick }

// Counters returns the server's counters.
func (s *Server) Counters() ServerCounters { return s.counters }

// EncoderCounters returns the encoder's: bodies coded and shared.
func (s *Server) EncoderCounters() EncoderCounters { return s.enc.Counters() }

// Join implements netmodel.Server: the client in slot gets the newest
// snapshot, coded whole, at the next Update (not at the next snapshot's
// tick, up to an interval later), and every snapshot from then on; the
// others get nothing more. A client coming back after a drop is a new
// client: a client holds nothing of the server's but its baselines, and
// the whole snapshot gives it its view back at once.
func (s *Server) Join(now time.Time, slot int) error {
	if slot < 0 || slot >= 1024 {
		return fmt.Errorf("%w: slot %d", ErrSlot, slot)
	}
	for len(s.peers) <= slot {
		s.peers = append(s.peers, nil)
	}
	end, err := reliable.NewEndpoint(s.cfg.Reliable, now)
	if err != nil {
		return err
	}
	s.peers[slot] = &peer{end: end, fresh: true}
	return nil
}

// Leave implements netmodel.Server.
func (s *Server) Leave(now time.Time, slot int) {
	if slot >= 0 && slot < len(s.peers) {
		s.peers[slot] = nil
	}
}

// Receive implements netmodel.Server: a client's datagrams carry only the
// acks of the snapshots it received.
func (s *Server) Receive(now time.Time, slot int, datagram []byte) error {
	if slot < 0 || slot >= len(s.peers) || s.peers[slot] == nil {
		s.counters.Dropped++
		return fmt.Errorf("%w: slot %d", ErrSlot, slot)
	}
	p := s.peers[slot]
	_, payload, err := p.end.ReceivePacket(now, datagram)
	if err != nil {
		s.counters.Dropped++
		return err
	}
	for _, seq := range p.end.Acks() {
		p.baselines.Acked(seq)
	}
	p.end.ClearAcks()
	if len(payload) != 0 {
		s.counters.Dropped++
		s.counters.Unexpected++
		return fmt.Errorf("%w: %d bytes", ErrUnexpected, len(payload))
	}
	return nil
}

// Update implements netmodel.Server: it simulates the ticks due by now
// (at most MaxTicksPerUpdate) and sends each snapshot due to every client.
func (s *Server) Update(now time.Time, send func(slot int, datagram []byte)) error {
	for steps := 0; !s.start.Add(time.Duration(s.tick+1) * s.cfg.TickInterval).After(now); steps++ {
		if steps == s.cfg.MaxTicksPerUpdate {
			s.counters.Behind++
			break
		}
		in := s.game.Step()
		s.tick++
		s.counters.Ticks++
		s.enc.SetInput(s.tick, in)
		if s.reset != nil {
			clear(s.marks)
			s.reset.Resets(s.marks)
			for i, m := range s.marks {
				if m {
					s.enc.Reset(i, s.tick)
					s.counters.Resets++
				}
			}
		}
		if s.tick%int64(s.cfg.interval()) == 0 {
			if err := s.snapshot(now, send); err != nil {
				return err
			}
		}
	}
	for slot, p := range s.peers {
		if p == nil {
			continue
		}
		if p.fresh && s.begun {
			if err := s.sendTo(now, slot, p, send); err != nil {
				return err
			}
		}
		p.end.Update(now)
	}
	return nil
}

// snapshot captures the game and sends it to every client.
func (s *Server) snapshot(now time.Time, send func(int, []byte)) error {
	s.game.Capture(s.truth.Cubes)
	b := s.cfg.Codec.Config.Position
	for i := range s.truth.Cubes {
		c := &s.truth.Cubes[i]
		if p := b.Clamp(c.Position); p != c.Position {
			c.Position = p
			s.counters.Clamped++
		}
	}
	n := Number(s.tick / int64(s.cfg.interval()))
	if err := s.enc.Begin(n, &s.truth); err != nil {
		return err
	}
	s.n, s.begun = n, true
	s.counters.Snapshots++
	for slot, p := range s.peers {
		if p == nil {
			continue
		}
		if err := s.sendTo(now, slot, p, send); err != nil {
			return err
		}
	}
	return nil
}

// sendTo sends the client in slot the newest snapshot.
func (s *Server) sendTo(now time.Time, slot int, p *peer, send func(int, []byte)) error {
	pkt, err := s.enc.Encode(&p.baselines, s.pkt)
	if err != nil {
		return err
	}
	seq, datagrams, err := p.end.SendPacket(now, pkt)
	if errors.Is(err, reliable.ErrPacketTooLarge) {
		return fmt.Errorf("interp: snapshot %d for slot %d: %w (raise Reliable.MaxPacketSize)", s.n, slot, err)
	}
	if err != nil {
		return err
	}
	p.baselines.Sent(seq, s.n)
	p.fresh = false
	s.counters.Packets++
	s.counters.Bytes += uint64(len(pkt))
	for _, d := range datagrams {
		send(slot, d)
	}
	return nil
}

// Sent returns snapshot n as every client decodes it, while the server's
// history holds it: for tests and reports that check what clients decode.
func (s *Server) Sent(n Number) *snapshot.Snapshot { return s.enc.Sent(n) }
