package netcode

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"
)

// Errors of the server API.
var (
	ErrMaxClients   = fmt.Errorf("netcode: max clients outside [1,%d]", MaxClients)
	ErrNoAddress    = errors.New("netcode: server needs its public address")
	ErrNotConnected = errors.New("netcode: no client in that slot")
	ErrClientIndex  = errors.New("netcode: client index out of range")
)

// ServerConfig configures a Server.
type ServerConfig struct {
	ProtocolID ProtocolID
	PrivateKey Key // shared with the backend that issues connect tokens
	// PublicAddress is the address clients send to; tokens must list it.
	PublicAddress netip.AddrPort
	// MaxClients is the number of client slots, in [1, MaxClients].
	MaxClients int
	// KeepAliveInterval is how often a keep-alive goes to a client that was
	// sent nothing else: 100 ms, the standard's 10 Hz.
	KeepAliveInterval time.Duration
	// DisconnectPackets is how many redundant disconnect packets are sent
	// when the server drops a client, so one survives packet loss.
	DisconnectPackets int
	// ReceiveQueue is the number of payloads buffered per client before new
	// ones are dropped (DropQueueFull).
	ReceiveQueue int
	// HandshakeTimeout bounds the life of a handshake: a client that does
	// not answer its challenge within it (nor before its token expires)
	// loses its pending encryption mapping. It holds whatever the token's
	// timeout, which may disable idle timeouts (<= 0) but must not let
	// half-open handshakes fill the table of mappings for ever. 5 s: many
	// round trips even at 250 ms latency and heavy loss.
	HandshakeTimeout time.Duration
	// ReplaceSilentAfter lets a player come back at once after a crash or
	// a change of address: a new connection (a fresh, valid token) for a
	// client id whose slot has heard nothing for this long replaces that
	// slot, which is released as timed out, instead of being refused until
	// the old connection times out. Only the backend mints tokens, so a
	// replacement is that client coming back. 0: never, the standard's
	// rule (a client id already connected is refused). 1 s by default.
	ReplaceSilentAfter time.Duration
	// OnConnect, if set, runs when a client takes a slot; OnDisconnect when
	// it leaves (timedOut tells a timeout from a disconnect). They run inside
	// Receive, Update or Disconnect and must not call back into the server.
	OnConnect    func(i ClientIndex, id ClientID, userData *UserData)
	OnDisconnect func(i ClientIndex, timedOut bool)
}

// DefaultServerConfig returns 64 slots, 10 Hz keep-alives, 10 redundant
// disconnect packets, 256-payload receive queues, 5 s handshakes and
// replacement of a slot silent for 1 s. Set ProtocolID, PrivateKey and
// PublicAddress.
func DefaultServerConfig() ServerConfig {
	return ServerConfig{MaxClients: 64, KeepAliveInterval: 100 * time.Millisecond, DisconnectPackets: 10,
		ReceiveQueue: 256, HandshakeTimeout: 5 * time.Second, ReplaceSilentAfter: time.Second}
}

// serverClient is one slot.
type serverClient struct {
	connected bool
	// confirmed turns true at the first keep-alive or payload from the
	// client; until then every payload to it is preceded by a keep-alive,
	// which tells it its index and completes its handshake.
	confirmed bool
	id        ClientID
	addr      netip.AddrPort
	userData  UserData
	sequence  Sequence // next sequence of a packet to this client
	lastSend  time.Time
	lastRecv  time.Time
	timeout   time.Duration // 0 = never
	replay    ReplayProtection
	keys      *mapping
	queue     payloadQueue
	counters  Counters
}

// Server is the server side of netcode 1.02 as a core without I/O: feed it
// datagrams with Receive, advance it with Update, take the datagrams it
// wants sent with Send. Not safe for concurrent use.
type Server struct {
	cfg       ServerConfig
	challenge *ChallengeCipher
	// challengeSeq numbers challenge tokens; globalSeq numbers the
	// connection-less packets (challenge, denied), from 1<<63.
	challengeSeq Sequence
	globalSeq    Sequence
	clients      []serverClient
	used         slotSet // the connected slots
	byAddr       map[netip.AddrPort]ClientIndex
	byID         map[ClientID]ClientIndex
	mappings     mappings
	history      tokenHistory
	out          outbox
	stats        ServerStats
	request      RequestPacket // scratch: requests are large
}

// NewServer returns a server. It reads its challenge key from random (nil
// means crypto/rand); the key lives as long as the server.
func NewServer(cfg ServerConfig, random io.Reader) (*Server, error) {
	if cfg.MaxClients < 1 || cfg.MaxClients > MaxClients {
		return nil, fmt.Errorf("%w: %d", ErrMaxClients, cfg.MaxClients)
	}
	if !cfg.PublicAddress.IsValid() {
		return nil, ErrNoAddress
	}
	d := DefaultServerConfig()
	if cfg.KeepAliveInterval <= 0 {
		cfg.KeepAliveInterval = d.KeepAliveInterval
	}
	if cfg.DisconnectPackets <= 0 {
		cfg.DisconnectPackets = d.DisconnectPackets
	}
	if cfg.ReceiveQueue <= 0 {
		cfg.ReceiveQueue = d.ReceiveQueue
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = d.HandshakeTimeout
	}
	key, err := randomKey(random)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:       cfg,
		challenge: NewChallengeCipher(&key),
		globalSeq: globalSequenceStart,
		clients:   make([]serverClient, cfg.MaxClients),
		used:      newSlotSet(cfg.MaxClients),
		byAddr:    make(map[netip.AddrPort]ClientIndex),
		byID:      make(map[ClientID]ClientIndex),
		// Four handshakes in flight per slot, as the reference allows.
		mappings: newMappings(4 * cfg.MaxClients),
		history:  newTokenHistory(4 * cfg.MaxClients),
	}
	for i := range s.clients {
		s.clients[i].queue = newPayloadQueue(cfg.ReceiveQueue)
	}
	return s, nil
}

// MaxClients returns the number of slots.
func (s *Server) MaxClients() int { return len(s.clients) }

// Connected reports whether slot i holds a client.
func (s *Server) Connected(i ClientIndex) bool {
	return i >= 0 && int(i) < len(s.clients) && s.clients[i].connected
}

// ClientIndexOf returns the slot of the connected client at addr, or -1:
// after Receive from addr, the only slot whose queue may have grown.
func (s *Server) ClientIndexOf(addr netip.AddrPort) ClientIndex {
	if i, ok := s.byAddr[canonical(addr)]; ok {
		return i
	}
	return -1
}

// ClientID returns the id of the client in slot i (0 if none).
func (s *Server) ClientID(i ClientIndex) ClientID {
	if !s.Connected(i) {
		return 0
	}
	return s.clients[i].id
}

// ClientAddress returns the address of the client in slot i.
func (s *Server) ClientAddress(i ClientIndex) netip.AddrPort {
	if !s.Connected(i) {
		return netip.AddrPort{}
	}
	return s.clients[i].addr
}

// ClientUserData returns the user data of the client in slot i, from its token.
func (s *Server) ClientUserData(i ClientIndex) *UserData {
	if !s.Connected(i) {
		return nil
	}
	return &s.clients[i].userData
}

// ClientCounters returns the counters of slot i since its client connected.
func (s *Server) ClientCounters(i ClientIndex) Counters {
	if i < 0 || int(i) >= len(s.clients) {
		return Counters{}
	}
	return s.clients[i].counters
}

// Stats returns the server's counters.
func (s *Server) Stats() ServerStats { return s.stats }

// Send returns the datagrams to send now. Their bytes stay valid until the
// next call to any other method of the server.
func (s *Server) Send() []Datagram { return s.out.drain() }

// ReceivePayload pops the oldest payload received from slot i. The slice is
// the caller's.
func (s *Server) ReceivePayload(i ClientIndex) ([]byte, bool) {
	if i < 0 || int(i) >= len(s.clients) {
		return nil, false
	}
	return s.clients[i].queue.pop()
}

func (s *Server) drop(r DropReason, c *serverClient) {
	s.stats.Drops[r]++
	if c != nil {
		c.counters.Drops[r]++
	}
}

// sendGlobal queues a connection-less packet to addr, sealed with key.
func (s *Server) sendGlobal(to netip.AddrPort, key *PacketKey, t PacketType, body []byte) {
	b, err := key.Seal(s.out.buffer(MaxPacketBytes), t, s.globalSeq, body)
	if err != nil {
		panic("netcode: server built an invalid " + t.String() + " packet: " + err.Error())
	}
	s.globalSeq++
	s.out.commit(to, b)
	s.stats.sent(len(b))
}

// sendTo queues a packet to the client in slot i.
func (s *Server) sendTo(now time.Time, i ClientIndex, t PacketType, body []byte) error {
	c := &s.clients[i]
	b, err := c.keys.send.Seal(s.out.buffer(MaxPacketBytes), t, c.sequence, body)
	if err != nil {
		return err
	}
	c.sequence++
	c.lastSend = now
	c.keys.lastAccess = now
	s.out.commit(c.addr, b)
	s.stats.sent(len(b))
	c.counters.sent(len(b))
	return nil
}

func (s *Server) sendKeepAlive(now time.Time, i ClientIndex) {
	var body [keepAliveBodyBytes]byte
	KeepAliveBody{ClientIndex: uint32(i), MaxClients: uint32(len(s.clients))}.Append(body[:0])
	if err := s.sendTo(now, i, PacketKeepAlive, body[:]); err != nil {
		panic("netcode: server built an invalid keep-alive: " + err.Error())
	}
}

// SendPayload queues a payload of 1 to 1200 bytes to the client in slot i.
// Until the client is confirmed a keep-alive goes before it, so the client
// learns its slot even if it only ever receives payloads.
func (s *Server) SendPayload(now time.Time, i ClientIndex, payload []byte) error {
	if i < 0 || int(i) >= len(s.clients) {
		return fmt.Errorf("%w: %d", ErrClientIndex, i)
	}
	c := &s.clients[i]
	if !c.connected {
		return fmt.Errorf("%w: %d", ErrNotConnected, i)
	}
	if len(payload) < MinPayloadBytes || len(payload) > MaxPayloadBytes {
		return fmt.Errorf("%w: %d bytes", ErrPayloadSize, len(payload))
	}
	if !c.confirmed {
		s.sendKeepAlive(now, i)
	}
	if err := s.sendTo(now, i, PacketPayload, payload); err != nil {
		return err
	}
	s.stats.PayloadsSent++
	c.counters.PayloadsSent++
	return nil
}

// Disconnect sends the redundant disconnect packets to the client in slot i
// and frees the slot.
func (s *Server) Disconnect(now time.Time, i ClientIndex) error {
	if !s.Connected(i) {
		return fmt.Errorf("%w: %d", ErrNotConnected, i)
	}
	for range s.cfg.DisconnectPackets {
		if err := s.sendTo(now, i, PacketDisconnect, nil); err != nil {
			return err
		}
	}
	s.release(i, false)
	return nil
}

// DisconnectAll disconnects every client, as a server does when it stops.
func (s *Server) DisconnectAll(now time.Time) {
	for i := s.used.next(0); i >= 0; i = s.used.next(i + 1) {
		_ = s.Disconnect(now, i) // cannot fail: the slot is connected
	}
}

// release frees slot i without sending anything.
func (s *Server) release(i ClientIndex, timedOut bool) {
	c := &s.clients[i]
	s.mappings.remove(c.addr)
	delete(s.byAddr, c.addr)
	delete(s.byID, c.id)
	s.used.clear(i)
	queue := c.queue
	queue.clear()
	*c = serverClient{queue: queue}
	s.stats.ClientsConnected--
	s.stats.Disconnects++
	if timedOut {
		s.stats.TimedOut++
	}
	if s.cfg.OnDisconnect != nil {
		s.cfg.OnDisconnect(i, timedOut)
	}
}

// Update sends the keep-alives that are due and frees the slots of clients
// that timed out. Call it often: every 10 ms to 100 ms. It visits the
// connected slots only, and the handshakes in flight.
func (s *Server) Update(now time.Time) {
	for i := s.used.next(0); i >= 0; i = s.used.next(i + 1) {
		c := &s.clients[i]
		if c.timeout > 0 && !now.Before(c.lastRecv.Add(c.timeout)) {
			s.release(i, true)
			continue
		}
		if !now.Before(c.lastSend.Add(s.cfg.KeepAliveInterval)) {
			s.sendKeepAlive(now, i)
		}
	}
	s.mappings.expire(now)
}
