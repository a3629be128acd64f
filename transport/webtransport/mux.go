package webtransport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	wt "github.com/quic-go/webtransport-go"

	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/transport/webtransport/frag"
)

// Config configures a Mux's WebTransport endpoint.
type Config struct {
	// Addr is the UDP address the endpoint binds, "host:port".
	Addr string
	// Path is the URL path of the endpoint; "" means DefaultPath.
	Path string
	// TLS, when set, is the endpoint's certificate (one a CA signed, for
	// a server that runs longer than 13 days); nil: a self-signed one
	// (see SelfSigned) that pages pin through serverCertificateHashes.
	TLS *tls.Config
	// MaxSessions bounds the browser sessions open at once; 0 means
	// DefaultMaxSessions.
	MaxSessions int
	// IdleTimeout closes a session that sent nothing for this long (netcode's
	// keep-alives arrive every 100 ms); 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// CheckOrigin accepts or refuses a page's origin; nil accepts every
	// origin: the connect token is what authenticates a player, as on UDP.
	CheckOrigin func(r *http.Request) bool
	Logger      *slog.Logger // nil: slog.Default()
}

const (
	// DefaultPath is the endpoint's URL path.
	DefaultPath = "/netcode"
	// DefaultMaxSessions is the default bound on open sessions.
	DefaultMaxSessions = 256
	// DefaultIdleTimeout is the default idle timeout of a session.
	DefaultIdleTimeout = 10 * time.Second
	// queueLen is how many received datagrams wait for the reader, over
	// all sessions; sessionQueueLen is how many of them one session may hold.
	queueLen        = 1024
	sessionQueueLen = 64
)

// Stats counts what the Mux did with the browsers' datagrams. Drops of
// packets that arrived whole are netcode's (ServerStats); these are the
// carrier's.
type Stats struct {
	SessionsAccepted uint64 // sessions upgraded
	SessionsRefused  uint64 // refused: MaxSessions open, or the upgrade failed
	SessionsOpen     int
	DatagramsIn      uint64 // queued for the netcode server
	DatagramsOut     uint64 // handed to a session
	DroppedSize      uint64 // empty or longer than netcode.MaxPacketBytes
	DroppedQueueFull uint64 // the queue, or the session's share of it, was full
	DroppedSpoofed   uint64 // UDP packets claiming a browser session's address prefix
	DroppedNoSession uint64 // written to a session that has closed
	SendErrors       uint64 // a session refused a datagram (too large for its path, closed)
	// Fragments counts the packets larger than frag.MaxDatagram, sent
	// and received in fragments.
	Fragments frag.Stats
}

// session is one browser's WebTransport session.
type session struct {
	s      *wt.Session
	addr   netip.AddrPort
	queued int               // entries of the queue it holds, under Mux.mu
	frags  *frag.Reassembler // from its first fragment on, under Mux.mu
	nextID uint16            // of its next packet sent in fragments, under Mux.mu
}

// entry is one received datagram waiting for the reader.
type entry struct {
	from *session
	data []byte
}

// Mux is a transport.PacketConn over the server's UDP socket and a
// WebTransport endpoint. ReadFromUDPAddrPort and SetReadDeadline are
// called by one goroutine (the driver's); WriteToUDPAddrPort by any.
type Mux struct {
	udp      transport.PacketConn
	quicConn *net.UDPConn
	listener *quic.EarlyListener
	srv      *wt.Server
	serving  sync.WaitGroup // the accept loop and one goroutine per QUIC connection
	cfg      Config
	log      *slog.Logger
	hash     [32]byte // of the self-signed certificate; zero with Config.TLS
	deadline time.Time

	mu       sync.Mutex // guards everything below
	sessions map[netip.AddrPort]*session
	queue    [queueLen]entry // a ring
	head, n  int
	nextID   uint64
	stats    Stats
	closed   bool
}

var _ transport.PacketConn = (*Mux)(nil)

// NewMux starts a WebTransport endpoint on cfg.Addr beside udp, the
// server's socket, and returns the two as one PacketConn, which owns both.
func NewMux(udp transport.PacketConn, cfg Config) (*Mux, error) {
	if cfg.Path == "" {
		cfg.Path = DefaultPath
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.CheckOrigin == nil {
		cfg.CheckOrigin = func(*http.Request) bool { return true }
	}
	m := &Mux{udp: udp, cfg: cfg, log: cfg.Logger, sessions: make(map[netip.AddrPort]*session)}
	if m.log == nil {
		m.log = slog.Default()
	}
	tlsConf := cfg.TLS
	if tlsConf == nil {
		cert, hash, err := SelfSigned(time.Now())
		if err != nil {
			return nil, err
		}
		tlsConf, m.hash = &tls.Config{Certificates: []tls.Certificate{cert}}, hash
	}
	ua, err := net.ResolveUDPAddr("udp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("webtransport: endpoint address: %w", err)
	}
	if m.quicConn, err = net.ListenUDP("udp", ua); err != nil {
		return nil, fmt.Errorf("webtransport: %w", err)
	}
	handler := http.NewServeMux()
	handler.HandleFunc(cfg.Path, m.serveSession)
	tlsConf = http3.ConfigureTLSConfig(tlsConf)
	quicConf := &quic.Config{MaxIdleTimeout: cfg.IdleTimeout, EnableDatagrams: true, EnableStreamResetPartialDelivery: true}
	m.srv = &wt.Server{
		H3:          &http3.Server{TLSConfig: tlsConf, Handler: handler, QUICConfig: quicConf},
		CheckOrigin: cfg.CheckOrigin,
	}
	wt.ConfigureHTTP3Server(m.srv.H3)
	// The mux owns the QUIC listener and its goroutines rather than
	// calling Server.Serve: that one counts itself in after it starts,
	// so a Close right after NewMux would race with it.
	if m.listener, err = quic.ListenEarly(m.quicConn, tlsConf, quicConf); err != nil {
		m.quicConn.Close()
		return nil, fmt.Errorf("webtransport: %w", err)
	}
	m.serving.Add(1)
	go m.accept()
	m.log.Info("webtransport: endpoint up", "addr", m.EndpointAddr(), "path", cfg.Path)
	return m, nil
}

// accept serves each QUIC connection until the listener closes.
func (m *Mux) accept() {
	defer m.serving.Done()
	for {
		conn, err := m.listener.Accept(context.Background())
		if err != nil {
			return
		}
		m.serving.Add(1)
		go func() {
			defer m.serving.Done()
			if err := m.srv.ServeQUICConn(conn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				m.log.Debug("webtransport: QUIC connection ended", "remote", conn.RemoteAddr(), "err", err)
			}
		}()
	}
}

// EndpointAddr returns the UDP address the WebTransport endpoint is bound to.
func (m *Mux) EndpointAddr() netip.AddrPort {
	return m.quicConn.LocalAddr().(*net.UDPAddr).AddrPort()
}

// Path returns the URL path of the endpoint.
func (m *Mux) Path() string { return m.cfg.Path }

// CertHash returns the SHA-256 of the self-signed certificate, for the
// page's serverCertificateHashes; false with Config.TLS.
func (m *Mux) CertHash() ([32]byte, bool) { return m.hash, m.hash != [32]byte{} }

// Stats returns a snapshot of the counters.
func (m *Mux) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stats
	s.SessionsOpen = len(m.sessions)
	for _, ses := range m.sessions {
		if ses.frags != nil {
			s.Fragments.Add(ses.frags.Stats)
		}
	}
	return s
}

// browserPrefix is 100::/64, where the sessions' synthetic addresses live.
var browserPrefix = netip.MustParsePrefix("100::/64")

// IsBrowserAddr reports whether a is a browser session's synthetic address.
func IsBrowserAddr(a netip.AddrPort) bool { return browserPrefix.Contains(a.Addr()) }

// sessionAddr returns the synthetic address of the id-th session.
func sessionAddr(id uint64) netip.AddrPort {
	b := [16]byte{0: 0x01}
	for i := range 8 {
		b[15-i] = byte(id >> (8 * i))
	}
	return netip.AddrPortFrom(netip.AddrFrom16(b), 443)
}

// serveSession upgrades one request to a session and queues its datagrams
// until it ends.
func (m *Mux) serveSession(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	if m.closed || len(m.sessions) >= m.cfg.MaxSessions {
		m.stats.SessionsRefused++
		m.mu.Unlock()
		http.Error(w, "too many browser sessions", http.StatusServiceUnavailable)
		return
	}
	m.nextID++
	ses := &session{addr: sessionAddr(m.nextID)}
	m.sessions[ses.addr] = ses // reserved before the upgrade, so MaxSessions holds
	m.mu.Unlock()
	defer m.forget(ses)
	s, err := m.srv.Upgrade(w, r)
	if err != nil {
		m.mu.Lock()
		m.stats.SessionsRefused++
		m.mu.Unlock()
		m.log.Debug("webtransport: upgrade failed", "remote", r.RemoteAddr, "err", err)
		return
	}
	m.mu.Lock()
	ses.s = s
	m.stats.SessionsAccepted++
	m.mu.Unlock()
	m.log.Info("webtransport: browser session", "addr", ses.addr, "remote", s.RemoteAddr())
	defer s.CloseWithError(0, "")
	for {
		b, err := s.ReceiveDatagram(context.Background())
		if err != nil {
			m.log.Info("webtransport: browser session ended", "addr", ses.addr, "err", err)
			return
		}
		m.push(ses, b)
	}
}

// forget removes a session that ended.
func (m *Mux) forget(ses *session) {
	m.mu.Lock()
	delete(m.sessions, ses.addr)
	if ses.frags != nil {
		m.stats.Fragments.Add(ses.frags.Stats)
	}
	m.mu.Unlock()
}

// aLongTimeAgo is a read deadline that has passed: setting it wakes the reader.
var aLongTimeAgo = time.Unix(1, 0)

// push queues a received datagram, or the packet a fragment completes,
// and wakes the reader.
func (m *Mux) push(ses *session, b []byte) {
	m.mu.Lock()
	if len(b) == 0 || len(b) > netcode.MaxPacketBytes {
		m.stats.DroppedSize++
		m.mu.Unlock()
		return
	}
	if frag.IsFragment(b) {
		if ses.frags == nil {
			ses.frags = new(frag.Reassembler)
		}
		whole := ses.frags.Add(b, time.Now())
		if whole == nil {
			m.mu.Unlock()
			return
		}
		b = append([]byte(nil), whole...) // at most netcode.MaxPacketBytes
	}
	if m.n == queueLen || ses.queued == sessionQueueLen {
		m.stats.DroppedQueueFull++
		m.mu.Unlock()
		return
	}
	m.queue[(m.head+m.n)%queueLen] = entry{from: ses, data: b}
	m.n++
	ses.queued++
	m.stats.DatagramsIn++
	m.mu.Unlock()
	// After the entry is queued: a reader that set its own deadline
	// before looking at the queue and found it empty wakes up now.
	_ = m.udp.SetReadDeadline(aLongTimeAgo)
}

// pop takes the oldest queued datagram, copied into b.
func (m *Mux) pop(b []byte) (int, netip.AddrPort, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == 0 {
		return 0, netip.AddrPort{}, false
	}
	e := m.queue[m.head]
	m.queue[m.head] = entry{}
	m.head = (m.head + 1) % queueLen
	m.n--
	e.from.queued--
	return copy(b, e.data), e.from.addr, true
}

// ReadFromUDPAddrPort returns the next datagram from a browser session or
// the UDP socket, whichever comes first, until the read deadline.
func (m *Mux) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	for {
		// The deadline first, then the queue: see push.
		if err := m.udp.SetReadDeadline(m.deadline); err != nil {
			return 0, netip.AddrPort{}, err
		}
		if n, from, ok := m.pop(b); ok {
			return n, from, nil
		}
		n, from, err := m.udp.ReadFromUDPAddrPort(b)
		switch {
		case err == nil && IsBrowserAddr(from):
			m.mu.Lock()
			m.stats.DroppedSpoofed++
			m.mu.Unlock()
		case err == nil:
			return n, from, nil
		case isTimeout(err) && (m.deadline.IsZero() || time.Now().Before(m.deadline)):
			// Woken by push: take the datagram on the next pass.
		default:
			return 0, netip.AddrPort{}, err
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// WriteToUDPAddrPort sends b to a browser session or over UDP, by
// address; to a session, a packet larger than frag.MaxDatagram goes in
// fragments.
func (m *Mux) WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error) {
	if !IsBrowserAddr(addr) {
		return m.udp.WriteToUDPAddrPort(b, addr)
	}
	m.mu.Lock()
	ses := m.sessions[addr]
	if ses == nil || ses.s == nil {
		m.stats.DroppedNoSession++
		m.mu.Unlock()
		return 0, fmt.Errorf("webtransport: no browser session at %v", addr)
	}
	id := ses.nextID
	if len(b) > frag.MaxDatagram {
		ses.nextID++
	}
	m.mu.Unlock()
	n, err := frag.Split(b, frag.MaxDatagram, id, ses.s.SendDatagram) // SendDatagram copies
	m.mu.Lock()
	if err != nil {
		m.stats.SendErrors++
	}
	m.stats.DatagramsOut += uint64(n)
	if n > 0 && len(b) > frag.MaxDatagram {
		m.stats.Fragments.PacketsSplit++
		m.stats.Fragments.FragmentsSent += uint64(n)
	}
	m.mu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("webtransport: send to %v: %w", addr, err)
	}
	return len(b), nil
}

// SetReadDeadline sets the deadline of ReadFromUDPAddrPort, a wall-clock time.
func (m *Mux) SetReadDeadline(t time.Time) error {
	m.deadline = t
	return nil
}

// LocalAddr is the UDP socket's address, the one tokens list.
func (m *Mux) LocalAddr() net.Addr { return m.udp.LocalAddr() }

// SetReadBuffer and SetWriteBuffer pass the drivers' buffer sizes to the
// UDP socket, if it has them.
func (m *Mux) SetReadBuffer(n int) error {
	if b, ok := m.udp.(interface{ SetReadBuffer(int) error }); ok {
		return b.SetReadBuffer(n)
	}
	return nil
}

// SetWriteBuffer: see SetReadBuffer.
func (m *Mux) SetWriteBuffer(n int) error {
	if b, ok := m.udp.(interface{ SetWriteBuffer(int) error }); ok {
		return b.SetWriteBuffer(n)
	}
	return nil
}

// Close ends every session, the endpoint and the UDP socket.
func (m *Mux) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return net.ErrClosed
	}
	m.closed = true
	m.mu.Unlock()
	m.listener.Close()
	err := m.srv.Close()
	m.serving.Wait()
	if e := m.quicConn.Close(); err == nil && !errors.Is(e, net.ErrClosed) {
		err = e
	}
	if e := m.udp.Close(); err == nil {
		err = e
	}
	return err
}
