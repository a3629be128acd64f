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
	log  *slog.Logger
	done chan struct{}

	mu     sync.Mutex // guards core, closed, events
	core   *netcode.Server
	closed bool
	events []func() // callbacks collected under mu, run after it is released
}

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
	s := &Server{cfg: cfg, conn: conn, log: cfg.Logger, done: make(chan struct{})}
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
			s.events = append(s.events, func() { cfg.OnConnect(i, id, &udCopy) })
		}
	}
	nc.OnDisconnect = func(i netcode.ClientIndex, timedOut bool) {
		s.log.Info("client disconnected", "index", i, "timed_out", timedOut)
		if cfg.OnDisconnect != nil {
			s.events = append(s.events, func() { cfg.OnDisconnect(i, timedOut) })
		}
	}
	core, err := netcode.NewServer(nc, nil)
	if err != nil {
		return nil, err
	}
	s.core = core
	go s.run()
	return s, nil
}

// Addr returns the address the socket is bound to.
func (s *Server) Addr() netip.AddrPort { return localAddrPort(s.conn) }

// run is the server's goroutine: read with the tick as deadline, feed the
// core, flush its datagrams, then deliver callbacks outside the lock.
func (s *Server) run() {
	defer close(s.done)
	buf := make([]byte, readBufferBytes)
	next := time.Now().Add(s.cfg.Tick)
	for {
		if err := s.conn.SetReadDeadline(next); err != nil {
			s.log.Debug("set read deadline", "err", err)
		}
		n, from, err := s.conn.ReadFromUDPAddrPort(buf)
		now := time.Now()
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		if err == nil {
			s.core.Receive(now, from, buf[:n])
		} else if !isTimeout(err) {
			s.log.Warn("server read failed", "err", err)
		}
		if !now.Before(next) {
			s.core.Update(now)
			next = now.Add(s.cfg.Tick)
		}
		s.flushLocked()
		s.collectPayloadsLocked()
		events := s.events
		s.events = nil
		s.mu.Unlock()
		for _, e := range events {
			e()
		}
	}
}

// collectPayloadsLocked turns the payloads waiting in the core into
// OnPayload calls.
func (s *Server) collectPayloadsLocked() {
	for i := range s.core.MaxClients() {
		ci := netcode.ClientIndex(i)
		for b, ok := s.core.ReceivePayload(ci); ok; b, ok = s.core.ReceivePayload(ci) {
			if s.cfg.OnPayload != nil {
				s.events = append(s.events, func() { s.cfg.OnPayload(ci, b) })
			}
		}
	}
}

func (s *Server) flushLocked() {
	for _, d := range s.core.Send() {
		if _, err := s.conn.WriteToUDPAddrPort(d.Data, d.To); err != nil {
			s.log.Debug("server write failed", "to", d.To, "err", err)
		}
	}
}

// SendPayload sends 1 to 1200 bytes to the client in slot i, now.
func (s *Server) SendPayload(i netcode.ClientIndex, payload []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.core.SendPayload(time.Now(), i, payload); err != nil {
		return err
	}
	s.flushLocked()
	return nil
}

// Disconnect disconnects the client in slot i.
func (s *Server) Disconnect(i netcode.ClientIndex) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	err := s.core.Disconnect(time.Now(), i)
	s.flushLocked()
	events := s.events
	s.events = nil
	s.mu.Unlock()
	for _, e := range events {
		e()
	}
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
	s.core.DisconnectAll(time.Now())
	s.flushLocked()
	s.closed = true
	events := s.events
	s.events = nil
	s.mu.Unlock()
	err := s.conn.Close()
	<-s.done
	for _, e := range events {
		e()
	}
	return err
}
