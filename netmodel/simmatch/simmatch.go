// Package simmatch runs a network model's server and clients over the
// network simulator in virtual time: a whole match with 4 players, 250 ms
// of latency and 25 % loss runs in a test in a fraction of real time,
// reproducibly from a seed. It is the driver behind the models' tests and
// the `netphys bench <model>` reports.
//
// Time advances from event to event: every Frame each side's Update runs
// (the server first, then the clients in slot order), and between frames
// every datagram is delivered at the instant the simulator says it arrives.
//
// The package's Example runs a two-player lockstep match this way. In
// short (server is a model's netmodel.Server, clients its netmodel.Clients):
//
//	bad := netsim.Conditions{Latency: 125 * time.Millisecond, Loss: 0.25} // each way
//	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 1, Conditions: bad}}, server)
//	for _, client := range clients {
//		m.Join(client)
//	}
//	err = m.Run(10 * time.Minute) // virtual time
//	fmt.Println(m.Traffic(0).UpKbps(m.Elapsed()))
//
// A session that never starts (a lockstep server waiting for players who
// never joined) makes Run return ErrNotStarted after Config.StartWithin
// rather than nil.
package simmatch

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/transport/netsim"
)

// Config sets up a Match.
type Config struct {
	// Sim seeds the simulator and gives the conditions of every link, each
	// way; SetLink overrides one client's.
	Sim netsim.Config
	// Frame is how often every side's Update runs. Default 1/60 s.
	Frame time.Duration
	// Start is the virtual time the match starts at. Default Epoch.
	Start time.Time
	// MaxSlots bounds the clients; default 64.
	MaxSlots int
	// StartWithin is how long a client that reports whether its session
	// runs (a Running() bool method, as lockstep.Client has) may wait for
	// it after joining: past it, Run returns an error wrapping
	// ErrNotStarted instead of going on quietly. Default 60 s of virtual
	// time; negative waits forever.
	StartWithin time.Duration
}

// DefaultStartWithin is Config.StartWithin's default.
const DefaultStartWithin = time.Minute

// ErrNotStarted is returned by Run when a client's session has not started
// Config.StartWithin after it joined: typically the server waits for
// players who never joined (a lockstep session starts once its
// Config.Players have joined).
var ErrNotStarted = errors.New("simmatch: the session did not start")

// A Runner is a client that reports whether its session has started;
// lockstep.Client is one. Run checks such clients against
// Config.StartWithin.
type Runner interface {
	Running() bool
}

// A Lobby is a server that reports how many players have joined and how
// many its session waits for, so that ErrNotStarted can say how many are
// missing. It is optional.
type Lobby interface {
	Lobby() (joined, want int)
}

// Epoch is the default start of virtual time: any fixed instant would do,
// and a fixed one keeps runs reproducible.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ErrFull is returned by Join when every slot holds a client.
var ErrFull = errors.New("simmatch: every slot holds a client")

// Traffic counts one client's datagrams each way: the counts every driver
// reports.
type Traffic = netmodel.Traffic

// Match is a server and its clients on one simulated network.
type Match struct {
	cfg     Config
	sim     *netsim.Sim
	server  netmodel.Server
	clients []netmodel.Client // nil: free slot
	joined  []time.Time       // when each slot's client joined
	cut     []bool            // each slot's client crashed: silent, not yet left
	ids     []uint64          // each slot's client id
	lastID  uint64            // the largest client id given so far
	traffic []Traffic
	now     time.Time
	frame   time.Time // when the next Update round runs
	// LastReceiveError is the newest datagram drop, for a test to look at.
	LastReceiveError error
}

var serverAddr = netip.MustParseAddrPort("127.0.0.1:40000")

func clientAddr(slot int) netip.AddrPort {
	return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(50000+slot))
}

// New starts a match around server; clients join with Join.
func New(cfg Config, server netmodel.Server) (*Match, error) {
	if cfg.Frame == 0 {
		cfg.Frame = time.Second / 60
	}
	if cfg.Start.IsZero() {
		cfg.Start = Epoch
	}
	if cfg.MaxSlots == 0 {
		cfg.MaxSlots = 64
	}
	if cfg.StartWithin == 0 {
		cfg.StartWithin = DefaultStartWithin
	}
	if cfg.Frame < 0 || cfg.MaxSlots < 0 || cfg.MaxSlots > 1000 {
		return nil, fmt.Errorf("simmatch: frame %v and %d slots out of range", cfg.Frame, cfg.MaxSlots)
	}
	sim, err := netsim.New(cfg.Sim)
	if err != nil {
		return nil, err
	}
	return &Match{cfg: cfg, sim: sim, server: server, now: cfg.Start, frame: cfg.Start}, nil
}

// Join puts client in the lowest free slot and tells the server, as
// netcode's handshake would, with a client id no client has had yet (1,
// 2, 3... in the order of joins; JoinID says which). It returns the
// slot.
func (m *Match) Join(client netmodel.Client) (int, error) {
	return m.JoinID(client, m.lastID+1)
}

// JoinID is Join with the client id of the client's connect token: a
// client coming back after a drop joins with its old id. A server that
// is netmodel.Identified is told it (JoinClient), as udpdrive does.
func (m *Match) JoinID(client netmodel.Client, id uint64) (int, error) {
	slot := 0
	for slot < len(m.clients) && m.clients[slot] != nil {
		slot++
	}
	if slot == m.cfg.MaxSlots {
		return 0, ErrFull
	}
	var err error
	if s, ok := m.server.(netmodel.Identified); ok {
		err = s.JoinClient(m.now, slot, id)
	} else {
		err = m.server.Join(m.now, slot)
	}
	if err != nil {
		return 0, err
	}
	if slot == len(m.clients) {
		m.clients = append(m.clients, nil)
		m.joined = append(m.joined, time.Time{})
		m.cut = append(m.cut, false)
		m.ids = append(m.ids, 0)
		m.traffic = append(m.traffic, Traffic{})
	}
	m.clients[slot] = client
	m.joined[slot] = m.now
	m.cut[slot], m.ids[slot] = false, id
	m.traffic[slot] = Traffic{}
	m.lastID = max(m.lastID, id)
	return slot, nil
}

// ClientID returns the client id of the client in slot (of its last
// client if it left).
func (m *Match) ClientID(slot int) uint64 {
	if slot < 0 || slot >= len(m.ids) {
		return 0
	}
	return m.ids[slot]
}

// Leave disconnects the client in slot: the server is told, and datagrams
// still in flight to or from it are dropped on arrival.
func (m *Match) Leave(slot int) {
	if slot < 0 || slot >= len(m.clients) || m.clients[slot] == nil {
		return
	}
	m.clients[slot], m.cut[slot] = nil, false
	m.server.Leave(m.now, slot)
}

// Crash silences the client in slot as a killed process would: it runs
// no more and its datagrams, and the server's to it, are lost, but the
// server is not told until Leave (netcode's timeout, in a real match).
func (m *Match) Crash(slot int) {
	if slot >= 0 && slot < len(m.clients) && m.clients[slot] != nil {
		m.cut[slot] = true
	}
}

// SetLink sets the conditions of one client's link, up (client to server)
// and down.
func (m *Match) SetLink(slot int, up, down netsim.Conditions) error {
	if err := m.sim.SetLink(clientAddr(slot), serverAddr, up); err != nil {
		return err
	}
	return m.sim.SetLink(serverAddr, clientAddr(slot), down)
}

// Sim is the simulator, for its counters and SetConditions.
func (m *Match) Sim() *netsim.Sim { return m.sim }

// Now is the current virtual time.
func (m *Match) Now() time.Time { return m.now }

// Elapsed is the virtual time since the start.
func (m *Match) Elapsed() time.Duration { return m.now.Sub(m.cfg.Start) }

// Traffic returns the counts of the client in slot (of its last session if
// it left).
func (m *Match) Traffic(slot int) Traffic {
	if slot < 0 || slot >= len(m.traffic) {
		return Traffic{}
	}
	return m.traffic[slot]
}

// Run advances virtual time by d: datagrams arrive when they are due, and
// every Frame the server and then each client runs Update. It stops early
// with the first Update error, wrapped with the side that failed, or with
// ErrNotStarted when a client's session has not started Config.StartWithin
// after it joined.
func (m *Match) Run(d time.Duration) error {
	end := m.now.Add(d)
	for {
		next := m.frame
		due, ok := m.sim.NextDue()
		if ok && !due.After(next) {
			next = due
		}
		if next.After(end) {
			m.now = end
			return nil
		}
		m.now = next
		m.deliver()
		if m.now.Equal(m.frame) {
			if err := m.update(); err != nil {
				return err
			}
			if err := m.checkStarted(); err != nil {
				return err
			}
			m.frame = m.frame.Add(m.cfg.Frame)
		}
	}
}

// deliver hands every datagram due by now to its receiver.
func (m *Match) deliver() {
	for _, p := range m.sim.Receive(m.now) {
		if p.To == serverAddr {
			slot := int(p.From.Port()) - 50000
			if slot < 0 || slot >= len(m.clients) || m.clients[slot] == nil || m.cut[slot] {
				continue
			}
			if err := m.server.Receive(m.now, slot, p.Data); err != nil {
				m.traffic[slot].UpErrors++
				m.LastReceiveError = err
			}
			continue
		}
		slot := int(p.To.Port()) - 50000
		if slot < 0 || slot >= len(m.clients) || m.clients[slot] == nil || m.cut[slot] {
			continue
		}
		if err := m.clients[slot].Receive(m.now, p.Data); err != nil {
			m.traffic[slot].DownErrors++
			m.LastReceiveError = err
		}
	}
}

// update runs one Update round: the server, then the clients.
func (m *Match) update() error {
	err := m.server.Update(m.now, func(slot int, datagram []byte) {
		if slot < 0 || slot >= len(m.clients) || m.clients[slot] == nil || m.cut[slot] {
			return
		}
		m.traffic[slot].DownPackets++
		m.traffic[slot].DownBytes += uint64(len(datagram) + netmodel.PacketOverhead)
		m.sim.Send(m.now, serverAddr, clientAddr(slot), datagram)
	})
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	for slot, c := range m.clients {
		if c == nil || m.cut[slot] {
			continue
		}
		err := c.Update(m.now, func(datagram []byte) {
			m.traffic[slot].UpPackets++
			m.traffic[slot].UpBytes += uint64(len(datagram) + netmodel.PacketOverhead)
			m.sim.Send(m.now, clientAddr(slot), serverAddr, datagram)
		})
		if err != nil {
			return fmt.Errorf("client %d: %w", slot, err)
		}
	}
	return nil
}

// checkStarted returns ErrNotStarted, with what the match knows of the
// reason, when a client has waited longer than StartWithin for its session.
func (m *Match) checkStarted() error {
	if m.cfg.StartWithin < 0 {
		return nil
	}
	for slot, c := range m.clients {
		r, ok := c.(Runner)
		if !ok || m.cut[slot] || r.Running() || m.now.Sub(m.joined[slot]) <= m.cfg.StartWithin {
			continue
		}
		in := 0
		for _, c := range m.clients {
			if c != nil {
				in++
			}
		}
		why := fmt.Sprintf("%d clients are in the match; does the server wait for more players (a lockstep session starts once Config.Players have joined)?", in)
		if l, ok := m.server.(Lobby); ok {
			joined, want := l.Lobby()
			if joined < want {
				why = fmt.Sprintf("%d of the %d players it waits for have joined: join the other %d, or start a session for %d", joined, want, want-joined, joined)
			} else {
				why = fmt.Sprintf("all %d players have joined, but the server has not started: can it hear them?", joined)
			}
		}
		return fmt.Errorf("%w: the client in slot %d joined %v ago and its session has not started: %s",
			ErrNotStarted, slot, m.now.Sub(m.joined[slot]), why)
	}
	return nil
}
