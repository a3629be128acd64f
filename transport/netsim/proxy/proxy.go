package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

// ErrSetup wraps the proxy's setup errors.
var ErrSetup = errors.New("proxy: setup")

// Config configures a Proxy.
type Config struct {
	// Listen is the UDP address clients send to, such as "127.0.0.1:0".
	Listen string
	// Forward is the UDP address of the server the traffic goes to.
	Forward string
	// Seed seeds the simulator's random choices.
	Seed uint64
	// Conditions apply to each direction of each client's traffic:
	// every client has its own bandwidth queue each way.
	Conditions netsim.Conditions
	// IdleTimeout closes a client's upstream socket after this long
	// without a packet either way. Default 60 s.
	IdleTimeout time.Duration
	// MaxClients bounds the upstream sockets, one per client address;
	// packets from further clients are dropped. Default 1024.
	MaxClients int
}

// Counters are the simulator's counters plus the proxy's own.
type Counters struct {
	netsim.Counters
	Clients       int    // client addresses with an upstream socket now
	Refused       uint64 // packets from new clients beyond MaxClients
	WriteErrors   uint64 // datagrams the sockets failed to send
	Undeliverable uint64 // datagrams due to a client whose session had closed
}

// Proxy is a UDP relay that puts a netsim.Sim between clients and a server, on
// the real clock: a client sends to the proxy's address, the proxy
// forwards to the server from a socket of its own for that client, and
// relays the server's replies back, each way through the simulator.
// Create it with Listen and run it with Run.
type Proxy struct {
	cfg     Config
	conn    *net.UDPConn
	forward netip.AddrPort
	wake    chan struct{} // a packet was queued: recheck the next due time

	mu       sync.Mutex
	sim      *netsim.Sim
	sessions map[netip.AddrPort]*session
	counters Counters
	wg       sync.WaitGroup // session readers
}

// session is one client's upstream socket.
type session struct {
	client   netip.AddrPort
	conn     *net.UDPConn
	lastSeen time.Time
}

// Listen validates cfg and binds the proxy's listening socket.
func Listen(cfg Config) (*Proxy, error) {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 60 * time.Second
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = 1024
	}
	sim, err := netsim.New(netsim.Config{Seed: cfg.Seed, Conditions: cfg.Conditions})
	if err != nil {
		return nil, err
	}
	fwd, err := resolve(cfg.Forward)
	if err != nil {
		return nil, fmt.Errorf("%w: forward address: %w", ErrSetup, err)
	}
	laddr, err := net.ResolveUDPAddr("udp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("%w: listen address: %w", ErrSetup, err)
	}
	conn, err := net.ListenUDP("udp", laddr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	return &Proxy{
		cfg:      cfg,
		conn:     conn,
		forward:  fwd,
		wake:     make(chan struct{}, 1),
		sim:      sim,
		sessions: map[netip.AddrPort]*session{},
	}, nil
}

func resolve(s string) (netip.AddrPort, error) {
	a, err := net.ResolveUDPAddr("udp", s)
	if err != nil {
		return netip.AddrPort{}, err
	}
	ap := a.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
}

// Addr returns the address clients send to.
func (p *Proxy) Addr() netip.AddrPort { return p.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

// Counters returns a snapshot of the proxy's counters. Safe to call from
// any goroutine.
func (p *Proxy) Counters() Counters {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counters
	c.Counters = p.sim.Counters()
	c.Clients = len(p.sessions)
	return c
}

// SetConditions changes the conditions of every client's traffic, both
// ways, from now on; packets in flight keep their fate. Safe to call from
// any goroutine while Run runs.
func (p *Proxy) SetConditions(c netsim.Conditions) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sim.SetConditions(c)
}

// Run relays packets until ctx is done, then closes every socket and
// returns nil once its goroutines have stopped. Run may be called once.
func (p *Proxy) Run(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.readClients()
	}()
	p.deliverLoop(ctx)
	p.conn.Close()
	<-done
	p.mu.Lock()
	for _, s := range p.sessions {
		s.conn.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

// readClients reads the listening socket until it is closed.
func (p *Proxy) readClients() {
	buf := make([]byte, 65536)
	for {
		n, from, err := p.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // e.g. ICMP port unreachable from a gone client
		}
		from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
		now := time.Now()
		p.mu.Lock()
		s := p.sessions[from]
		if s == nil {
			s = p.openSession(from)
		}
		if s != nil {
			s.lastSeen = now
			p.sim.Send(now, from, p.forward, buf[:n])
		}
		p.mu.Unlock()
		p.poke()
	}
}

// openSession opens the upstream socket of a new client; p.mu is held.
func (p *Proxy) openSession(client netip.AddrPort) *session {
	if len(p.sessions) >= p.cfg.MaxClients {
		p.counters.Refused++
		return nil
	}
	network := "udp4"
	if p.forward.Addr().Is6() {
		network = "udp6"
	}
	conn, err := net.ListenUDP(network, nil)
	if err != nil {
		slog.Warn("proxy: upstream socket", "client", client, "err", err)
		p.counters.Refused++
		return nil
	}
	s := &session{client: client, conn: conn}
	p.sessions[client] = s
	p.wg.Add(1)
	go p.readServer(s)
	return s
}

// readServer relays what the server sends to one client's upstream
// socket, until the socket is closed.
func (p *Proxy) readServer(s *session) {
	defer p.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, from, err := s.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if netip.AddrPortFrom(from.Addr().Unmap(), from.Port()) != p.forward {
			continue // only the server may answer through this socket
		}
		now := time.Now()
		p.mu.Lock()
		s.lastSeen = now
		p.sim.Send(now, p.forward, s.client, buf[:n])
		p.mu.Unlock()
		p.poke()
	}
}

func (p *Proxy) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// deliverLoop writes out the packets the simulator releases, sleeping
// until the next one is due, and closes idle sessions.
func (p *Proxy) deliverLoop(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	sweep := time.NewTicker(min(time.Second, p.cfg.IdleTimeout))
	defer sweep.Stop()
	for {
		now := time.Now()
		p.mu.Lock()
		for _, pkt := range p.sim.Receive(now) {
			p.write(pkt)
		}
		next, ok := p.sim.NextDue()
		p.mu.Unlock()
		wait := time.Hour
		if ok {
			wait = max(time.Until(next), 0)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-timer.C:
		case <-sweep.C:
			p.closeIdle(time.Now())
		}
	}
}

// write sends one due packet on its socket; p.mu is held. UDP writes do
// not block for long, so holding the lock is cheaper than copying.
func (p *Proxy) write(pkt netsim.Packet) {
	var err error
	if pkt.To == p.forward {
		s := p.sessions[pkt.From]
		if s == nil {
			p.counters.Undeliverable++
			return
		}
		_, err = s.conn.WriteToUDPAddrPort(pkt.Data, p.forward)
	} else {
		if p.sessions[pkt.To] == nil {
			p.counters.Undeliverable++
			return
		}
		_, err = p.conn.WriteToUDPAddrPort(pkt.Data, pkt.To)
	}
	if err != nil {
		p.counters.WriteErrors++
	}
}

// closeIdle closes the sessions silent for IdleTimeout.
func (p *Proxy) closeIdle(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for client, s := range p.sessions {
		if now.Sub(s.lastSeen) >= p.cfg.IdleTimeout {
			s.conn.Close()
			delete(p.sessions, client)
			p.sim.Forget(client, p.forward)
			p.sim.Forget(p.forward, client)
		}
	}
}
