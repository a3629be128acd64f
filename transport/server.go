package transport

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/netphys/netphys/transport/netcode"
)

// ErrClosed is returned by the methods of a closed Server or Client.
var ErrClosed = errors.New("transport: closed")

// ServerConfig configures a Server driver.
type ServerConfig struct {
	// Netcode configures the core. Its OnConnect and OnDisconnect are
	// replaced by the driver's; set those below instead. A zero
	// PublicAddress means the address the socket is bound to.
	Netcode netcode.ServerConfig
	// Tick is the update period of the core when no packet arrives.
	Tick time.Duration
	// Now is the driver's clock, nil for time.Now. The socket's read
	// deadlines are set in its time: a clock other than the real one needs
	// a PacketConn of the same clock, such as a simulated network's.
	Now func() time.Time
	// OnPayload receives every payload from a client, in order, on the
	// server's goroutine. It may call SendPayload and Disconnect. The slice
	// belongs to the callee.
	OnPayload func(i netcode.ClientIndex, payload []byte)
	// OnConnect and OnDisconnect report clients taking and leaving slots,
	// on the server's goroutine.
	OnConnect    func(i netcode.ClientIndex, id netcode.ClientID, userData *netcode.UserData)
	OnDisconnect func(i netcode.ClientIndex, timedOut bool)
	Logger       *slog.Logger // nil: slog.Default()
}

// DefaultServerConfig returns the core's defaults and a 10 ms tick.
func DefaultServerConfig() ServerConfig {
	return ServerConfig{Netcode: netcode.DefaultServerConfig(), Tick: DefaultTick}
}

// Server runs a netcode server on a datagram socket.
type Server struct {
	cfg  ServerConfig
	conn PacketConn
	io   *datagramIO // made once the core is: it reads up to a datagram per slot per call
	now  func() time.Time
	log  *slog.Logger
	done chan struct{}

	mu     sync.Mutex // guards core, closed, events
	core   *netcode.Server
	closed bool
	// events are the callbacks due, collected under mu and run after it
	// is released, in order.
	events []serverEvent
	// queued counts the datagrams QueuePayload left in the core since
	// the core's datagrams were last taken.
	queued int
}

// serverEvent is one callback due: a payload, a connect or a disconnect.
// A struct rather than a closure, so a payload costs no allocation.
type serverEvent struct {
	kind     eventKind
	i        netcode.ClientIndex
	payload  []byte
	id       netcode.ClientID
	userData *netcode.UserData
	timedOut bool
}

type eventKind uint8

const (
	eventPayload eventKind = iota
	eventConnect
	eventDisconnect
)

// ListenServer binds a UDP socket to addr ("host:port") and serves on it.
func ListenServer(addr string, cfg ServerConfig) (*Server, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	conn, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	s, err := NewServer(conn, cfg)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

// NewServer serves on conn, which the Server then owns, and starts its goroutine.
func NewServer(conn PacketConn, cfg ServerConfig) (*Server, error) {
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	// One socket carries every client: deep buffers queue bursts rather
	// than drop them while the goroutine waits for a core.
	deepenBuffers(conn)
	s := &Server{cfg: cfg, conn: conn, now: cfg.Now, log: cfg.Logger, done: make(chan struct{})}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	nc := cfg.Netcode
	if !nc.PublicAddress.IsValid() {
		nc.PublicAddress = localAddrPort(conn)
	}
	nc.OnConnect = func(i netcode.ClientIndex, id netcode.ClientID, ud *netcode.UserData) {
		s.log.Info("client connected", "index", i, "client_id", id)
		if cfg.OnConnect != nil {
			udCopy := *ud
			s.events = append(s.events, serverEvent{kind: eventConnect, i: i, id: id, userData: &udCopy})
		}
	}
	nc.OnDisconnect = func(i netcode.ClientIndex, timedOut bool) {
		s.log.Info("client disconnected", "index", i, "timed_out", timedOut)
		if cfg.OnDisconnect != nil {
			s.events = append(s.events, serverEvent{kind: eventDisconnect, i: i, timedOut: timedOut})
		}
	}
	core, err := netcode.NewServer(nc, nil)
	if err != nil {
		return nil, err
	}
	s.core = core
	s.io = newDatagramIO(conn, core.MaxClients())
	go s.run()
	return s, nil
}

// Addr returns the address the socket is bound to.
func (s *Server) Addr() netip.AddrPort { return localAddrPort(s.conn) }

// run is the server's goroutine: read what arrived (several datagrams per
// system call where the platform batches) with the tick as deadline, feed
// the core and take its datagrams and callbacks under the lock, then write
// the datagrams and run the callbacks outside it.
func (s *Server) run() {
	defer close(s.done)
	var events []serverEvent // reused: the callbacks of one pass
	tk := newTicks(s.conn, s.cfg.Tick, s.now())
	for {
		k, err := tk.read(s.io, s.log)
		now := s.now()
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		for i, got := range s.io.got[:k] {
			if !got.from.IsValid() {
				continue
			}
			s.core.Receive(now, got.from, s.io.bufs[i][:got.n])
			// Only the sender's slot can have new payloads.
			s.collectPayloadsLocked(s.core.ClientIndexOf(got.from))
		}
		if err != nil && !isTimeout(err) {
			s.log.Warn("server read failed", "err", err)
		}
		if tk.due(now) {
			s.core.Update(now)
		}
		out := s.takeLocked()
		// Swap the two event buffers: no copy, no allocation.
		events, s.events = s.events, events[:0]
		s.mu.Unlock()
		out.send(s.io, s.log)
		s.deliver(events)
		clear(events) // let the callee's payloads go
	}
}

// collectPayloadsLocked turns the payloads waiting in slot i into OnPayload
// events; i may be -1.
func (s *Server) collectPayloadsLocked(i netcode.ClientIndex) {
	if i < 0 {
		return
	}
	for b, ok := s.core.ReceivePayload(i); ok; b, ok = s.core.ReceivePayload(i) {
		if s.cfg.OnPayload != nil {
			s.events = append(s.events, serverEvent{kind: eventPayload, i: i, payload: b})
		}
	}
}

// takeEventsLocked hands over the events collected so far.
func (s *Server) takeEventsLocked() []serverEvent {
	if len(s.events) == 0 {
		return nil
	}
	events := append([]serverEvent(nil), s.events...)
	clear(s.events)
	s.events = s.events[:0]
	return events
}

// deliver runs the callbacks of events; the lock is not held.
func (s *Server) deliver(events []serverEvent) {
	for _, e := range events {
		switch e.kind {
		case eventPayload:
			s.cfg.OnPayload(e.i, e.payload)
		case eventConnect:
			s.cfg.OnConnect(e.i, e.id, e.userData)
		case eventDisconnect:
			s.cfg.OnDisconnect(e.i, e.timedOut)
		}
	}
}

// QueuePayload seals 1 to 1200 bytes for the client in slot i and keeps
// the datagram for the next Flush (or the next datagrams the server's
// goroutine sends), so that the datagrams of a frame leave together: in
// a few system calls where the platform batches (sendmmsg on Linux)
// rather than one each. A full batch leaves at once, so no datagram waits
// for more than a batch's worth of the caller's work. The order of the
// server's datagrams is kept.
func (s *Server) QueuePayload(i netcode.ClientIndex, payload []byte) error {
	return s.sendPayload(i, payload, false)
}

// takeLocked copies the datagrams the core has for the socket into a
// batch to send once the lock is released.
func (s *Server) takeLocked() *batch {
	s.queued = 0
	return takeBatch(s.core.Send())
}

// Flush sends the datagrams QueuePayload kept.
func (s *Server) Flush() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	out := s.takeLocked()
	s.mu.Unlock()
	out.send(s.io, s.log)
}

// SendPayload sends 1 to 1200 bytes to the client in slot i, now.
func (s *Server) SendPayload(i netcode.ClientIndex, payload []byte) error {
	return s.sendPayload(i, payload, true)
}

// sendPayload seals payload for the client in slot i; the datagrams kept
// so far leave with its own if now is set, else once a batch is full.
func (s *Server) sendPayload(i netcode.ClientIndex, payload []byte, now bool) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	err := s.core.SendPayload(s.now(), i, payload)
	if err == nil {
		s.queued++
	}
	var out *batch
	if now || s.queued >= writeBatchMax {
		out = s.takeLocked()
	}
	s.mu.Unlock()
	out.send(s.io, s.log)
	return err
}

// Disconnect disconnects the client in slot i.
func (s *Server) Disconnect(i netcode.ClientIndex) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	err := s.core.Disconnect(s.now(), i)
	out := s.takeLocked()
	events := s.takeEventsLocked()
	s.mu.Unlock()
	out.send(s.io, s.log)
	s.deliver(events)
	return err
}

// Connected reports whether slot i holds a client.
func (s *Server) Connected(i netcode.ClientIndex) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.Connected(i)
}

// ClientID returns the id of the client in slot i, 0 if none.
func (s *Server) ClientID(i netcode.ClientIndex) netcode.ClientID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.ClientID(i)
}

// ClientUserData returns the user data from the token of the client in
// slot i; false if the slot is empty.
func (s *Server) ClientUserData(i netcode.ClientIndex) (netcode.UserData, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ud := s.core.ClientUserData(i); ud != nil {
		return *ud, true
	}
	return netcode.UserData{}, false
}

// MaxClients returns the number of slots.
func (s *Server) MaxClients() int { return s.core.MaxClients() }

// Stats returns a snapshot of the server's counters.
func (s *Server) Stats() netcode.ServerStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.Stats()
}

// ClientCounters returns a snapshot of the counters of slot i.
func (s *Server) ClientCounters(i netcode.ClientIndex) netcode.Counters {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.ClientCounters(i)
}

// Close disconnects every client (with redundant disconnect packets),
// stops the goroutine and closes the socket.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	s.core.DisconnectAll(s.now())
	out := s.takeLocked()
	s.closed = true
	events := s.takeEventsLocked()
	s.mu.Unlock()
	out.send(s.io, s.log) // the disconnect packets, before the socket closes
	err := s.conn.Close()
	<-s.done
	s.deliver(events)
	return err
}
